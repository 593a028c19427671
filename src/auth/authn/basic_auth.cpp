#include "auth/authn/basic_auth.h"

#include <fstream>
#include <sstream>

#include "auth/authn/csv.h"
#include "auth/authn/token_file.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::authn {

std::optional<BasicCredentials> ParseBasicAuth(std::string_view header_value) {
  constexpr std::string_view kPrefix = "Basic ";
  if (header_value.size() < kPrefix.size() || !EqualsIgnoreCase(header_value.substr(0, kPrefix.size()), kPrefix)) {
    return std::nullopt;
  }
  std::string decoded;
  if (!Base64Decode(header_value.substr(kPrefix.size()), decoded)) return std::nullopt;
  size_t colon = decoded.find(':');
  if (colon == std::string::npos) return std::nullopt;
  return BasicCredentials{decoded.substr(0, colon), decoded.substr(colon + 1)};
}

StatusOr<std::unique_ptr<BasicAuthAuthenticator>> BasicAuthAuthenticator::FromFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(500, "InternalError", "open " + path + ": cannot read the --basic-auth-file");
  std::stringstream ss;
  ss << in.rdbuf();
  return FromCsv(ss.str(), path);
}

StatusOr<std::unique_ptr<BasicAuthAuthenticator>> BasicAuthAuthenticator::FromCsv(std::string_view text,
                                                                                  const std::string& source) {
  auto records = ParseCsv(text);
  if (!records.ok()) return Status(500, "InternalError", records.status().message());
  std::unique_ptr<BasicAuthAuthenticator> a(new BasicAuthAuthenticator());
  int record_num = 0;
  for (auto& rec : *records) {
    if (rec.fields.size() < 3) {
      return Status(500, "InternalError",
                    "password file '" + source + "' must have at least 3 columns (password, user name, user uid), found " +
                        std::to_string(rec.fields.size()));
    }
    Entry e;
    e.password = rec.fields[0];
    e.user.name = rec.fields[1];
    e.user.uid = rec.fields[2];
    if (rec.fields.size() >= 4) e.user.groups = Split(rec.fields[3], ',');
    ++record_num;
    if (a->users_.count(e.user.name)) {
      LogWarn("duplicate username has been found in password file",
              {{"user", e.user.name}, {"file", source}, {"record", record_num}});
    }
    std::string name = e.user.name;
    a->users_.insert_or_assign(std::move(name), std::move(e));
  }
  return a;
}

std::optional<UserInfo> BasicAuthAuthenticator::Check(std::string_view username, std::string_view password) const {
  auto it = users_.find(username);
  if (it == users_.end()) return std::nullopt;
  // Compare digests so that neither the length nor the content of the password leaks through timing.
  if (!ConstantTimeEquals(Sha256(it->second.password), Sha256(password))) return std::nullopt;
  return it->second.user;
}

Task<AuthResult> BasicAuthAuthenticator::AuthenticateRequest(const http::HttpRequest& req, const Audiences&) {
  auto creds = ParseBasicAuth(req.headers.Get("Authorization"));
  if (!creds) co_return std::optional<Response>();
  auto user = Check(creds->username, creds->password);
  if (!user) co_return AuthError("invalid username/password combination");
  Response r;
  r.user = std::move(*user);
  co_return std::optional<Response>(std::move(r));
}

}  // namespace capstan::authn
