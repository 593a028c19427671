// api/apps/statefulset.cpp: apps/v1 StatefulSets: kube's SetDefaults_StatefulSet (OrderedReady,
// RollingUpdate with partition 0, Retain/Retain claim retention, replicas 1, revisionHistoryLimit 10),
// pod template and claim template defaults, kube's ValidateStatefulSet(Update) (selector, pod
// management and update strategies, only replicas/ordinals/template/updateStrategy/
// persistentVolumeClaimRetentionPolicy/minReadySeconds mutable), status and scale subresources, and
// kube's printer (NAME READY AGE, wide CONTAINERS IMAGES).
#include "api/apps/apps.h"
#include "api/apps/pod_template.h"
#include "api/apps/workload_util.h"
#include "api/common.h"
#include "apimachinery/labels.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/object_meta_validation.h"
#include "apimachinery/validation.h"
#include "util/strings.h"

namespace capstan::api::apps {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

const Object kEmpty;

const Object& Spec(const Object& o) {
  const Object* s = ObjectAt(o, "spec");
  return s ? *s : kEmpty;
}

void DefaultStatefulSet(Object& ss) {
  json::object& spec = ChildObject(ss, "spec");
  if (StringAt(spec, "podManagementPolicy").empty()) spec["podManagementPolicy"] = "OrderedReady";
  json::object& us = ChildObject(spec, "updateStrategy");
  if (StringAt(us, "type").empty()) {
    us["type"] = "RollingUpdate";
    if (!us.contains("rollingUpdate") || us["rollingUpdate"].is_null()) us["rollingUpdate"] = json::object();
  }
  if (StringAt(us, "type") == "RollingUpdate") {
    if (auto* ru = us.if_contains("rollingUpdate"); ru && ru->is_object()) {
      if (!ru->get_object().contains("partition")) ru->get_object()["partition"] = 0;
    }
  }
  json::object& retention = ChildObject(spec, "persistentVolumeClaimRetentionPolicy");
  if (StringAt(retention, "whenDeleted").empty()) retention["whenDeleted"] = "Retain";
  if (StringAt(retention, "whenScaled").empty()) retention["whenScaled"] = "Retain";
  if (!spec.contains("replicas") || spec["replicas"].is_null()) spec["replicas"] = 1;
  if (!spec.contains("revisionHistoryLimit") || spec["revisionHistoryLimit"].is_null()) spec["revisionHistoryLimit"] = 10;
  DefaultPodTemplate(ChildObject(spec, "template"));
  if (auto* claims = spec.if_contains("volumeClaimTemplates"); claims && claims->is_array()) {
    for (auto& c : claims->get_array()) {
      if (c.is_object()) DefaultClaimTemplate(c.get_object());
    }
  }
}

std::string GoRollingUpdateStatefulSet(const json::object& ru) {
  // kube prints the pointer's address; a fixed one stands in for it.
  std::string mu = ru.contains("maxUnavailable") ? "(*intstr.IntOrString)(0xc000000000)" : "(*intstr.IntOrString)(nil)";
  return "apps.RollingUpdateStatefulSetStrategy{Partition:" + std::to_string(IntAt(ru, "partition")) +
         ", MaxUnavailable:" + mu + "}";
}

void ValidateRetention(const Object& spec, const FieldPath& p, ErrorList& errs) {
  const Object* r = ObjectAt(spec, "persistentVolumeClaimRetentionPolicy");
  if (!r) return;
  for (const char* f : {"whenDeleted", "whenScaled"}) {
    std::string v = StringAt(*r, f);
    if (v != "Retain" && v != "Delete") errs.push_back(NotSupportedError(p.Child(f), v, {"Retain", "Delete"}));
  }
}

ErrorList ValidateStatefulSetSpec(const Object& ss) {
  const Object& spec = Spec(ss);
  FieldPath p("spec");
  ErrorList errs;
  std::string pmp = StringAt(spec, "podManagementPolicy");
  if (pmp.empty()) {
    errs.push_back(RequiredError(p.Child("podManagementPolicy"), ""));
  } else if (pmp != "OrderedReady" && pmp != "Parallel") {
    errs.push_back(InvalidError(p.Child("podManagementPolicy"), pmp, "must be 'OrderedReady' or 'Parallel'"));
  }
  const Object* us = ObjectAt(spec, "updateStrategy");
  std::string type = us ? StringAt(*us, "type") : "";
  const Object* ru = us ? ObjectAt(*us, "rollingUpdate") : nullptr;
  FieldPath up = p.Child("updateStrategy");
  if (type.empty()) {
    errs.push_back(RequiredError(up, ""));
  } else if (type == "OnDelete") {
    if (ru) {
      errs.push_back(InvalidRendered(up.Child("rollingUpdate"), GoRollingUpdateStatefulSet(*ru),
                                     "only allowed for updateStrategy 'RollingUpdate'"));
    }
  } else if (type == "RollingUpdate") {
    if (ru) {
      FieldPath rp = up.Child("rollingUpdate");
      CheckNonnegative(*ru, "partition", rp.Child("partition"), errs);
      if (const auto* mu = ru->if_contains("maxUnavailable"); mu && !mu->is_null()) {
        for (auto& e : ValidatePositiveIntOrPercent(*mu, rp.Child("maxUnavailable"))) errs.push_back(std::move(e));
        if (IntOrPercentValue(mu) == 0) errs.push_back(InvalidRendered(rp.Child("maxUnavailable"), GoIntOrString(*mu), "cannot be 0"));
        for (auto& e : IsNotMoreThan100Percent(*mu, rp.Child("maxUnavailable"))) errs.push_back(std::move(e));
      }
    }
  } else {
    std::string rendered = "apps.StatefulSetUpdateStrategy{Type:" + GoQuote(type) +
                           ", RollingUpdate:(*apps.RollingUpdateStatefulSetStrategy)" + (ru ? "(0xc000000000)" : "(nil)") + "}";
    errs.push_back(InvalidRendered(up, rendered, "must be 'RollingUpdate' or 'OnDelete'"));
  }
  ValidateRetention(spec, p.Child("persistentVolumeClaimRetentionPolicy"), errs);
  CheckNonnegative(spec, "replicas", p.Child("replicas"), errs);
  CheckNonnegative(spec, "minReadySeconds", p.Child("minReadySeconds"), errs);
  if (const Object* ord = ObjectAt(spec, "ordinals")) CheckNonnegative(*ord, "start", p.Child("ordinals.start"), errs);

  const json::value* sel = spec.if_contains("selector");
  if (sel && sel->is_null()) sel = nullptr;
  if (!sel) {
    errs.push_back(RequiredError(p.Child("selector"), ""));
  } else {
    for (auto& e : am::ValidateLabelSelector(*sel, p.Child("selector"))) errs.push_back(std::move(e));
    const Object& so = sel->is_object() ? sel->get_object() : kEmpty;
    if (CountAt(so, "matchLabels") + CountAt(so, "matchExpressions") == 0) {
      errs.push_back(InvalidRendered(p.Child("selector"), GoLabelSelector(sel), "empty selector is invalid for statefulset"));
    }
  }
  auto selector = am::LabelSelectorFromJson(sel);
  FieldPath tp = p.Child("template");
  if (!selector.ok()) {
    errs.push_back(InvalidRendered(p.Child("selector"), GoLabelSelector(sel), ""));
  } else {
    // kube validates only the template's metadata here, not its pod spec.
    const json::value* labels = TemplateLabels(spec);
    if (!selector->Empty() && !selector->Matches(labels && labels->is_object() ? &labels->get_object() : nullptr)) {
      errs.push_back(InvalidRendered(tp.Child("metadata").Child("labels"), GoStringMap(labels),
                                     "`selector` does not match template `labels`"));
    }
    am::StringPairs label_pairs, annotation_pairs;
    if (labels && labels->is_object()) {
      for (const auto& kv : labels->get_object()) {
        label_pairs.emplace_back(std::string(kv.key()), kv.value().is_string() ? std::string(kv.value().get_string()) : "");
      }
    }
    if (const auto* a = PathAt(spec, {"template", "metadata", "annotations"}); a && a->is_object()) {
      for (const auto& kv : a->get_object()) {
        annotation_pairs.emplace_back(std::string(kv.key()), kv.value().is_string() ? std::string(kv.value().get_string()) : "");
      }
    }
    for (auto& e : am::ValidateLabels(label_pairs, tp.Child("labels"))) errs.push_back(std::move(e));
    for (auto& e : am::ValidateAnnotations(annotation_pairs, tp.Child("annotations"))) errs.push_back(std::move(e));
  }
  const Object& pod = TemplatePodSpec(spec);
  std::string restart = StringAt(pod, "restartPolicy");
  if (restart != "Always") errs.push_back(NotSupportedError(tp.Child("spec").Child("restartPolicy"), restart, {"Always"}));
  if (pod.contains("activeDeadlineSeconds")) {
    errs.push_back(ForbiddenError(tp.Child("spec").Child("activeDeadlineSeconds"),
                                  "activeDeadlineSeconds in StatefulSet is not Supported"));
  }
  return errs;
}

ErrorList ValidateStatefulSetStatus(const Object& ss, const Object& old) {
  const Object* st = ObjectAt(ss, "status");
  const Object& s = st ? *st : kEmpty;
  FieldPath p("status");
  ErrorList errs;
  for (const char* f : {"replicas", "readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas",
                        "observedGeneration", "collisionCount"}) {
    CheckNonnegative(s, f, p.Child(f), errs);
  }
  int64_t replicas = IntAt(s, "replicas");
  const std::string msg = "cannot be greater than status.replicas";
  for (const char* f : {"readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas"}) {
    if (IntAt(s, f) > replicas) errs.push_back(InvalidError(p.Child(f), IntAt(s, f), msg));
  }
  if (IntAt(s, "availableReplicas") > IntAt(s, "readyReplicas")) {
    errs.push_back(InvalidError(p.Child("availableReplicas"), IntAt(s, "availableReplicas"),
                                "cannot be greater than status.readyReplicas"));
  }
  auto before = OptInt(ObjectAt(old, "status"), "collisionCount");
  auto now = OptInt(&s, "collisionCount");
  if (before && (!now || *now < *before)) {
    errs.push_back(InvalidError(p.Child("collisionCount"), now.value_or(0), "cannot be decremented"));
  }
  return errs;
}

class StatefulSetStrategy : public registry::DefaultStrategy {
 public:
  StatefulSetStrategy()
      : DefaultStrategy(Options{.has_status = true, .track_generation = true, .name_validator = am::NameIsDNSLabel}) {}

