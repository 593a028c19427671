// api/certificates/csr.cpp: certificates.k8s.io/v1 CertificateSigningRequests (cluster-scoped, any name):
// kube's strategies. Create records the requester (username, uid, groups, extra from the request's
// user) and starts with an empty status; updates of the main resource change only metadata; /status
// keeps the stored spec and the Approved/Denied conditions and may set the certificate once; /approval
// keeps the stored spec, certificate and Failed conditions and may add Approved or Denied. Condition
// statuses default to True and their times are filled in. Validation in csr_validation.h. Field
// selector spec.signerName; printer NAME AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION.
#include "api/certificates/certificates.h"
#include "api/certificates/certificates_descriptions.h"
#include "api/certificates/csr_validation.h"
#include "api/common.h"
#include "api/networking/resource_util.h"
#include "api/networking/validators.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/time_util.h"

namespace capstan::api::certificates {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

json::array* ConditionsField(Object& csr) {
  json::value* status = csr.if_contains("status");
  if (!status || !status->is_object()) return nullptr;
  json::value* c = status->get_object().if_contains("conditions");
  return c && c->is_array() ? &c->get_array() : nullptr;
}

// kube's SetDefaults_CertificateSigningRequestCondition (status True) and populateConditionTimestamps.
void DefaultConditions(Object& csr, const Object& old) {
  json::array* conditions = ConditionsField(csr);
  if (!conditions) return;
  std::string now = am::FormatRfc3339(am::Timestamp::Now());
  const json::value* old_conditions = PathAt(old, {"status", "conditions"});
  for (auto& c : *conditions) {
    if (!c.is_object()) continue;
    json::object& cond = c.get_object();
    if (StringAt(cond, "status").empty()) cond["status"] = "True";
    if (StringAt(cond, "lastUpdateTime").empty()) cond["lastUpdateTime"] = now;
    if (StringAt(cond, "lastTransitionTime").empty()) {
      std::string last = now;
      if (old_conditions && old_conditions->is_array()) {
        for (const auto& o : old_conditions->get_array()) {
          if (!o.is_object()) continue;
          const json::object& oc = o.get_object();
          if (StringAt(oc, "type") == StringAt(cond, "type") && StringAt(oc, "status") == StringAt(cond, "status") &&
              !StringAt(oc, "lastTransitionTime").empty()) {
            last = StringAt(oc, "lastTransitionTime");
            break;
          }
        }
      }
      cond["lastTransitionTime"] = last;
    }
  }
}

// kube's preserveConditionInstances: the stored conditions of `type` replace the new ones when there
// are as many of them (a different count is left for validation to refuse).
void PreserveConditions(Object& csr, const Object& old, std::string_view type) {
  json::array* conditions = ConditionsField(csr);
  const json::value* old_conditions = PathAt(old, {"status", "conditions"});
  std::vector<const json::value*> before;
  if (old_conditions && old_conditions->is_array()) {
    for (const auto& c : old_conditions->get_array()) {
      if (c.is_object() && StringAt(c.get_object(), "type") == type) before.push_back(&c);
    }
  }
  std::vector<json::value*> now;
  if (conditions) {
    for (auto& c : *conditions) {
      if (c.is_object() && StringAt(c.get_object(), "type") == type) now.push_back(&c);
    }
  }
  if (before.size() != now.size()) return;
  for (size_t i = 0; i < now.size(); ++i) *now[i] = *before[i];
}

void KeepSpec(Object& csr, const Object& old) {
  if (const json::value* spec = old.if_contains("spec")) {
    csr["spec"] = *spec;
  } else {
    csr.erase("spec");
  }
}

// kube's extractCSRStatus.
std::string ConditionCell(const Object& csr) {
  bool approved = false, denied = false, failed = false;
  const json::value* conditions = PathAt(csr, {"status", "conditions"});
  if (conditions && conditions->is_array()) {
    for (const auto& c : conditions->get_array()) {
      std::string type = c.is_object() ? StringAt(c.get_object(), "type") : "";
      approved = approved || type == "Approved";
      denied = denied || type == "Denied";
      failed = failed || type == "Failed";
    }
  }
  std::string status = denied ? "Denied" : (approved ? "Approved" : "Pending");
  if (failed) status += ",Failed";
  const json::value* cert = PathAt(csr, {"status", "certificate"});
  if (cert && cert->is_string() && !cert->get_string().empty()) status += ",Issued";
  return status;
}

class CsrStrategy : public registry::DefaultStrategy {
 public:
  CsrStrategy() : DefaultStrategy(Options{.namespaced = false, .name_validator = NoNameRule}) {}

