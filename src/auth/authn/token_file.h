// auth/authn/token_file.h: static bearer tokens from --token-auth-file, a CSV file of
// token,user,uid[,"group1,group2"] (kube's tokenfile authenticator). An unknown token is no opinion.
//
// Tokens are looked up by their SHA-256 digest and then compared in constant time, so lookup time
// says nothing about how much of a guess was right; the file's tokens are never logged. Immutable
// after loading; thread-safe.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "auth/authn/authenticator.h"

namespace capstan::authn {

// SHA-256 of `s`, raw bytes.
std::string Sha256(std::string_view s);
// Constant-time equality of two byte strings (the length is not secret).
bool ConstantTimeEquals(std::string_view a, std::string_view b);

class StaticTokenAuthenticator : public TokenAuthenticator {
 public:
  static StatusOr<std::unique_ptr<StaticTokenAuthenticator>> FromFile(const std::string& path);
  // `source` names the file in messages.
  static StatusOr<std::unique_ptr<StaticTokenAuthenticator>> FromCsv(std::string_view text, const std::string& source);

  Task<AuthResult> AuthenticateToken(const std::string& token, const Audiences& audiences) override;
  // The synchronous core, for tests and benchmarks.
  std::optional<UserInfo> Lookup(std::string_view token) const;
  size_t size() const { return tokens_.size(); }

 private:
  struct Entry {
    std::string token;
    UserInfo user;
  };
  std::unordered_map<std::string, Entry> tokens_;  // by Sha256(token)
};

}  // namespace capstan::authn
