#include "admission/certificate_subject_restriction.h"

#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <boost/json.hpp>
#include <memory>

#include "util/strings.h"

namespace capstan::admission {

namespace json = boost::json;

StatusOr<std::vector<std::string>> CsrOrganizations(std::string_view pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), BIO_free);
  if (!bio) return Status(500, "InternalError", "out of memory");
  std::unique_ptr<X509_REQ, decltype(&X509_REQ_free)> req(PEM_read_bio_X509_REQ(bio.get(), nullptr, nullptr, nullptr),
                                                         X509_REQ_free);
  if (!req) return Status(400, "BadRequest", "PEM block type must be CERTIFICATE REQUEST");
  std::vector<std::string> orgs;
  X509_NAME* subject = X509_REQ_get_subject_name(req.get());
  for (int i = -1; (i = X509_NAME_get_index_by_NID(subject, NID_organizationName, i)) >= 0;) {
    X509_NAME_ENTRY* e = X509_NAME_get_entry(subject, i);
    ASN1_STRING* s = X509_NAME_ENTRY_get_data(e);
    orgs.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)), static_cast<size_t>(ASN1_STRING_length(s)));
  }
  return orgs;
}

Task<Status> CertificateSubjectRestriction::Validate(const Attributes& a) {
  if (!a.resource || a.resource->group != "certificates.k8s.io" || a.resource->resource != "certificatesigningrequests" ||
      !a.subresource.empty() || !a.object) {
    co_return Status();
  }
  const json::value* spec = a.object->if_contains("spec");
  if (!spec || !spec->is_object()) co_return Status();
  const json::value* signer = spec->as_object().if_contains("signerName");
  if (!signer || !signer->is_string() || signer->as_string() != "kubernetes.io/kube-apiserver-client") co_return Status();
  const json::value* request = spec->as_object().if_contains("request");
  std::string pem;
  if (request && request->is_string()) Base64Decode(std::string(request->as_string()), pem);
  auto orgs = CsrOrganizations(pem);
  if (!orgs.ok()) co_return ForbiddenFor(a, "failed to parse CSR: " + orgs.status().message());
  for (const auto& o : *orgs) {
    if (o == "system:masters") {
      co_return ForbiddenFor(a, "use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed");
    }
  }
  co_return Status();
}

}  // namespace capstan::admission
