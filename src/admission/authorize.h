// admission/authorize.h: how admission plugins ask the server's authorizer a question of their own
// (kube's WantsAuthorizer): CertificateApproval and CertificateSigning check a synthetic "signers"
// resource. The function is given by the server (cmd) so admission does not depend on the authorizer
// implementations. Thread-safe as the authorizer is.
#pragma once

#include <functional>
#include <string>

#include "apimachinery/user_info.h"
#include "util/task.h"

namespace capstan::admission {

// One resource attribute set, as kube's authorizer.AttributesRecord with ResourceRequest true.
struct AuthorizeRequest {
  std::string verb;
  std::string api_group;
  std::string api_version;
  std::string resource;
  std::string subresource;
  std::string namespace_;
  std::string name;
};

// True when the authorizer allows; false on deny, no opinion or an evaluation error.
using AuthorizeFunc = std::function<Task<bool>(const UserInfo& user, const AuthorizeRequest& request)>;

// kube's IsAuthorizedForSignerName: `verb` on signers/<signerName> in certificates.k8s.io, or else on
// signers/<domain>/* (the part of the name before the first "/").
Task<bool> IsAuthorizedForSignerName(const AuthorizeFunc& authorize, const UserInfo& user, const std::string& verb,
                                     const std::string& signer_name);

}  // namespace capstan::admission
