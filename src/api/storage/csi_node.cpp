// api/storage/csi_node.cpp: storage.k8s.io/v1 CSINodes (cluster-scoped, named after their node):
// kube's ValidateCSINode(Update) (driver names, node IDs of at most 128 characters, allocatable
// counts, unique drivers and topology keys; a driver entry already stored may not change), and the
// printer (NAME DRIVERS AGE).
#include <set>

#include "api/common.h"
#include "api/networking/validators.h"
#include "api/storage/storage.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/object_meta_validation.h"
#include "apimachinery/validation.h"

namespace capstan::api::storage_api {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

constexpr size_t kMaxNodeId = 128;

ErrorList ValidateCSINode(const Object& n) {
  ErrorList errs;
  const json::value* drivers = PathAt(n, {"spec", "drivers"});
  if (!drivers || !drivers->is_array()) return errs;
  FieldPath p = FieldPath("spec").Child("drivers");
  std::set<std::string> names;
  for (size_t i = 0; i < drivers->get_array().size(); ++i) {
    if (!drivers->get_array()[i].is_object()) continue;
    const json::object& d = drivers->get_array()[i].get_object();
    FieldPath dp = p.Index(i);
    std::string name = StringAt(d, "name");
    ErrorList more = ValidateCSIDriverName(name, dp.Child("name"));
    errs.insert(errs.end(), more.begin(), more.end());
    std::string node_id = StringAt(d, "nodeID");
    if (node_id.empty()) errs.push_back(RequiredError(dp.Child("nodeID"), ""));
    if (node_id.size() > kMaxNodeId) {
      errs.push_back(InvalidError(dp.Child("nodeID"), node_id, "must be " + std::to_string(kMaxNodeId) + " characters or less"));
    }
    if (auto count = catalog::OptInt(ObjectAt(d, "allocatable"), "count")) {
      more = am::ValidateNonnegativeField(*count, dp.Child("allocatable").Child("count"));
      errs.insert(errs.end(), more.begin(), more.end());
    }
    if (!names.insert(name).second) errs.push_back(DuplicateError(dp.Child("name"), name));
    std::set<std::string> keys;
    auto topology = catalog::Strings(d, "topologyKeys");
    for (const auto& key : topology) {
      if (key.empty()) errs.push_back(RequiredError(dp, ""));
      if (!keys.insert(key).second) errs.push_back(DuplicateError(dp, key));
      for (const auto& m : am::IsQualifiedName(key)) errs.push_back(catalog::InvalidGo(dp, catalog::GoStringSlice(topology), m));
    }
  }
  return errs;
}

class CSINodeStrategy : public registry::DefaultStrategy {
 public:
  CSINodeStrategy() : DefaultStrategy(Options{.namespaced = false}) {}

  ErrorList Validate(const registry::Context&, const Object& n) const override { return ValidateCSINode(n); }
  ErrorList ValidateUpdate(const registry::Context&, const Object& n, const Object& old) const override {
    ErrorList errs = ValidateCSINode(n);
    const json::value* now = PathAt(n, {"spec", "drivers"});
    const json::value* before = PathAt(old, {"spec", "drivers"});
    if (!now || !now->is_array() || !before || !before->is_array()) return errs;
    for (const auto& o : before->get_array()) {
      if (!o.is_object()) continue;
      for (const auto& d : now->get_array()) {
        if (!d.is_object() || StringAt(d.get_object(), "name") != StringAt(o.get_object(), "name")) continue;
        if (d != o) errs.push_back(catalog::InvalidGo(FieldPath("CSINodeDriver"), json::serialize(d), "field is immutable"));
      }
    }
    return errs;
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Drivers", "integer", "", "Drivers indicates the number of CSI drivers registered on the node", 0},
            registry::AgeColumn()};
  }
  json::array TableCells(const Object& n) const override {
    const json::value* drivers = PathAt(n, {"spec", "drivers"});
    int64_t count = drivers && drivers->is_array() ? static_cast<int64_t>(drivers->get_array().size()) : 0;
    return {json::value(am::GetName(n)), count, json::value(AgeCell(n))};
  }
};

}  // namespace

std::vector<registry::RestResource> CSINodes(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"storage.k8s.io", "v1", "csinodes", "csinode", "CSINode", false, {}, {},
                        "io.k8s.api.storage.v1.CSINode"});
  spec.strategy = std::make_shared<CSINodeStrategy>();
  return registry::MakeResource(deps, std::move(spec));
}

}  // namespace capstan::api::storage_api
