#include "api/certificates/csr_validation.h"

#include <openssl/evp.h>
#include <openssl/x509.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "api/common.h"
#include "api/networking/validators.h"
#include "apimachinery/validation.h"
#include "util/strings.h"

namespace capstan::api::certificates {

namespace am = capstan::apimachinery;
namespace json = boost::json;
using registry::Object;

namespace {

// One PEM block as Go's pem.Decode finds it.
struct PemBlock {
  std::string type;
  bool has_headers = false;
  std::string bytes;
};

// The first PEM block of `data` (and what follows it in `rest`); nullopt when there is none.
std::optional<PemBlock> DecodePem(std::string_view data, std::string_view* rest) {
  constexpr std::string_view kBegin = "-----BEGIN ";
  constexpr std::string_view kDashes = "-----";
  size_t pos = 0;
  while (true) {
    size_t begin = data.find(kBegin, pos);
    if (begin == std::string_view::npos) return std::nullopt;
    if (begin != 0 && data[begin - 1] != '\n') {
      pos = begin + 1;
      continue;
    }
    size_t type_start = begin + kBegin.size();
    size_t type_end = data.find(kDashes, type_start);
    size_t eol = data.find('\n', type_start);
    if (type_end == std::string_view::npos || (eol != std::string_view::npos && eol < type_end)) {
      pos = type_start;
      continue;
    }
    PemBlock block;
    block.type = std::string(data.substr(type_start, type_end - type_start));
    size_t body_start = type_end + kDashes.size();
    if (body_start < data.size() && data[body_start] == '\r') ++body_start;
    if (body_start < data.size() && data[body_start] == '\n') ++body_start;
    std::string end_marker = "-----END " + block.type + "-----";
    size_t end = data.find(end_marker, body_start);
    if (end == std::string_view::npos) {
      pos = type_start;
      continue;
    }
    std::string_view body = data.substr(body_start, end - body_start);
    // Headers: "Key: value" lines before a blank line.
    std::string b64;
    bool in_headers = true;
    for (const auto& line : Split(body, '\n')) {
      std::string_view l = TrimSpace(line);
      if (in_headers && l.find(':') != std::string_view::npos) {
        block.has_headers = true;
        continue;
      }
      in_headers = false;
      for (char c : l) {
        if (c != ' ' && c != '\t' && c != '\r') b64.push_back(c);
      }
    }
    if (!Base64Decode(b64, block.bytes)) {
      pos = type_start;
      continue;
    }
    if (rest) *rest = data.substr(end + end_marker.size());
    return block;
  }
}

std::string VerificationError(EVP_PKEY* key) {
  switch (EVP_PKEY_base_id(key)) {
    case EVP_PKEY_RSA:
      return "crypto/rsa: verification error";
    case EVP_PKEY_EC:
      return "x509: ECDSA verification failure";
    case EVP_PKEY_ED25519:
      return "x509: Ed25519 verification failure";
    default:
      return "x509: cannot verify signature: algorithm unimplemented";
  }
}

const std::vector<std::string>& ValidUsages() {
  static const std::vector<std::string> usages = [] {
    std::vector<std::string> u = {"signing",          "digital signature", "content commitment", "key encipherment",
                                  "key agreement",    "data encipherment", "cert sign",          "crl sign",
                                  "encipher only",    "decipher only",     "any",                "server auth",
                                  "client auth",      "code signing",      "email protection",   "s/mime",
                                  "ipsec end system", "ipsec tunnel",      "ipsec user",         "timestamping",
                                  "ocsp signing",     "microsoft sgc",     "netscape sgc"};
    std::sort(u.begin(), u.end());
    return u;
  }();
  return usages;
}

struct Options {
  CsrUpdatePath path;
  bool allow_both_approved_and_denied = false;
  bool allow_legacy_signer_name = false;
  bool allow_duplicate_condition_types = false;
  bool allow_empty_condition_type = false;
  bool allow_arbitrary_certificate = false;
  bool allow_unknown_usages = false;
  bool allow_duplicate_usages = false;
};

std::vector<const json::object*> Conditions(const Object& csr) {
  std::vector<const json::object*> out;
  const json::value* c = PathAt(csr, {"status", "conditions"});
  if (!c || !c->is_array()) return out;
  for (const auto& e : c->get_array()) {
    static const json::object kEmpty;
    out.push_back(e.is_object() ? &e.get_object() : &kEmpty);
  }
  return out;
}

std::vector<const json::object*> ConditionsOf(const Object& csr, std::string_view type) {
  std::vector<const json::object*> out;
  for (const auto* c : Conditions(csr)) {
    if (StringAt(*c, "type") == type) out.push_back(c);
  }
  return out;
}

std::vector<std::string> Usages(const Object& csr) {
  const json::object* spec = ObjectAt(csr, "spec");
  return spec ? catalog::Strings(*spec, "usages") : std::vector<std::string>{};
}

std::string Certificate(const Object& csr) {
  const json::value* c = PathAt(csr, {"status", "certificate"});
  std::string out;
  if (c && c->is_string()) Base64Decode(std::string_view(c->get_string()), out);
  return out;
}

Options OptionsFor(const Object& csr, const Object* old) {
  Options o;
  if (!old) return o;
  bool approved = !ConditionsOf(*old, "Approved").empty();
  bool denied = !ConditionsOf(*old, "Denied").empty();
  o.allow_both_approved_and_denied = approved && denied;
  o.allow_legacy_signer_name = PathAt(*old, {"spec", "signerName"}) &&
                               StringAt(*ObjectAt(*old, "spec"), "signerName") == "kubernetes.io/legacy-unknown";
  std::set<std::string> seen;
  for (const auto* c : Conditions(*old)) {
    std::string t = StringAt(*c, "type");
    if (!seen.insert(t).second) o.allow_duplicate_condition_types = true;
    if (t.empty()) o.allow_empty_condition_type = true;
  }
  std::string old_cert = Certificate(*old);
  o.allow_arbitrary_certificate = Certificate(csr) == old_cert || !CheckCertificateChain(old_cert).empty();
  std::set<std::string> usages;
  for (const auto& u : Usages(*old)) {
    if (!std::binary_search(ValidUsages().begin(), ValidUsages().end(), u)) o.allow_unknown_usages = true;
    if (!usages.insert(u).second) o.allow_duplicate_usages = true;
  }
  return o;
}

ErrorList ValidateConditions(const Object& csr, const Options& opts) {
  ErrorList errs;
  FieldPath p = FieldPath("status").Child("conditions");
  std::set<std::string> seen;
  bool approved = false;
  bool denied = false;
  auto conditions = Conditions(csr);
  for (size_t i = 0; i < conditions.size(); ++i) {
    const json::object& c = *conditions[i];
    FieldPath cp = p.Index(i);
    std::string type = StringAt(c, "type");
    std::string status = StringAt(c, "status");
    if (!opts.allow_empty_condition_type && type.empty()) errs.push_back(RequiredError(cp.Child("type"), ""));
    bool true_only = type == "Approved" || type == "Denied" || type == "Failed";
    if (status.empty()) {
      errs.push_back(RequiredError(cp.Child("status"), ""));
    } else if (true_only && status != "True") {
      errs.push_back(NotSupportedError(cp.Child("status"), status, {"True"}));
    } else if (!true_only && status != "True" && status != "False" && status != "Unknown") {
      errs.push_back(NotSupportedError(cp.Child("status"), status, {"False", "True", "Unknown"}));
    }
    if (!opts.allow_both_approved_and_denied) {
      if (type == "Approved") {
        approved = true;
        if (denied) errs.push_back(InvalidError(cp.Child("type"), type, "Approved and Denied conditions are mutually exclusive"));
      } else if (type == "Denied") {
        denied = true;
        if (approved) errs.push_back(InvalidError(cp.Child("type"), type, "Approved and Denied conditions are mutually exclusive"));
      }
    }
    if (!opts.allow_duplicate_condition_types && !seen.insert(type).second) {
      errs.push_back(DuplicateError(cp.Child("type"), type));
    }
  }
  return errs;
}

ErrorList ValidateCsr(const Object& csr, const Options& opts) {
  ErrorList errs;
  static const json::object kEmpty;
  const json::object* spec = ObjectAt(csr, "spec");
  if (!spec) spec = &kEmpty;
  FieldPath sp("spec");
  std::string request;
  Base64Decode(StringAt(*spec, "request"), request);
  if (std::string problem = CheckCertificateRequest(request); !problem.empty()) {
    errs.push_back(catalog::InvalidGo(sp.Child("request"), catalog::GoBytes(request), problem));
  }
  auto usages = catalog::Strings(*spec, "usages");
  if (usages.empty()) errs.push_back(RequiredError(sp.Child("usages"), ""));
  if (!opts.allow_unknown_usages) {
    for (size_t i = 0; i < usages.size(); ++i) {
      if (!std::binary_search(ValidUsages().begin(), ValidUsages().end(), usages[i])) {
        errs.push_back(NotSupportedError(sp.Child("usages").Index(i), usages[i], ValidUsages()));
      }
    }
  }
  if (!opts.allow_duplicate_usages) {
    std::set<std::string> seen;
    for (size_t i = 0; i < usages.size(); ++i) {
      if (!seen.insert(usages[i]).second) errs.push_back(DuplicateError(sp.Child("usages").Index(i), usages[i]));
    }
  }
  std::string signer = StringAt(*spec, "signerName");
  if (!opts.allow_legacy_signer_name && signer == "kubernetes.io/legacy-unknown") {
    errs.push_back(InvalidError(sp.Child("signerName"), signer, "the legacy signerName is not allowed via this API version"));
  } else {
    ErrorList more = ValidateSignerName(sp.Child("signerName"), signer);
    errs.insert(errs.end(), more.begin(), more.end());
  }
  if (auto seconds = catalog::OptInt(spec, "expirationSeconds"); seconds && *seconds < 600) {
    errs.push_back(InvalidError(sp.Child("expirationSeconds"), *seconds,
                                "may not specify a duration less than 600 seconds (10 minutes)"));
  }
  ErrorList more = ValidateConditions(csr, opts);
  errs.insert(errs.end(), more.begin(), more.end());
  if (!opts.allow_arbitrary_certificate) {
    if (std::string problem = CheckCertificateChain(Certificate(csr)); !problem.empty()) {
      errs.push_back(InvalidError(FieldPath("status").Child("certificate"), "<certificate data>", problem));
    }
  }
  return errs;
}

}  // namespace

std::string CheckCertificateRequest(std::string_view pem) {
  auto block = DecodePem(pem, nullptr);
  if (!block || block->type != "CERTIFICATE REQUEST") return "PEM block type must be CERTIFICATE REQUEST";
  const unsigned char* p = reinterpret_cast<const unsigned char*>(block->bytes.data());
  X509_REQ* req = d2i_X509_REQ(nullptr, &p, static_cast<long>(block->bytes.size()));
  if (!req) return "x509: malformed certificate request";
  std::string problem;
  if (p != reinterpret_cast<const unsigned char*>(block->bytes.data()) + block->bytes.size()) {
    problem = "x509: trailing data";
  } else if (EVP_PKEY* key = X509_REQ_get0_pubkey(req); !key) {
    problem = "x509: unsupported public key algorithm";
  } else if (X509_REQ_verify(req, key) != 1) {
    problem = VerificationError(key);
  }
  X509_REQ_free(req);
  return problem;
}

std::string CheckCertificateChain(std::string_view pem) {
  if (pem.empty()) return "";
  int blocks = 0;
  std::string_view rest = pem;
  while (true) {
    std::string_view next;
    auto block = DecodePem(rest, &next);
    if (!block) break;
    if (block->type != "CERTIFICATE") return "only CERTIFICATE PEM blocks are allowed, found " + GoQuote(block->type);
    if (block->has_headers) return "no PEM block headers are permitted";
    ++blocks;
    const unsigned char* p = reinterpret_cast<const unsigned char*>(block->bytes.data());
    const unsigned char* end = p + block->bytes.size();
    int certs = 0;
    while (p < end) {
      X509* cert = d2i_X509(nullptr, &p, static_cast<long>(end - p));
      if (!cert) return "x509: malformed certificate";
      X509_free(cert);
      ++certs;
    }
    if (certs == 0) return "found CERTIFICATE PEM block containing 0 certificates";
    rest = next;
  }
  if (blocks == 0) return "must contain at least one CERTIFICATE PEM block";
  return "";
}

ErrorList ValidateSignerName(const FieldPath& p, std::string_view signer) {
  ErrorList errs;
  if (signer.empty()) {
    errs.push_back(RequiredError(p, ""));
    return errs;
  }
  auto segments = Split(signer, '/');
  if (segments.size() != 2) {
    errs.push_back(InvalidError(p, signer, "must be a fully qualified domain and path of the form 'example.com/signer-name'"));
    return errs;
  }
  if (segments[0].size() > 253) errs.push_back(TooLongError(p, 253));
  auto domain_labels = Split(segments[0], '.');
  for (const auto& label : domain_labels) {
    auto problems = am::IsDNS1123Label(label);
    if (problems.empty()) continue;
    for (const auto& m : problems) errs.push_back(InvalidError(p, segments[0], "validating label " + GoQuote(label) + ": " + m));
    break;
  }
  if (domain_labels.size() < 2) {
    errs.push_back(InvalidError(p, segments[0], "should be a domain with at least two segments separated by dots"));
  }
  for (const auto& label : Split(segments[1], '.')) {
    auto problems = am::IsDNS1123Subdomain(label);
    if (problems.empty()) continue;
    for (const auto& m : problems) errs.push_back(InvalidError(p, segments[1], "validating label " + GoQuote(label) + ": " + m));
    break;
  }
  constexpr int kMaxSignerName = 253 + (253 + 63 + 1) + 1;
  if (signer.size() > static_cast<size_t>(kMaxSignerName)) errs.push_back(TooLongError(p, kMaxSignerName));
  return errs;
}

ErrorList ValidateCsrCreate(const Object& csr) { return ValidateCsr(csr, OptionsFor(csr, nullptr)); }

ErrorList ValidateCsrUpdate(const Object& csr, const Object& old, CsrUpdatePath path) {
  Options opts = OptionsFor(csr, &old);
  opts.path = path;
  ErrorList errs = ValidateCsr(csr, opts);
  FieldPath cp = FieldPath("status").Child("conditions");
  for (const char* t : {"Approved", "Denied", "Failed"}) {
    if (ConditionsOf(csr, t).size() < ConditionsOf(old, t).size()) {
      errs.push_back(ForbiddenError(cp, "updates may not remove a condition of type " + GoQuote(t)));
    }
  }
  if (!path.allow_setting_approval_conditions) {
    for (const char* t : {"Approved", "Denied"}) {
      auto now = ConditionsOf(csr, t);
      auto before = ConditionsOf(old, t);
      if (now.size() > before.size()) {
        errs.push_back(ForbiddenError(cp, "updates may not add a condition of type " + GoQuote(t)));
      } else if (now.size() == before.size()) {
        bool same = true;
        for (size_t i = 0; i < now.size(); ++i) same = same && *now[i] == *before[i];
        if (!same) errs.push_back(ForbiddenError(cp, "updates may not modify a condition of type " + GoQuote(t) + "\n"));
      }
    }
  }
  std::string cert = Certificate(csr);
  std::string old_cert = Certificate(old);
  if (cert != old_cert) {
    if (!path.allow_setting_certificate) {
      errs.push_back(ForbiddenError(FieldPath("status").Child("certificate"), "updates may not set certificate content"));
    } else if (!old_cert.empty()) {
      errs.push_back(
          ForbiddenError(FieldPath("status").Child("certificate"), "updates may not modify existing certificate content"));
    }
  }
  return errs;
}

}  // namespace capstan::api::certificates
