// admission/certificate_signing.h: CertificateSigning: an update of certificatesigningrequests/status
// that changes status.certificate needs the verb "sign" on signers (certificates.k8s.io) named after the
// stored request's signerName or "<domain>/*"; otherwise 403 "user not permitted to sign requests with
// signerName \"<name>\"", as kube-apiserver 1.32. Status updates that leave the certificate alone (a
// condition from a signer that failed) are not checked. Stateless; thread-safe.
#pragma once

#include "admission/authorize.h"
#include "admission/plugin.h"

namespace capstan::admission {

class CertificateSigning : public Plugin {
 public:
  explicit CertificateSigning(AuthorizeFunc authorize) : authorize_(std::move(authorize)) {}
  std::string Name() const override { return "CertificateSigning"; }
  bool Handles(const std::string& op) const override { return op == "UPDATE"; }
  bool Validating() const override { return true; }
  Task<Status> Validate(const Attributes& a) override;

 private:
  AuthorizeFunc authorize_;
};

}  // namespace capstan::admission
