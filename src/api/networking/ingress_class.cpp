// api/networking/ingress_class.cpp: networking.k8s.io/v1 IngressClasses (cluster-scoped): kube's
// SetDefaults_IngressClass (parameters.scope Cluster), ValidateIngressClass(Update) (controller a
// domain-prefixed path of at most 250 bytes and immutable, the parameters reference by scope),
// generation on spec changes, and the printer (NAME CONTROLLER PARAMETERS AGE).
#include "api/common.h"
#include "api/networking/networking.h"
#include "api/networking/validators.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/object_meta_validation.h"
#include "apimachinery/validation.h"

namespace capstan::api::networking {

namespace am = capstan::apimachinery;
namespace json = boost::json;
using catalog::AddProblems;

namespace {

ErrorList ValidateParameters(const json::object* params, const FieldPath& p) {
  ErrorList errs;
  if (!params) return errs;
  if (auto g = catalog::OptString(params, "apiGroup")) AddProblems(errs, p.Child("apiGroup"), *g, am::IsDNS1123Subdomain(*g));
  std::string kind = StringAt(*params, "kind");
  if (kind.empty()) {
    errs.push_back(RequiredError(p.Child("kind"), ""));
  } else {
    AddProblems(errs, p.Child("kind"), kind, am::IsPathSegmentName(kind));
  }
  std::string name = StringAt(*params, "name");
  if (name.empty()) {
    errs.push_back(RequiredError(p.Child("name"), ""));
  } else {
    AddProblems(errs, p.Child("name"), name, am::IsPathSegmentName(name));
  }
  auto scope = catalog::OptString(params, "scope");
  if (!scope) {
    errs.push_back(RequiredError(p.Child("scope"), ""));
    return errs;
  }
  auto ns = catalog::OptString(params, "namespace");
  if (*scope != "Namespace" && *scope != "Cluster") {
    errs.push_back(NotSupportedError(p.Child("scope"), *scope, {"Cluster", "Namespace"}));
  } else if (*scope == "Namespace") {
    if (!ns) {
      errs.push_back(RequiredError(p.Child("namespace"), "`parameters.scope` is set to 'Namespace'"));
    } else {
      AddProblems(errs, p.Child("namespace"), *ns, am::ValidateNamespaceName(*ns, false));
    }
  } else if (ns) {
    errs.push_back(ForbiddenError(p.Child("namespace"), "`parameters.scope` is set to 'Cluster'"));
  }
  return errs;
}

ErrorList ValidateIngressClass(const Object& ic) {
  ErrorList errs;
  static const json::object kEmpty;
  const json::object* spec = ObjectAt(ic, "spec");
  if (!spec) spec = &kEmpty;
  FieldPath p("spec");
  std::string controller = StringAt(*spec, "controller");
  if (controller.empty()) {
    errs.push_back(RequiredError(p.Child("controller"), ""));
  } else {
    if (controller.size() > 250) errs.push_back(TooLongError(p.Child("controller"), 250));
    ErrorList more = am::ValidateDomainPrefixedPath(controller, p.Child("controller"));
    errs.insert(errs.end(), more.begin(), more.end());
  }
  ErrorList more = ValidateParameters(ObjectAt(*spec, "parameters"), p.Child("parameters"));
  errs.insert(errs.end(), more.begin(), more.end());
  return errs;
}

class IngressClassStrategy : public registry::DefaultStrategy {
 public:
  IngressClassStrategy() : DefaultStrategy(Options{.namespaced = false, .has_status = false, .track_generation = true}) {}

  void PrepareForCreate(const registry::Context& ctx, Object& ic) const override {
    Default(ic);
    DefaultStrategy::PrepareForCreate(ctx, ic);
  }
  void PrepareForUpdate(const registry::Context& ctx, Object& ic, const Object& old) const override {
    Default(ic);
    DefaultStrategy::PrepareForUpdate(ctx, ic, old);
  }
  ErrorList Validate(const registry::Context&, const Object& ic) const override { return ValidateIngressClass(ic); }
  ErrorList ValidateUpdate(const registry::Context&, const Object& ic, const Object& old) const override {
    ErrorList errs;
    catalog::CheckImmutable(errs, PathAt(ic, {"spec", "controller"}), PathAt(old, {"spec", "controller"}),
                            FieldPath("spec").Child("controller"));
    ErrorList more = ValidateIngressClass(ic);
    errs.insert(errs.end(), more.begin(), more.end());
    return errs;
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Controller", "string", "", "Controller that is responsible for handling this class", 0},
            {"Parameters", "string", "", "A reference to a resource with additional parameters", 0},
            registry::AgeColumn()};
  }
  json::array TableCells(const Object& ic) const override {
    const json::object* spec = ObjectAt(ic, "spec");
    std::string parameters = "<none>";
    if (const json::object* params = spec ? ObjectAt(*spec, "parameters") : nullptr) {
      parameters = StringAt(*params, "kind");
      if (auto g = catalog::OptString(params, "apiGroup")) parameters += "." + *g;
      parameters += "/" + StringAt(*params, "name");
    }
    return {json::value(am::GetName(ic)), json::value(spec ? StringAt(*spec, "controller") : ""), json::value(parameters),
            json::value(AgeCell(ic))};
  }

 private:
  // kube's SetDefaults_IngressClass.
  static void Default(Object& ic) {
    json::value* spec = ic.if_contains("spec");
    if (!spec || !spec->is_object()) return;
    json::value* params = spec->get_object().if_contains("parameters");
    if (params && params->is_object()) catalog::DefaultField(params->get_object(), "scope", "Cluster");
  }
};

}  // namespace

std::vector<registry::RestResource> IngressClasses(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"networking.k8s.io", "v1", "ingressclasses", "ingressclass", "IngressClass", false, {}, {},
                        "io.k8s.api.networking.v1.IngressClass"});
  spec.strategy = std::make_shared<IngressClassStrategy>();
  return registry::MakeResource(deps, std::move(spec));
}

}  // namespace capstan::api::networking
