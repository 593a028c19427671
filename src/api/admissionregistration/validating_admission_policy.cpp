// api/admissionregistration/validating_admission_policy.cpp: admissionregistration.k8s.io/v1
// ValidatingAdmissionPolicies (with status: type-checking warnings and conditions) and their
// bindings: kube's defaults and validation (admission_validation.h), generation on spec changes, the
// printers (NAME VALIDATIONS PARAMKIND AGE; NAME POLICYNAME PARAMREF AGE) and the api-extensions
// category.
#include <algorithm>

#include "api/admissionregistration/admission_validation.h"
#include "api/admissionregistration/admissionregistration.h"
#include "api/common.h"
#include "api/networking/resource_util.h"
#include "api/networking/validators.h"
#include "apimachinery/labels.h"
#include "apimachinery/object_meta.h"

namespace capstan::api::admissionregistration {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

// The String() of kube's generated metav1.LabelSelector, which the binding printer shows.
std::string GoProtoSelectorString(const json::value& sel) {
  const json::object empty;
  const json::object& o = sel.is_object() ? sel.get_object() : empty;
  std::string out = "&LabelSelector{MatchLabels:map[string]string{";
  if (const json::object* labels = ObjectAt(o, "matchLabels")) {
    std::vector<std::pair<std::string, std::string>> kv;
    for (const auto& e : *labels) kv.emplace_back(std::string(e.key()), e.value().is_string() ? std::string(e.value().get_string()) : "");
    std::sort(kv.begin(), kv.end());
    for (const auto& [k, v] : kv) out += k + ": " + v + ",";
  }
  out += "},MatchExpressions:[]LabelSelectorRequirement{";
  if (const json::array* exprs = ArrayAt(o, "matchExpressions")) {
    for (const auto& e : *exprs) {
      const json::object& r = e.is_object() ? e.get_object() : empty;
      std::string values;
      for (const auto& v : catalog::Strings(r, "values")) values += (values.empty() ? "" : " ") + v;
      out += "LabelSelectorRequirement{Key:" + StringAt(r, "key") + ",Operator:" + StringAt(r, "operator") + ",Values:[" +
             values + "],},";
    }
  }
  return out + "},}";
}

class PolicyStrategy : public registry::DefaultStrategy {
 public:
  PolicyStrategy() : DefaultStrategy(Options{.namespaced = false, .has_status = true, .track_generation = true}) {}

  void PrepareForCreate(const registry::Context& ctx, Object& p) const override {
    DefaultPolicy(p);
    DefaultStrategy::PrepareForCreate(ctx, p);
  }
  void PrepareForUpdate(const registry::Context& ctx, Object& p, const Object& old) const override {
    DefaultPolicy(p);
    DefaultStrategy::PrepareForUpdate(ctx, p, old);
  }
  ErrorList Validate(const registry::Context&, const Object& p) const override { return ValidatePolicy(p, nullptr); }
  ErrorList ValidateUpdate(const registry::Context&, const Object& p, const Object& old) const override {
    return ValidatePolicy(p, &old);
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Validations", "integer", "", "Validations indicates the number of validation rules defined in this configuration", 0},
            {"ParamKind", "string", "", "ParamKind specifies the kind of resources used to parameterize this policy", 0},
            registry::AgeColumn()};
  }
  json::array TableCells(const Object& p) const override {
    const json::object* spec = ObjectAt(p, "spec");
    std::string param_kind = "<unset>";
    if (const json::object* pk = spec ? ObjectAt(*spec, "paramKind") : nullptr) {
      param_kind = StringAt(*pk, "apiVersion") + "/" + StringAt(*pk, "kind");
    }
    return {json::value(am::GetName(p)), spec ? CountAt(*spec, "validations") : 0, json::value(param_kind),
            json::value(AgeCell(p))};
  }
};

class BindingStrategy : public registry::DefaultStrategy {
 public:
  BindingStrategy() : DefaultStrategy(Options{.namespaced = false, .track_generation = true}) {}

  void PrepareForCreate(const registry::Context& ctx, Object& b) const override {
    DefaultBinding(b);
    DefaultStrategy::PrepareForCreate(ctx, b);
  }
  void PrepareForUpdate(const registry::Context& ctx, Object& b, const Object& old) const override {
    DefaultBinding(b);
    DefaultStrategy::PrepareForUpdate(ctx, b, old);
  }
  ErrorList Validate(const registry::Context&, const Object& b) const override { return ValidateBinding(b); }
  ErrorList ValidateUpdate(const registry::Context&, const Object& b, const Object&) const override {
    return ValidateBinding(b);
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"PolicyName", "string", "", "PolicyName indicates the policy definition which the policy binding binded to", 0},
            {"ParamRef", "string", "", "ParamRef indicates the param resource which sets the configration param", 0},
            registry::AgeColumn()};
  }
  json::array TableCells(const Object& b) const override {
    const json::object* spec = ObjectAt(b, "spec");
    std::string param = "<unset>";
    if (const json::object* pr = spec ? ObjectAt(*spec, "paramRef") : nullptr) {
      std::string name = StringAt(*pr, "name");
      std::string ns = StringAt(*pr, "namespace");
      if (!name.empty()) {
        param = (ns.empty() ? "*" : ns) + "/" + name;
      } else if (const json::value* sel = pr->if_contains("selector"); sel && !sel->is_null()) {
        param = GoProtoSelectorString(*sel);
      }
    }
    return {json::value(am::GetName(b)), json::value(spec ? StringAt(*spec, "policyName") : ""), json::value(param),
            json::value(AgeCell(b))};
  }
};

}  // namespace

std::vector<registry::RestResource> ValidatingAdmissionPolicies(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"admissionregistration.k8s.io", "v1", "validatingadmissionpolicies", "validatingadmissionpolicy",
                        "ValidatingAdmissionPolicy", false, {}, {"api-extensions"},
                        "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicy"});
  auto strategy = std::make_shared<PolicyStrategy>();
  spec.strategy = strategy;
  auto status = std::make_shared<catalog::StatusOnlyStrategy>(
      strategy, [](const Object& p, const Object&) { return ValidatePolicyStatus(p); });
  return catalog::MakeResourceWith(deps, std::move(spec), {{"status", status}});
}

std::vector<registry::RestResource> ValidatingAdmissionPolicyBindings(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"admissionregistration.k8s.io", "v1", "validatingadmissionpolicybindings",
                        "validatingadmissionpolicybinding", "ValidatingAdmissionPolicyBinding", false, {},
                        {"api-extensions"}, "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBinding"});
  spec.strategy = std::make_shared<BindingStrategy>();
  return registry::MakeResource(deps, std::move(spec));
}

}  // namespace capstan::api::admissionregistration
