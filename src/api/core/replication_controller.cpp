// api/core/replication_controller.cpp: core/v1 ReplicationControllers: selector and labels default to
// the template's labels, replicas to 1, the template gets pod defaults; kube's validation (non-empty
// selector matching the template labels, restartPolicy Always, no activeDeadlineSeconds); the
// spec/status split with generation; status rules; the scale subresource (registry::ScaleStore); the
// printer (NAME DESIRED CURRENT READY AGE; CONTAINERS IMAGES SELECTOR).
#include "api/core/core_descriptions.h"
#include "api/core/core_helpers.h"
#include "api/core/core_resources.h"
#include "api/core/pod_defaults.h"
#include "api/core/pod_validation.h"
#include "apimachinery/object_meta.h"
#include "registry/scale_store.h"
#include "util/strings.h"

namespace capstan::api::core {

namespace am = capstan::apimachinery;

namespace {

const json::object* SelectorOf(const Object& rc) {
  const auto* s = PathAt(rc, {"spec", "selector"});
  return s && s->is_object() ? &s->get_object() : nullptr;
}

void DefaultRc(Object& rc) {
  json::object& spec = ObjectField(rc, "spec");
  const auto* labels = PathAt(rc, {"spec", "template", "metadata", "labels"});
  if (labels && labels->is_object() && !labels->get_object().empty()) {
    if (CountAt(spec, "selector") == 0) spec["selector"] = *labels;
    if (am::GetLabels(rc).empty()) ObjectField(rc, "metadata")["labels"] = *labels;
  }
  if (const auto* r = spec.if_contains("replicas"); !r || r->is_null()) spec["replicas"] = 1;
  if (auto* t = spec.if_contains("template"); t && t->is_object()) DefaultPodTemplateSpec(t->get_object());
}

ErrorList ValidateRc(const Object& rc) {
  ErrorList errs;
  FieldPath sp("spec");
  const json::object* selector = SelectorOf(rc);
  int64_t min_ready = IntOf(PathAt(rc, {"spec", "minReadySeconds"}));
  if (min_ready < 0) errs.push_back(InvalidError(sp.Child("minReadySeconds"), min_ready, "must be greater than or equal to 0"));
  if (!selector || selector->empty()) errs.push_back(RequiredError(sp.Child("selector"), ""));
  int64_t replicas = IntOf(PathAt(rc, {"spec", "replicas"}));
  if (replicas < 0) errs.push_back(InvalidError(sp.Child("replicas"), replicas, "must be greater than or equal to 0"));
  const auto* tmpl = PathAt(rc, {"spec", "template"});
  FieldPath tp = sp.Child("template");
  if (!tmpl || !tmpl->is_object()) {
    errs.push_back(RequiredError(tp, ""));
    return errs;
  }
  const auto& t = tmpl->get_object();
  const auto* labels_v = PathAt(t, {"metadata", "labels"});
  const json::object* labels = labels_v && labels_v->is_object() ? &labels_v->get_object() : nullptr;
  if (selector && !selector->empty()) {
    bool match = true;
    for (const auto& kv : *selector) {
      const auto* v = labels ? labels->if_contains(kv.key()) : nullptr;
      if (!v || *v != kv.value()) match = false;
    }
    if (!match) {
      errs.push_back(InvalidGoValue(tp.Child("metadata").Child("labels"), GoStringMap(labels), "`selector` does not match template `labels`"));
    }
  }
  auto more = ValidatePodTemplateSpec(t, tp);
  errs.insert(errs.end(), more.begin(), more.end());
  std::string restart = StrOf(PathAt(t, {"spec", "restartPolicy"}));
  if (restart != "Always") errs.push_back(NotSupportedError(tp.Child("spec").Child("restartPolicy"), restart, {"Always"}));
  if (const auto* ads = PathAt(t, {"spec", "activeDeadlineSeconds"}); ads && !ads->is_null()) {
    errs.push_back(ForbiddenError(tp.Child("spec").Child("activeDeadlineSeconds"),
                                  "activeDeadlineSeconds in ReplicationController is not Supported"));
  }
  return errs;
}

std::string ContainerCells(const Object& rc, const char* field) {
  std::vector<std::string> out;
  if (const auto* cs = PathAt(rc, {"spec", "template", "spec", "containers"}); cs && cs->is_array()) {
    for (const auto& c : cs->get_array()) out.push_back(c.is_object() ? StrOf(c.get_object().if_contains(field)) : "");
  }
  return Join(out, ",");
}

class RcStrategy : public registry::DefaultStrategy {
 public:
  RcStrategy() : DefaultStrategy(Options{.has_status = true, .track_generation = true}) {}
  void PrepareForCreate(const registry::Context& ctx, Object& rc) const override {
    DefaultRc(rc);
    DefaultStrategy::PrepareForCreate(ctx, rc);
    rc["status"] = json::object{{"replicas", 0}};
  }
  void PrepareForUpdate(const registry::Context& ctx, Object& rc, const Object& old) const override {
    DefaultRc(rc);
    DefaultStrategy::PrepareForUpdate(ctx, rc, old);
  }
  ErrorList Validate(const registry::Context&, const Object& rc) const override { return ValidateRc(rc); }
  ErrorList ValidateUpdate(const registry::Context&, const Object& rc, const Object&) const override { return ValidateRc(rc); }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Desired", "integer", "", kReplicationControllerSpecReplicas, 0},
            {"Current", "integer", "", kReplicationControllerStatusReplicas, 0},
            {"Ready", "integer", "", kReplicationControllerStatusReadyReplicas, 0},
            registry::AgeColumn(),
            {"Containers", "string", "", "Names of each container in the template.", 1},
            {"Images", "string", "", "Images referenced by each container in the template.", 1},
            {"Selector", "string", "", kReplicationControllerSpecSelector, 1}};
  }
  std::string UnsupportedFieldLabelMessage(std::string_view f) const override { return am::FieldLabelNotSupportedError(f); }
  std::vector<std::string> SelectableFieldNames() const override {
    return {"metadata.name", "metadata.namespace", "status.replicas"};
  }
  am::FieldSet SelectableFields(const Object& rc) const override {
    am::FieldSet f = DefaultStrategy::SelectableFields(rc);
    f["status.replicas"] = std::to_string(IntOf(PathAt(rc, {"status", "replicas"})));
    return f;
  }
  json::array TableCells(const Object& rc) const override {
    return {json::value(am::GetName(rc)), IntOf(PathAt(rc, {"spec", "replicas"})), IntOf(PathAt(rc, {"status", "replicas"})),
            IntOf(PathAt(rc, {"status", "readyReplicas"})), json::value(AgeCell(rc)), json::value(ContainerCells(rc, "name")),
            json::value(ContainerCells(rc, "image")), json::value(FormatLabels(SelectorOf(rc)))};
  }
};

