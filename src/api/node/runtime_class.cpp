// api/node/runtime_class.cpp: node.k8s.io/v1 RuntimeClasses (cluster-scoped): kube's
// ValidateRuntimeClass(Update) (handler a DNS label and immutable, overhead quantities, scheduling node
// selector labels and tolerations), overhead quantities in kube's canonical form, and the printer
// (NAME HANDLER AGE).
#include <set>
#include <tuple>

#include "api/common.h"
#include "api/networking/validators.h"
#include "api/node/node.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/object_meta_validation.h"
#include "apimachinery/quantity.h"
#include "apimachinery/validation.h"
#include "util/strings.h"

namespace capstan::api::node {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

ErrorList ValidateOverhead(const json::object& overhead, const FieldPath& p) {
  ErrorList errs;
  const json::object* fixed = ObjectAt(overhead, "podFixed");
  if (!fixed) return errs;
  FieldPath lp = p.Child("limits");
  for (const auto& kv : *fixed) {
    std::string name(kv.key());
    FieldPath rp = lp.Key(name);
    catalog::AddProblems(errs, rp, name, am::IsQualifiedName(name));
    auto q = am::ParseQuantityJson(kv.value());
    if (!q.ok()) {
      errs.push_back(InvalidError(rp, kv.value(), std::string(am::kQuantityFormatError)));
    } else if (q->Sign() < 0) {
      errs.push_back(InvalidError(rp, q->String(), std::string(am::kIsNegativeErrorMsg)));
    }
  }
  return errs;
}

// kube's ValidateTolerations, then RuntimeClass's own uniqueness rule (kube nests the path twice).
ErrorList ValidateTolerations(const json::array* tolerations, const FieldPath& outer) {
  ErrorList errs;
  if (!tolerations) return errs;
  FieldPath p = outer.Child("tolerations");
  std::set<std::tuple<std::string, std::string, std::string, std::string>> seen;
  for (size_t i = 0; i < tolerations->size(); ++i) {
    if (!(*tolerations)[i].is_object()) continue;
    const json::object& t = (*tolerations)[i].get_object();
    FieldPath ip = p.Index(i);
    std::string key = StringAt(t, "key");
    std::string op = StringAt(t, "operator");
    std::string value = StringAt(t, "value");
    std::string effect = StringAt(t, "effect");
    if (!key.empty()) {
      ErrorList more = am::ValidateLabelName(key, ip.Child("key"));
      errs.insert(errs.end(), more.begin(), more.end());
    }
    if (key.empty() && op != "Exists") {
      errs.push_back(InvalidError(ip.Child("operator"), op,
                                  "operator must be Exists when `key` is empty, which means \"match all values and all keys\""));
    }
    if (catalog::Has(&t, "tolerationSeconds") && effect != "NoExecute") {
      errs.push_back(InvalidError(ip.Child("effect"), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    if (op == "Equal" || op.empty()) {
      if (auto problems = am::IsValidLabelValue(value); !problems.empty()) {
        errs.push_back(InvalidError(ip.Child("operator"), value, Join(problems, ";")));
      }
    } else if (op == "Exists") {
      if (!value.empty()) {
        errs.push_back(catalog::InvalidGo(ip.Child("operator"), json::serialize((*tolerations)[i]),
                                          "value must be empty when `operator` is 'Exists'"));
      }
    } else {
      errs.push_back(NotSupportedError(ip.Child("operator"), op, {"Equal", "Exists"}));
    }
    if (!effect.empty() && effect != "NoSchedule" && effect != "PreferNoSchedule" && effect != "NoExecute") {
      errs.push_back(NotSupportedError(ip.Child("effect"), effect, {"NoSchedule", "PreferNoSchedule", "NoExecute"}));
    }
  }
  for (size_t i = 0; i < tolerations->size(); ++i) {
    if (!(*tolerations)[i].is_object()) continue;
    const json::object& t = (*tolerations)[i].get_object();
    auto k = std::make_tuple(StringAt(t, "key"), StringAt(t, "operator"), StringAt(t, "value"), StringAt(t, "effect"));
    if (!seen.insert(k).second) errs.push_back(DuplicateError(p.Index(i), (*tolerations)[i]));
  }
  return errs;
}

ErrorList ValidateRuntimeClass(const Object& rc) {
  ErrorList errs;
  std::string handler = StringAt(rc, "handler");
  catalog::AddProblems(errs, FieldPath("handler"), handler, am::NameIsDNSLabel(handler, false));
  if (const json::object* overhead = ObjectAt(rc, "overhead")) {
    ErrorList more = ValidateOverhead(*overhead, FieldPath("overhead"));
    errs.insert(errs.end(), more.begin(), more.end());
  }
  if (const json::object* scheduling = ObjectAt(rc, "scheduling")) {
    FieldPath sp("scheduling");
    if (const json::object* selector = ObjectAt(*scheduling, "nodeSelector")) {
      am::StringPairs labels;
      for (const auto& kv : *selector) {
        labels.emplace_back(std::string(kv.key()), kv.value().is_string() ? std::string(kv.value().get_string()) : "");
      }
      ErrorList more = am::ValidateLabels(labels, sp.Child("nodeSelector"));
      errs.insert(errs.end(), more.begin(), more.end());
    }
    ErrorList more = ValidateTolerations(ArrayAt(*scheduling, "tolerations"), sp.Child("tolerations"));
    errs.insert(errs.end(), more.begin(), more.end());
  }
  return errs;
}

class RuntimeClassStrategy : public registry::DefaultStrategy {
 public:
  RuntimeClassStrategy() : DefaultStrategy(Options{.namespaced = false}) {}

  void PrepareForCreate(const registry::Context&, Object& rc) const override { CanonicalizeOverhead(rc); }
  void PrepareForUpdate(const registry::Context&, Object& rc, const Object&) const override { CanonicalizeOverhead(rc); }
  ErrorList Validate(const registry::Context&, const Object& rc) const override { return ValidateRuntimeClass(rc); }
  ErrorList ValidateUpdate(const registry::Context&, const Object& rc, const Object& old) const override {
    ErrorList errs;
    catalog::CheckImmutable(errs, rc.if_contains("handler"), old.if_contains("handler"), FieldPath("handler"));
    return errs;
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    // kube looks the Handler description up in ObjectMeta's documentation, where there is none.
    return {registry::NameColumn(), {"Handler", "string", "", "", 0}, registry::AgeColumn()};
  }
  json::array TableCells(const Object& rc) const override {
    return {json::value(am::GetName(rc)), json::value(StringAt(rc, "handler")), json::value(AgeCell(rc))};
  }

 private:
  static void CanonicalizeOverhead(Object& rc) {
    json::value* fixed = nullptr;
    if (json::value* overhead = rc.if_contains("overhead"); overhead && overhead->is_object()) {
      fixed = overhead->get_object().if_contains("podFixed");
    }
    if (!fixed || !fixed->is_object()) return;
    for (auto& kv : fixed->get_object()) {
      auto q = am::ParseQuantityJson(kv.value());
      if (q.ok()) kv.value() = q->String();
    }
  }
};

}  // namespace

std::vector<registry::RestResource> RuntimeClasses(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"node.k8s.io", "v1", "runtimeclasses", "runtimeclass", "RuntimeClass", false, {}, {},
                        "io.k8s.api.node.v1.RuntimeClass"});
  spec.strategy = std::make_shared<RuntimeClassStrategy>();
  return registry::MakeResource(deps, std::move(spec));
}

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps) { return RuntimeClasses(deps); }

}  // namespace capstan::api::node
