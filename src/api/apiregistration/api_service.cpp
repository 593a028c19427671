// api/apiregistration/api_service.cpp: apiregistration.k8s.io/v1 APIServices (cluster-scoped, named
// "<version>.<group>"): kube-aggregator's strategy (a local APIService, without service, is Available
// from creation; updates keep the status; resourceVersion is required on update), its validation
// (name, group, version, priorities, service reference, caBundle and insecureSkipTLSVerify rules), the
// status subresource (conditions True/False/Unknown; spec, labels, annotations, finalizers and owner
// references kept from the stored object), and the printer (NAME SERVICE AVAILABLE AGE).
#include "api/apiregistration/apiregistration.h"
#include "api/common.h"
#include "api/networking/resource_util.h"
#include "api/networking/validators.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/time_util.h"
#include "apimachinery/validation.h"
#include "util/strings.h"

namespace capstan::api::apiregistration {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

ErrorList ValidateApiService(const Object& svc) {
  ErrorList errs;
  static const json::object kEmpty;
  const json::object* spec = ObjectAt(svc, "spec");
  if (!spec) spec = &kEmpty;
  std::string group = StringAt(*spec, "group");
  std::string version = StringAt(*spec, "version");
  std::string required = version + "." + group;
  std::string name(am::GetName(svc));
  if (am::IsPathSegmentName(name).empty() && name != required) {
    errs.push_back(InvalidError(FieldPath("metadata").Child("name"), name,
                                "must be `spec.version+\".\"+spec.group`: " + GoQuote(required)));
  }
  FieldPath p("spec");
  if (group.empty() && version != "v1") {
    errs.push_back(RequiredError(p.Child("group"), "only v1 may have an empty group and it better be legacy kube"));
  }
  if (!group.empty()) catalog::AddProblems(errs, p.Child("group"), group, am::IsDNS1123Subdomain(group));
  catalog::AddProblems(errs, p.Child("version"), version, am::IsDNS1035Label(version));
  int64_t group_priority = IntAt(*spec, "groupPriorityMinimum");
  if (group_priority <= 0 || group_priority > 20000) {
    errs.push_back(InvalidError(p.Child("groupPriorityMinimum"), group_priority, "must be positive and less than 20000"));
  }
  int64_t version_priority = IntAt(*spec, "versionPriority");
  if (version_priority <= 0 || version_priority > 1000) {
    errs.push_back(InvalidError(p.Child("versionPriority"), version_priority, "must be positive and less than 1000"));
  }
  std::string ca_bundle;
  Base64Decode(StringAt(*spec, "caBundle"), ca_bundle);
  bool insecure = BoolAt(*spec, "insecureSkipTLSVerify");
  const json::object* service = ObjectAt(*spec, "service");
  if (!service) {
    if (!ca_bundle.empty()) {
      errs.push_back(InvalidError(p.Child("caBundle"), std::to_string(ca_bundle.size()) + " bytes",
                                  "local APIServices may not have a caBundle"));
    }
    if (insecure) {
      errs.push_back(InvalidError(p.Child("insecureSkipTLSVerify"), insecure, "local APIServices may not have insecureSkipTLSVerify"));
    }
    return errs;
  }
  if (StringAt(*service, "namespace").empty()) errs.push_back(RequiredError(p.Child("service").Child("namespace"), ""));
  if (StringAt(*service, "name").empty()) errs.push_back(RequiredError(p.Child("service").Child("name"), ""));
  int64_t port = IntAt(*service, "port", 443);
  if (auto problems = catalog::PortNumProblems(port); !problems.empty()) {
    errs.push_back(InvalidError(p.Child("service").Child("port"), port, "port is not valid: " + Join(problems, ", ")));
  }
  if (insecure && !ca_bundle.empty()) {
    errs.push_back(InvalidError(p.Child("insecureSkipTLSVerify"), insecure, "may not be true if caBundle is present"));
  }
  return errs;
}

ErrorList ValidateStatus(const Object& svc) {
  ErrorList errs;
  const json::value* conditions = PathAt(svc, {"status", "conditions"});
  if (!conditions || !conditions->is_array()) return errs;
  for (size_t i = 0; i < conditions->get_array().size(); ++i) {
    const json::value& c = conditions->get_array()[i];
    std::string status = c.is_object() ? StringAt(c.get_object(), "status") : "";
    if (status != "True" && status != "False" && status != "Unknown") {
      errs.push_back(NotSupportedError(FieldPath("status").Child("conditions").Index(i).Child("status"), status,
                                       {"True", "False", "Unknown"}));
    }
  }
  return errs;
}

class ApiServiceStrategy : public registry::DefaultStrategy {
 public:
  ApiServiceStrategy()
      : DefaultStrategy(Options{.namespaced = false, .has_status = true, .name_validator = am::ValidatePathSegmentName}) {}

