#include "auth/authn/token_file.h"

#include <openssl/crypto.h>

#include <fstream>
#include <sstream>

#include "auth/authn/csv.h"
#include "auth/authn/digest.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::authn {

std::string Sha256(std::string_view s) { return Sha256Digest(s); }

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

StatusOr<std::unique_ptr<StaticTokenAuthenticator>> StaticTokenAuthenticator::FromFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(500, "InternalError", "open " + path + ": cannot read the --token-auth-file");
  std::stringstream ss;
  ss << in.rdbuf();
  return FromCsv(ss.str(), path);
}

StatusOr<std::unique_ptr<StaticTokenAuthenticator>> StaticTokenAuthenticator::FromCsv(std::string_view text,
                                                                                      const std::string& source) {
  auto records = ParseCsv(text);
  if (!records.ok()) return Status(500, "InternalError", records.status().message());
  std::unique_ptr<StaticTokenAuthenticator> a(new StaticTokenAuthenticator());
  int record_num = 0;
  for (auto& rec : *records) {
    if (rec.fields.size() < 3) {
      return Status(500, "InternalError",
                    "token file '" + source + "' must have at least 3 columns (token, user name, user uid), found " +
                        std::to_string(rec.fields.size()));
    }
    ++record_num;
    if (rec.fields[0].empty()) {
      LogWarn("empty token has been found in token file", {{"file", source}, {"record", record_num}});
      continue;
    }
    Entry e;
    e.token = rec.fields[0];
    e.user.name = rec.fields[1];
    e.user.uid = rec.fields[2];
    // As kube: strings.Split of the fourth column, so an empty column is one empty group.
    if (rec.fields.size() >= 4) e.user.groups = Split(rec.fields[3], ',');
    std::string digest = Sha256(e.token);
    if (a->tokens_.count(digest)) {
      LogWarn("duplicate token has been found in token file", {{"file", source}, {"record", record_num}});
    }
    a->tokens_.insert_or_assign(std::move(digest), std::move(e));
  }
  return a;
}

std::optional<UserInfo> StaticTokenAuthenticator::Lookup(std::string_view token) const {
  auto it = tokens_.find(Sha256(token));
  if (it == tokens_.end() || !ConstantTimeEquals(it->second.token, token)) return std::nullopt;
  return it->second.user;
}

Task<AuthResult> StaticTokenAuthenticator::AuthenticateToken(const std::string& token, const Audiences&) {
  auto user = Lookup(token);
  if (!user) co_return std::optional<Response>();
  Response r;
  r.user = std::move(*user);
  co_return std::optional<Response>(std::move(r));
}

}  // namespace capstan::authn