  void PrepareForCreate(const registry::Context& ctx, Object& csr) const override {
    json::object& spec = catalog::Child(csr, "spec");
    for (const char* k : {"username", "uid", "groups", "extra"}) spec.erase(k);
    if (ctx.user) {
      if (!ctx.user->name.empty()) spec["username"] = ctx.user->name;
      if (!ctx.user->uid.empty()) spec["uid"] = ctx.user->uid;
      if (!ctx.user->groups.empty()) {
        json::array groups;
        for (const auto& g : ctx.user->groups) groups.push_back(json::value(g));
        spec["groups"] = std::move(groups);
      }
      if (!ctx.user->extra.empty()) {
        json::object extra;
        for (const auto& [k, values] : ctx.user->extra) {
          json::array a;
          for (const auto& v : values) a.push_back(json::value(v));
          extra[k] = std::move(a);
        }
        spec["extra"] = std::move(extra);
      }
    }
    // Users cannot create pre-approved requests.
    csr["status"] = json::object{{"conditions", json::array()}};
  }
  void PrepareForUpdate(const registry::Context&, Object& csr, const Object& old) const override {
    KeepSpec(csr, old);
    if (const json::value* status = old.if_contains("status")) {
      csr["status"] = *status;
    } else {
      csr.erase("status");
    }
  }
  ErrorList Validate(const registry::Context&, const Object& csr) const override { return ValidateCsrCreate(csr); }
  ErrorList ValidateUpdate(const registry::Context&, const Object& csr, const Object& old) const override {
    return ValidateCsrUpdate(csr, old, {});
  }

  std::string UnsupportedFieldLabelMessage(std::string_view f) const override { return am::FieldLabelNotSupportedError(f); }
  std::vector<std::string> SelectableFieldNames() const override { return {"metadata.name", "spec.signerName"}; }
  am::FieldSet SelectableFields(const Object& csr) const override {
    am::FieldSet f = DefaultStrategy::SelectableFields(csr);
    const json::value* signer = PathAt(csr, {"spec", "signerName"});
    f["spec.signerName"] = signer && signer->is_string() ? std::string(signer->get_string()) : "";
    return f;
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            registry::AgeColumn(),
            {"SignerName", "string", "", kSignerName, 0},
            {"Requestor", "string", "", kRequest, 0},
            {"RequestedDuration", "string", "", kExpirationSeconds, 0},
            {"Condition", "string", "", kConditions, 0}};
  }
  json::array TableCells(const Object& csr) const override {
    const json::object* spec = ObjectAt(csr, "spec");
    std::string signer = catalog::OptString(spec, "signerName").value_or("");
    if (signer.empty()) signer = "<none>";
    std::string duration = "<none>";
    if (auto seconds = catalog::OptInt(spec, "expirationSeconds")) {
      duration = registry::HumanDuration(std::chrono::seconds(*seconds));
    }
    return {json::value(am::GetName(csr)), json::value(AgeCell(csr)), json::value(signer),
            json::value(catalog::OptString(spec, "username").value_or("")), json::value(duration),
            json::value(ConditionCell(csr))};
  }

 private:
  // kube does not care what certificate requests are called.
  static apimachinery::Problems NoNameRule(std::string_view, bool) { return {}; }
};

// /status and /approval: the stored spec stays; each keeps what the other owns.
class CsrSubresourceStrategy : public catalog::StatusOnlyStrategy {
 public:
  CsrSubresourceStrategy(std::shared_ptr<const registry::Strategy> main, CsrUpdatePath path)
      : StatusOnlyStrategy(main, nullptr), path_(path) {}
  void PrepareForUpdate(const registry::Context& ctx, Object& csr, const Object& old) const override {
    StatusOnlyStrategy::PrepareForUpdate(ctx, csr, old);
    if (path_.allow_setting_approval_conditions) {
      // /approval: the certificate and Failed conditions are the signer's.
      json::object& status = catalog::Child(csr, "status");
      if (const json::value* cert = PathAt(old, {"status", "certificate"})) {
        status["certificate"] = *cert;
      } else {
        status.erase("certificate");
      }
      PreserveConditions(csr, old, "Failed");
    } else {
      PreserveConditions(csr, old, "Approved");
      PreserveConditions(csr, old, "Denied");
    }
    DefaultConditions(csr, old);
  }
  ErrorList ValidateUpdate(const registry::Context&, const Object& csr, const Object& old) const override {
    return ValidateCsrUpdate(csr, old, path_);
  }

 private:
  CsrUpdatePath path_;
};

}  // namespace

std::vector<registry::RestResource> CertificateSigningRequests(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"certificates.k8s.io", "v1", "certificatesigningrequests", "certificatesigningrequest",
                        "CertificateSigningRequest", false, {"csr"}, {},
                        "io.k8s.api.certificates.v1.CertificateSigningRequest"});
  auto strategy = std::make_shared<CsrStrategy>();
  spec.strategy = strategy;
  CsrUpdatePath status_path;
  status_path.allow_setting_certificate = true;
  CsrUpdatePath approval_path;
  approval_path.allow_setting_approval_conditions = true;
  return catalog::MakeResourceWith(deps, std::move(spec),
                                   {{"status", std::make_shared<CsrSubresourceStrategy>(strategy, status_path)},
                                    {"approval", std::make_shared<CsrSubresourceStrategy>(strategy, approval_path)}});
}

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps) { return CertificateSigningRequests(deps); }

}  // namespace capstan::api::certificates
