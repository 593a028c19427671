#include "admission/authorize.h"

namespace capstan::admission {

Task<bool> IsAuthorizedForSignerName(const AuthorizeFunc& authorize, const UserInfo& user, const std::string& verb,
                                     const std::string& signer_name) {
  if (!authorize) co_return false;
  AuthorizeRequest r;
  r.verb = verb;
  r.api_group = "certificates.k8s.io";
  r.api_version = "*";
  r.resource = "signers";
  r.name = signer_name;
  if (co_await authorize(user, r)) co_return true;
  r.name = signer_name.substr(0, signer_name.find('/')) + "/*";
  co_return co_await authorize(user, r);
}

}  // namespace capstan::admission