class RcStatusStrategy : public registry::StatusStrategy {
 public:
  using StatusStrategy::StatusStrategy;
  ErrorList ValidateUpdate(const registry::Context&, const Object& rc, const Object&) const override {
    ErrorList errs;
    FieldPath p("status");
    int64_t replicas = IntOf(PathAt(rc, {"status", "replicas"}));
    for (const char* f : {"replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas", "observedGeneration"}) {
      int64_t v = IntOf(PathAt(rc, {"status", f}));
      if (v < 0) errs.push_back(InvalidError(p.Child(f), v, "must be greater than or equal to 0"));
    }
    int64_t fully = IntOf(PathAt(rc, {"status", "fullyLabeledReplicas"}));
    int64_t ready = IntOf(PathAt(rc, {"status", "readyReplicas"}));
    int64_t available = IntOf(PathAt(rc, {"status", "availableReplicas"}));
    if (fully > replicas) errs.push_back(InvalidError(p.Child("fullyLabeledReplicas"), fully, "cannot be greater than status.replicas"));
    if (ready > replicas) errs.push_back(InvalidError(p.Child("readyReplicas"), ready, "cannot be greater than status.replicas"));
    if (available > replicas) errs.push_back(InvalidError(p.Child("availableReplicas"), available, "cannot be greater than status.replicas"));
    if (available > ready) errs.push_back(InvalidError(p.Child("availableReplicas"), available, "cannot be greater than readyReplicas"));
    return errs;
  }
};

}  // namespace

std::vector<registry::RestResource> ReplicationControllers(const registry::GroupDeps& deps) {
  auto info = MakeInfo({"", "v1", "replicationcontrollers", "replicationcontroller", "ReplicationController", true, {"rc"},
                        {"all"}, "io.k8s.api.core.v1.ReplicationController"});
  auto strategy = std::make_shared<RcStrategy>();
  auto out = MakeCoreResource(deps, info, strategy, std::make_shared<RcStatusStrategy>(strategy), "controllers");
  auto parent = std::dynamic_pointer_cast<registry::Store>(out[0].storage);
  registry::ScaleConfig sc;
  sc.selector = [](const Object& rc) { return SelectorString(SelectorOf(rc)); };
  registry::ResourceInfo scale = registry::ScaleInfo(info);
  out.push_back({scale, std::make_shared<registry::ScaleStore>(parent, scale, sc),
                 deps.schemas ? deps.schemas->Find(scale.definition) : nullptr, true});
  return out;
}

}  // namespace capstan::api::core
