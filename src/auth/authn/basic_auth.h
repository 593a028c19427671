// auth/authn/basic_auth.h: HTTP basic authentication against --basic-auth-file, a CSV file of
// password,user,uid[,"group1,group2"] (kube's passwordfile authenticator, removed from kube in 1.19 and
// kept here, off by default, for clusters that still depend on it: passwords travel with every request
// and cannot be rotated without a restart). A request without "Authorization: Basic" is no opinion;
// an unknown user or a wrong password is the error "invalid username/password combination".
// Passwords are compared in constant time and never logged. Immutable after loading; thread-safe.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "auth/authn/authenticator.h"

namespace capstan::authn {

struct BasicCredentials {
  std::string username;
  std::string password;
};

// Go's Request.BasicAuth: "Basic <base64(user:password)>" with the scheme case-insensitive.
std::optional<BasicCredentials> ParseBasicAuth(std::string_view header_value);

class BasicAuthAuthenticator : public RequestAuthenticator {
 public:
  static StatusOr<std::unique_ptr<BasicAuthAuthenticator>> FromFile(const std::string& path);
  static StatusOr<std::unique_ptr<BasicAuthAuthenticator>> FromCsv(std::string_view text, const std::string& source);

  Task<AuthResult> AuthenticateRequest(const http::HttpRequest& req, const Audiences& audiences) override;
  // The synchronous core: the user, or nullopt for an unknown user or a wrong password.
  std::optional<UserInfo> Check(std::string_view username, std::string_view password) const;

 private:
  struct Entry {
    std::string password;
    UserInfo user;
  };
  std::map<std::string, Entry, std::less<>> users_;
};

}  // namespace capstan::authn