  bool AllowUnconditionalUpdate() const override { return false; }

  void PrepareForCreate(const registry::Context& ctx, Object& svc) const override {
    Default(svc);
    DefaultStrategy::PrepareForCreate(ctx, svc);
    // Local APIServices are available at once.
    const json::object* spec = ObjectAt(svc, "spec");
    if (!spec || !catalog::Has(spec, "service")) {
      json::object cond{{"type", "Available"},
                        {"status", "True"},
                        {"lastTransitionTime", am::FormatRfc3339(am::Timestamp::Now())},
                        {"reason", "Local"},
                        {"message", "Local APIServices are always available"}};
      svc["status"] = json::object{{"conditions", json::array{std::move(cond)}}};
    }
  }
  void PrepareForUpdate(const registry::Context& ctx, Object& svc, const Object& old) const override {
    Default(svc);
    DefaultStrategy::PrepareForUpdate(ctx, svc, old);
  }
  ErrorList Validate(const registry::Context&, const Object& svc) const override { return ValidateApiService(svc); }
  ErrorList ValidateUpdate(const registry::Context&, const Object& svc, const Object&) const override {
    return ValidateApiService(svc);
  }

  std::vector<std::string> SelectableFieldNames() const override { return {"metadata.name", "metadata.namespace"}; }
  am::FieldSet SelectableFields(const Object& svc) const override {
    return {{"metadata.name", std::string(am::GetName(svc))}, {"metadata.namespace", ""}};
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Service", "string", "", "The reference to the service that hosts this API endpoint.", 0},
            {"Available", "string", "", "Whether this service is available.", 0},
            registry::AgeColumn()};
  }
  json::array TableCells(const Object& svc) const override {
    std::string service = "Local";
    if (const json::value* s = PathAt(svc, {"spec", "service"}); s && s->is_object()) {
      service = StringAt(s->get_object(), "namespace") + "/" + StringAt(s->get_object(), "name");
    }
    std::string available = "Unknown";
    const json::value* conditions = PathAt(svc, {"status", "conditions"});
    if (conditions && conditions->is_array()) {
      for (const auto& c : conditions->get_array()) {
        if (!c.is_object() || StringAt(c.get_object(), "type") != "Available") continue;
        std::string status = StringAt(c.get_object(), "status");
        std::string reason = StringAt(c.get_object(), "reason");
        available = status == "True" || reason.empty() ? status : status + " (" + reason + ")";
        break;
      }
    }
    return {json::value(am::GetName(svc)), json::value(service), json::value(available), json::value(AgeCell(svc))};
  }

 private:
  // kube-aggregator's SetDefaults_ServiceReference (port 443).
  static void Default(Object& svc) {
    json::value* spec = svc.if_contains("spec");
    if (!spec || !spec->is_object()) return;
    json::value* service = spec->get_object().if_contains("service");
    if (service && service->is_object()) catalog::DefaultField(service->get_object(), "port", 443);
  }
};

}  // namespace

std::vector<registry::RestResource> ApiServices(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"apiregistration.k8s.io", "v1", "apiservices", "apiservice", "APIService", false, {},
                        {"api-extensions"}, "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService"});
  // Kept where kube's aggregator keeps them (its storage prefixes carry the group).
  spec.storage_resource = "apiregistration.k8s.io/apiservices";
  auto strategy = std::make_shared<ApiServiceStrategy>();
  spec.strategy = strategy;
  auto status = std::make_shared<catalog::StatusOnlyStrategy>(
      strategy, [](const Object& svc, const Object&) { return ValidateStatus(svc); },
      std::vector<std::string>{"labels", "annotations", "finalizers", "ownerReferences"});
  return catalog::MakeResourceWith(deps, std::move(spec), {{"status", status}});
}

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps) { return ApiServices(deps); }

}  // namespace capstan::api::apiregistration
