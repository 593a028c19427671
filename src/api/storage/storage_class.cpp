// api/storage/storage_class.cpp: storage.k8s.io/v1 StorageClasses (cluster-scoped): kube's defaults
// (reclaimPolicy Delete, volumeBindingMode Immediate), ValidateStorageClass(Update) (provisioner,
// parameters' count and size, reclaim policy, binding mode, allowed topologies; provisioner, parameters
// and reclaim policy may not change, the binding mode is immutable), and the printer (NAME with
// "(default)" for the default class, PROVISIONER RECLAIMPOLICY VOLUMEBINDINGMODE ALLOWVOLUMEEXPANSION AGE).
#include <map>
#include <set>

#include "api/common.h"
#include "api/networking/validators.h"
#include "api/storage/storage.h"
#include "api/storage/storage_descriptions.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/object_meta_validation.h"
#include "apimachinery/validation.h"
#include "util/strings.h"

namespace capstan::api::storage_api {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

constexpr int kMaxParameters = 512;
constexpr int kMaxParameterBytes = 256 * 1024;

// kube's ValidateTopologySelectorTerm over allowedTopologies, with the duplicate-term check.
ErrorList ValidateAllowedTopologies(const json::array* terms, const FieldPath& p) {
  ErrorList errs;
  if (!terms) return errs;
  std::vector<std::map<std::string, std::set<std::string>>> seen;
  for (size_t i = 0; i < terms->size(); ++i) {
    FieldPath tp = p.Index(i);
    std::map<std::string, std::set<std::string>> expr_map;
    const json::array* exprs = (*terms)[i].is_object() ? ArrayAt((*terms)[i].get_object(), "matchLabelExpressions") : nullptr;
    if (exprs) {
      for (size_t j = 0; j < exprs->size(); ++j) {
        if (!(*exprs)[j].is_object()) continue;
        const json::object& req = (*exprs)[j].get_object();
        FieldPath ep = tp.Child("matchLabelExpressions").Index(j);
        auto values = catalog::Strings(req, "values");
        std::set<std::string> value_set;
        if (values.empty()) errs.push_back(RequiredError(ep.Child("values"), ""));
        for (size_t k = 0; k < values.size(); ++k) {
          if (!value_set.insert(values[k]).second) errs.push_back(DuplicateError(ep.Child("values").Index(k), values[k]));
        }
        std::string key = StringAt(req, "key");
        ErrorList more = am::ValidateLabelName(key, ep.Child("key"));
        errs.insert(errs.end(), more.begin(), more.end());
        if (expr_map.count(key)) errs.push_back(DuplicateError(ep.Child("key"), key));
        expr_map[key] = std::move(value_set);
      }
    }
    for (const auto& prev : seen) {
      if (prev == expr_map) errs.push_back(DuplicateError(tp.Child("matchLabelExpressions"), ""));
    }
    seen.push_back(std::move(expr_map));
  }
  return errs;
}

ErrorList ValidateStorageClass(const Object& sc) {
  ErrorList errs;
  std::string provisioner = StringAt(sc, "provisioner");
  if (provisioner.empty()) {
    errs.push_back(RequiredError(FieldPath("provisioner"), ""));
  } else {
    catalog::AddProblems(errs, FieldPath("provisioner"), provisioner, am::IsQualifiedName(ToLower(provisioner)));
  }
  if (const json::object* params = ObjectAt(sc, "parameters")) {
    if (params->size() > kMaxParameters) {
      errs.push_back(TooLongError(FieldPath("parameters"), kMaxParameters));
    } else {
      size_t total = 0;
      for (const auto& kv : *params) {
        if (kv.key().empty()) errs.push_back(InvalidError(FieldPath("parameters"), "", "field can not be empty."));
        total += kv.key().size() + (kv.value().is_string() ? kv.value().get_string().size() : 0);
      }
      if (total > kMaxParameterBytes) errs.push_back(TooLongError(FieldPath("parameters"), kMaxParameterBytes));
    }
  }
  if (auto policy = catalog::OptString(&sc, "reclaimPolicy"); policy && !policy->empty() && *policy != "Delete" &&
                                                             *policy != "Retain") {
    errs.push_back(NotSupportedError(FieldPath("reclaimPolicy"), *policy, {"Delete", "Retain"}));
  }
  auto mode = catalog::OptString(&sc, "volumeBindingMode");
  if (!mode) {
    errs.push_back(RequiredError(FieldPath("volumeBindingMode"), ""));
  } else if (*mode != "Immediate" && *mode != "WaitForFirstConsumer") {
    errs.push_back(NotSupportedError(FieldPath("volumeBindingMode"), *mode, {"Immediate", "WaitForFirstConsumer"}));
  }
  ErrorList more = ValidateAllowedTopologies(ArrayAt(sc, "allowedTopologies"), FieldPath("allowedTopologies"));
  errs.insert(errs.end(), more.begin(), more.end());
  return errs;
}

bool IsDefaultClass(const Object& sc) {
  for (const auto& [k, v] : am::GetAnnotations(sc)) {
    if ((k == "storageclass.kubernetes.io/is-default-class" || k == "storageclass.beta.kubernetes.io/is-default-class") &&
        v == "true") {
      return true;
    }
  }
  return false;
}

class StorageClassStrategy : public registry::DefaultStrategy {
 public:
  StorageClassStrategy() : DefaultStrategy(Options{.namespaced = false}) {}

