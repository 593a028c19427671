#include "admission/certificate_approval.h"

#include <boost/json.hpp>

namespace capstan::admission {

namespace json = boost::json;

bool IsCsrSubresource(const Attributes& a, const char* subresource) {
  return a.resource && a.resource->group == "certificates.k8s.io" && a.resource->resource == "certificatesigningrequests" &&
         a.subresource == subresource;
}

std::string CsrSignerName(const registry::Object& csr) {
  const json::value* spec = csr.if_contains("spec");
  if (!spec || !spec->is_object()) return "";
  const json::value* s = spec->as_object().if_contains("signerName");
  return s && s->is_string() ? std::string(s->as_string()) : "";
}

Task<Status> CertificateApproval::Validate(const Attributes& a) {
  if (!IsCsrSubresource(a, "approval")) co_return Status();
  if (!a.old_object) co_return ForbiddenFor(a, "expected type CertificateSigningRequest, got: <nil>");
  // The stored signerName: a request changing it through approval is refused by validation anyway.
  std::string signer = CsrSignerName(*a.old_object);
  static const UserInfo kNobody;
  if (!co_await IsAuthorizedForSignerName(authorize_, a.user ? *a.user : kNobody, "approve", signer)) {
    co_return ForbiddenFor(a, "user not permitted to approve requests with signerName \"" + signer + "\"");
  }
  co_return Status();
}

}  // namespace capstan::admission
