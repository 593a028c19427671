// api/certificates/csr_validation.h: kube's CertificateSigningRequest validation for certificates.k8s.io/v1
// (pkg/apis/certificates/validation): the PKCS#10 request (the first PEM block must be a CERTIFICATE
// REQUEST whose signature verifies), usages (known, unique, at least one), signerName (domain/path
// form, no legacy-unknown), expirationSeconds (at least 600), status conditions (types, True-only
// Approved/Denied/Failed, Approved and Denied exclusive, no duplicates), status.certificate (CERTIFICATE
// PEM blocks that parse), and the update rules of the main resource and its status and approval
// subresources (conditions are never removed; only /approval changes Approved/Denied; only /status sets
// the certificate, once). Compatibility allowances follow kube: a stored object that already breaks a
// rule may keep breaking it.
//
// Objects are the JSON form (spec.request and status.certificate base64). Pure functions; thread-safe.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <string_view>

#include "apimachinery/field_errors.h"

namespace capstan::api::certificates {

// What an update path may do (kube's certificateValidationOptions, subresource part).
struct CsrUpdatePath {
  bool allow_setting_approval_conditions = false;  // /approval
  bool allow_setting_certificate = false;          // /status
};

ErrorList ValidateCsrCreate(const boost::json::object& csr);
ErrorList ValidateCsrUpdate(const boost::json::object& csr, const boost::json::object& old, CsrUpdatePath path);

// kube's ValidateSignerName.
ErrorList ValidateSignerName(const FieldPath& p, std::string_view signer);

// The PEM request parses and its signature verifies: "" when fine, else kube's (Go's) error text.
std::string CheckCertificateRequest(std::string_view pem);
// kube's validateCertificate for status.certificate: "" when fine, else the error text.
std::string CheckCertificateChain(std::string_view pem);

}  // namespace capstan::api::certificates
