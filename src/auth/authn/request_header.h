// auth/authn/request_header.h: the front-proxy (request header) authenticator
// (--requestheader-client-ca-file, --requestheader-allowed-names, --requestheader-username-headers,
// --requestheader-uid-headers, --requestheader-group-headers, --requestheader-extra-headers-prefix).
//
// The identity headers are trusted only from a client whose certificate verifies against the
// requestheader CA (and, when allowed names are given, whose CN is one of them): no certificate is no
// opinion, a certificate that does not verify or is not allowed is an error. Then, as kube: the first
// non-empty username header names the user (none: no opinion), the first non-empty uid header its uid,
// every value of every group header is a group, and each header starting with an extra prefix adds
// a value to the extra key that follows the prefix (lower-cased, then %-decoded). Thread-safe.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "auth/authn/authenticator.h"
#include "auth/authn/x509.h"
#include "server/http/headers.h"

namespace capstan::authn {

struct RequestHeaderConfig {
  std::string client_ca_file;
  std::vector<std::string> allowed_names;
  std::vector<std::string> username_headers;
  std::vector<std::string> uid_headers;
  std::vector<std::string> group_headers;
  std::vector<std::string> extra_header_prefixes;
};

// The user the identity headers name (no certificate check), nullopt when no username header is set.
// Exposed for tests and the fuzzer.
std::optional<UserInfo> UserFromRequestHeaders(const http::Headers& headers, const RequestHeaderConfig& config);

class RequestHeaderAuthenticator : public RequestAuthenticator {
 public:
  // Header names are trimmed; an empty one is an error (kube: `empty header "..."`).
  static StatusOr<std::unique_ptr<RequestHeaderAuthenticator>> Create(RequestHeaderConfig config);
  // With an already-built certificate verifier (tests).
  static StatusOr<std::unique_ptr<RequestHeaderAuthenticator>> Create(RequestHeaderConfig config,
                                                                      std::unique_ptr<X509Authenticator> verifier);

  Task<AuthResult> AuthenticateRequest(const http::HttpRequest& req, const Audiences& audiences) override;
  // The verifier of the proxy's certificate (its CA bundle is replaced when the file changes).
  X509Authenticator& verifier() { return *verifier_; }

 private:
  RequestHeaderConfig config_;
  std::unique_ptr<X509Authenticator> verifier_;
};

}  // namespace capstan::authn
