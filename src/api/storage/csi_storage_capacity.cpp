// api/storage/csi_storage_capacity.cpp: storage.k8s.io/v1 CSIStorageCapacities (namespaced): quantities
// in kube's canonical form, kube's ValidateCSIStorageCapacity(Update) (node topology selector, storage
// class name, non-negative capacity and maximum volume size; topology and class are immutable), and the
// printer (NAME STORAGECLASSNAME CAPACITY, no AGE, as kube).
#include "api/apps/workload_util.h"
#include "api/common.h"
#include "api/networking/validators.h"
#include "api/storage/storage.h"
#include "api/storage/storage_descriptions.h"
#include "apimachinery/labels.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/quantity.h"
#include "apimachinery/validation.h"

namespace capstan::api::storage_api {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

// Rewrites a quantity field in kube's form ("1024Mi" -> "1Gi"); leaves what does not parse to validation.
void CanonicalizeQuantity(Object& o, std::string_view key) {
  json::value* v = o.if_contains(key);
  if (!v || v->is_null()) return;
  auto q = am::ParseQuantityJson(*v);
  if (q.ok()) *v = q->String();
}

void CheckQuantity(const Object& o, std::string_view key, ErrorList& errs) {
  const json::value* v = o.if_contains(key);
  if (!v || v->is_null()) return;
  auto q = am::ParseQuantityJson(*v);
  if (!q.ok()) {
    errs.push_back(InvalidError(FieldPath(std::string(key)), *v, std::string(am::kQuantityFormatError)));
  } else if (q->Sign() < 0) {
    errs.push_back(InvalidError(FieldPath(std::string(key)), q->String(), std::string(am::kIsNegativeErrorMsg)));
  }
}

ErrorList ValidateCapacity(const Object& c) {
  ErrorList errs;
  if (const json::value* sel = c.if_contains("nodeTopology"); sel && !sel->is_null()) {
    errs = am::ValidateLabelSelector(*sel, FieldPath("nodeTopology"));
  }
  std::string cls = StringAt(c, "storageClassName");
  catalog::AddProblems(errs, FieldPath("storageClassName"), cls, am::NameIsDNSSubdomain(cls, false));
  CheckQuantity(c, "capacity", errs);
  CheckQuantity(c, "maximumVolumeSize", errs);
  return errs;
}

class CSIStorageCapacityStrategy : public registry::DefaultStrategy {
 public:
  CSIStorageCapacityStrategy() : DefaultStrategy(Options{}) {}

  void PrepareForCreate(const registry::Context&, Object& c) const override {
    CanonicalizeQuantity(c, "capacity");
    CanonicalizeQuantity(c, "maximumVolumeSize");
  }
  void PrepareForUpdate(const registry::Context& ctx, Object& c, const Object&) const override { PrepareForCreate(ctx, c); }
  ErrorList Validate(const registry::Context&, const Object& c) const override { return ValidateCapacity(c); }
  ErrorList ValidateUpdate(const registry::Context&, const Object& c, const Object& old) const override {
    ErrorList errs;
    const json::value* sel = c.if_contains("nodeTopology");
    if (!catalog::SameValue(sel, old.if_contains("nodeTopology"))) {
      errs.push_back(catalog::InvalidGo(FieldPath("nodeTopology"), apps::GoLabelSelector(sel), "field is immutable"));
    }
    if (StringAt(c, "storageClassName") != StringAt(old, "storageClassName")) {
      errs.push_back(InvalidError(FieldPath("storageClassName"), StringAt(c, "storageClassName"), "field is immutable"));
    }
    return errs;
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(), {"StorageClassName", "string", "", kStorageClassName, 0},
            {"Capacity", "string", "", kCapacity, 0}};
  }
  json::array TableCells(const Object& c) const override {
    std::string capacity = "<unset>";
    if (const json::value* v = c.if_contains("capacity"); v && !v->is_null()) {
      auto q = am::ParseQuantityJson(*v);
      capacity = q.ok() ? q->String() : (v->is_string() ? std::string(v->get_string()) : json::serialize(*v));
    }
    return {json::value(am::GetName(c)), json::value(StringAt(c, "storageClassName")), json::value(capacity)};
  }
};

}  // namespace

std::vector<registry::RestResource> CSIStorageCapacities(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"storage.k8s.io", "v1", "csistoragecapacities", "csistoragecapacity", "CSIStorageCapacity",
                        true, {}, {}, "io.k8s.api.storage.v1.CSIStorageCapacity"});
  spec.strategy = std::make_shared<CSIStorageCapacityStrategy>();
  return registry::MakeResource(deps, std::move(spec));
}

}  // namespace capstan::api::storage_api
