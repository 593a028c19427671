// api/apps/controllerrevision.cpp: apps/v1 ControllerRevisions (the history StatefulSets and
// DaemonSets keep): kube's ValidateControllerRevision(Update) (data required and immutable, revision
// >= 0) and printer (NAME CONTROLLER REVISION AGE).
#include "api/apps/apps.h"
#include "api/apps/workload_util.h"
#include "api/common.h"
#include "apimachinery/gvk.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/object_meta_validation.h"
#include "apimachinery/validation.h"
#include "util/strings.h"

namespace capstan::api::apps {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

ErrorList ValidateRevision(const Object& cr) {
  ErrorList errs;
  const json::value* data = cr.if_contains("data");
  if (!data || data->is_null()) errs.push_back(RequiredError(FieldPath("data"), "data is mandatory"));
  CheckNonnegative(cr, "revision", FieldPath("revision"), errs);
  return errs;
}

// The controller owner reference as kube's printer names it: "<kind>.<group>/<name>", lower-cased kind.
std::string ControllerName(const Object& cr) {
  for (const auto& ref : am::GetOwnerReferences(cr)) {
    if (!ref.controller.value_or(false)) continue;
    std::string group;
    if (auto slash = ref.api_version.find('/'); slash != std::string::npos) group = ref.api_version.substr(0, slash);
    std::string kind = ref.kind;
    if (kind.empty() && group.empty()) return ref.name;
    std::string gk = group.empty() ? kind : kind + "." + group;
    return ToLower(gk) + "/" + ref.name;
  }
  return "<none>";
}

class ControllerRevisionStrategy : public registry::DefaultStrategy {
 public:
  ControllerRevisionStrategy() : DefaultStrategy(Options{}) {}

  ErrorList Validate(const registry::Context&, const Object& cr) const override { return ValidateRevision(cr); }
  ErrorList ValidateUpdate(const registry::Context&, const Object& cr, const Object& old) const override {
    ErrorList errs = ValidateRevision(cr);
    const json::value* data = cr.if_contains("data");
    const json::value* old_data = old.if_contains("data");
    if ((data ? *data : json::value()) != (old_data ? *old_data : json::value())) {
      errs.push_back(InvalidRendered(FieldPath("data"), data ? json::serialize(*data) : "null", am::kFieldImmutableErrorMsg));
    }
    return errs;
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Controller", "string", "", "Controller of the object", 0},
            {"Revision", "string", "", "revision indicates the revision of the state represented by Data.", 0},
            registry::AgeColumn()};
  }
  json::array TableCells(const Object& cr) const override {
    return {json::value(am::GetName(cr)), json::value(ControllerName(cr)), IntAt(cr, "revision"),
            json::value(AgeCell(cr))};
  }
};

}  // namespace

std::vector<registry::RestResource> ControllerRevisions(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"apps", "v1", "controllerrevisions", "controllerrevision", "ControllerRevision", true, {}, {},
                        "io.k8s.api.apps.v1.ControllerRevision"});
  spec.strategy = std::make_shared<ControllerRevisionStrategy>();
  return registry::MakeResource(deps, std::move(spec));
}

}  // namespace capstan::api::apps
