// admission/certificate_subject_restriction.h: CertificateSubjectRestriction: a
// CertificateSigningRequest for the kubernetes.io/kube-apiserver-client signer may not ask for the
// system:masters group (an O= of the request's subject): "use of kubernetes.io/kube-apiserver-client
// signer with system:masters group is not allowed"; a request that does not parse is refused with
// "failed to parse CSR: ...". 403 Forbidden, as kube. Stateless; thread-safe.
#pragma once

#include "admission/plugin.h"

namespace capstan::admission {

class CertificateSubjectRestriction : public Plugin {
 public:
  std::string Name() const override { return "CertificateSubjectRestriction"; }
  bool Handles(const std::string& op) const override { return op == "CREATE"; }
  bool Validating() const override { return true; }
  Task<Status> Validate(const Attributes& a) override;
};

// The subject organizations of a PEM "CERTIFICATE REQUEST", or the parse error.
StatusOr<std::vector<std::string>> CsrOrganizations(std::string_view pem);

}  // namespace capstan::admission
