// admission/certificate_approval.h: CertificateApproval: an update of certificatesigningrequests/approval
// needs the verb "approve" on the synthetic resource signers (certificates.k8s.io) named after the
// request's signerName, or "<domain>/*" for every signer of its domain; the signerName is read from the
// stored object, so a request cannot pick another signer. Otherwise 403: "user not permitted to approve
// requests with signerName \"<name>\"", as kube-apiserver. Stateless; thread-safe.
#pragma once

#include "admission/authorize.h"
#include "admission/plugin.h"

namespace capstan::admission {

class CertificateApproval : public Plugin {
 public:
  explicit CertificateApproval(AuthorizeFunc authorize) : authorize_(std::move(authorize)) {}
  std::string Name() const override { return "CertificateApproval"; }
  bool Handles(const std::string& op) const override { return op == "UPDATE"; }
  bool Validating() const override { return true; }
  Task<Status> Validate(const Attributes& a) override;

 private:
  AuthorizeFunc authorize_;
};

// Whether the attributes are about certificatesigningrequests (certificates.k8s.io) with this subresource.
bool IsCsrSubresource(const Attributes& a, const char* subresource);
// spec.signerName of a CertificateSigningRequest ("" when absent).
std::string CsrSignerName(const registry::Object& csr);

}  // namespace capstan::admission
