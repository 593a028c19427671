#include "admission/certificate_signing.h"

#include <boost/json.hpp>

#include "admission/certificate_approval.h"

namespace capstan::admission {

namespace json = boost::json;

namespace {

// status.certificate (base64 in JSON): absent, null and "" are all an empty byte string.
std::string Certificate(const registry::Object& csr) {
  const json::value* st = csr.if_contains("status");
  if (!st || !st->is_object()) return "";
  const json::value* c = st->as_object().if_contains("certificate");
  return c && c->is_string() ? std::string(c->as_string()) : "";
}

}  // namespace

Task<Status> CertificateSigning::Validate(const Attributes& a) {
  if (!IsCsrSubresource(a, "status")) co_return Status();
  if (!a.old_object) co_return ForbiddenFor(a, "expected type CertificateSigningRequest, got: <nil>");
  if (!a.object) co_return ForbiddenFor(a, "expected type CertificateSigningRequest, got: <nil>");
  if (Certificate(*a.old_object) == Certificate(*a.object)) co_return Status();
  std::string signer = CsrSignerName(*a.old_object);
  static const UserInfo kNobody;
  if (!co_await IsAuthorizedForSignerName(authorize_, a.user ? *a.user : kNobody, "sign", signer)) {
    co_return ForbiddenFor(a, "user not permitted to sign requests with signerName \"" + signer + "\"");
  }
  co_return Status();
}

}  // namespace capstan::admission