  void PrepareForCreate(const registry::Context& ctx, Object& ss) const override {
    DefaultStatefulSet(ss);
    DefaultStrategy::PrepareForCreate(ctx, ss);
  }
  void PrepareForUpdate(const registry::Context& ctx, Object& ss, const Object& old) const override {
    DefaultStatefulSet(ss);
    DefaultStrategy::PrepareForUpdate(ctx, ss, old);
  }
  ErrorList Validate(const registry::Context&, const Object& ss) const override { return ValidateStatefulSetSpec(ss); }
  ErrorList ValidateUpdate(const registry::Context&, const Object& ss, const Object& old) const override {
    ErrorList errs = ValidateStatefulSetSpec(ss);
    // Only these spec fields may change.
    Object now = Spec(ss), before = Spec(old);
    for (const char* f : {"replicas", "template", "updateStrategy", "minReadySeconds", "ordinals",
                          "persistentVolumeClaimRetentionPolicy"}) {
      now.erase(f);
      before.erase(f);
    }
    if (now != before) {
      errs.push_back(ForbiddenError(FieldPath("spec"),
                                    "updates to statefulset spec for fields other than 'replicas', 'ordinals', "
                                    "'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and "
                                    "'minReadySeconds' are forbidden"));
    }
    return errs;
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Ready", "string", "", "Number of the pod with ready state", 0},
            registry::AgeColumn(),
            {"Containers", "string", "", "Names of each container in the template.", 1},
            {"Images", "string", "", "Images referenced by each container in the template.", 1}};
  }
  json::array TableCells(const Object& ss) const override {
    const Object& spec = Spec(ss);
    const Object* st = ObjectAt(ss, "status");
    auto [names, images] = ContainerCells(TemplatePodSpec(spec));
    std::string ready = std::to_string(st ? IntAt(*st, "readyReplicas") : 0) + "/" + std::to_string(IntAt(spec, "replicas"));
    return {json::value(am::GetName(ss)), json::value(ready), json::value(AgeCell(ss)), json::value(names),
            json::value(images)};
  }
};

}  // namespace

std::vector<registry::RestResource> StatefulSets(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"apps", "v1", "statefulsets", "statefulset", "StatefulSet", true, {"sts"}, {"all"},
                        "io.k8s.api.apps.v1.StatefulSet"});
  auto strategy = std::make_shared<StatefulSetStrategy>();
  spec.strategy = strategy;
  auto out = registry::MakeResource(deps, spec);
  AddStatus(out, std::make_shared<WorkloadStatusStrategy>(strategy, false, ValidateStatefulSetStatus));
  AddScale(deps, out);
  return out;
}

}  // namespace capstan::api::apps