  void PrepareForCreate(const registry::Context&, Object& sc) const override { Default(sc); }
  void PrepareForUpdate(const registry::Context&, Object& sc, const Object&) const override { Default(sc); }
  ErrorList Validate(const registry::Context&, const Object& sc) const override { return ValidateStorageClass(sc); }
  ErrorList ValidateUpdate(const registry::Context&, const Object& sc, const Object& old) const override {
    ErrorList errs = ValidateStorageClass(sc);
    if (!catalog::SameValue(sc.if_contains("parameters"), old.if_contains("parameters"), true)) {
      errs.push_back(ForbiddenError(FieldPath("parameters"), "updates to parameters are forbidden."));
    }
    if (StringAt(sc, "provisioner") != StringAt(old, "provisioner")) {
      errs.push_back(ForbiddenError(FieldPath("provisioner"), "updates to provisioner are forbidden."));
    }
    if (StringAt(sc, "reclaimPolicy") != StringAt(old, "reclaimPolicy")) {
      errs.push_back(ForbiddenError(FieldPath("reclaimPolicy"), "updates to reclaimPolicy are forbidden."));
    }
    catalog::CheckImmutable(errs, sc.if_contains("volumeBindingMode"), old.if_contains("volumeBindingMode"),
                            FieldPath("volumeBindingMode"));
    return errs;
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Provisioner", "string", "", kProvisioner, 0},
            {"ReclaimPolicy", "string", "", kReclaimPolicy, 0},
            {"VolumeBindingMode", "string", "", kVolumeBindingMode, 0},
            {"AllowVolumeExpansion", "string", "", kAllowVolumeExpansion, 0},
            registry::AgeColumn()};
  }
  json::array TableCells(const Object& sc) const override {
    std::string name(am::GetName(sc));
    if (IsDefaultClass(sc)) name += " (default)";
    std::string reclaim = catalog::OptString(&sc, "reclaimPolicy").value_or("Delete");
    std::string mode = catalog::OptString(&sc, "volumeBindingMode").value_or("Immediate");
    return {json::value(name), json::value(StringAt(sc, "provisioner")), json::value(reclaim), json::value(mode),
            json::value(BoolAt(sc, "allowVolumeExpansion")), json::value(AgeCell(sc))};
  }

 private:
  // kube's SetDefaults_StorageClass.
  static void Default(Object& sc) {
    catalog::DefaultField(sc, "reclaimPolicy", "Delete");
    catalog::DefaultField(sc, "volumeBindingMode", "Immediate");
  }
};

}  // namespace

std::vector<registry::RestResource> StorageClasses(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"storage.k8s.io", "v1", "storageclasses", "storageclass", "StorageClass", false, {"sc"}, {},
                        "io.k8s.api.storage.v1.StorageClass"});
  spec.strategy = std::make_shared<StorageClassStrategy>();
  return registry::MakeResource(deps, std::move(spec));
}

}  // namespace capstan::api::storage_api
