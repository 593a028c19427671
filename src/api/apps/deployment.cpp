// api/apps/deployment.cpp: apps/v1 Deployments: kube's SetDefaults_Deployment (replicas 1, RollingUpdate
// 25%/25%, revisionHistoryLimit 10, progressDeadlineSeconds 600) and pod template defaults, kube's
// ValidateDeployment(Update) (selector required and matching the template, immutable on update,
// strategy, counts), generation bumps on spec or annotation changes, the status and scale
// subresources and kube's printer (NAME READY UP-TO-DATE AVAILABLE AGE, wide CONTAINERS IMAGES
// SELECTOR).
#include "api/apps/apps.h"
#include "api/apps/pod_template.h"
#include "api/apps/workload_util.h"
#include "api/common.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/object_meta_validation.h"
#include "util/strings.h"

namespace capstan::api::apps {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

void DefaultDeployment(Object& d) {
  json::object& spec = ChildObject(d, "spec");
  if (!spec.contains("replicas") || spec["replicas"].is_null()) spec["replicas"] = 1;
  json::object& strategy = ChildObject(spec, "strategy");
  if (StringAt(strategy, "type").empty()) strategy["type"] = "RollingUpdate";
  if (StringAt(strategy, "type") == "RollingUpdate") {
    json::object& ru = ChildObject(strategy, "rollingUpdate");
    if (!ru.contains("maxUnavailable") || ru["maxUnavailable"].is_null()) ru["maxUnavailable"] = "25%";
    if (!ru.contains("maxSurge") || ru["maxSurge"].is_null()) ru["maxSurge"] = "25%";
  }
  if (!spec.contains("revisionHistoryLimit") || spec["revisionHistoryLimit"].is_null()) spec["revisionHistoryLimit"] = 10;
  if (!spec.contains("progressDeadlineSeconds") || spec["progressDeadlineSeconds"].is_null()) {
    spec["progressDeadlineSeconds"] = 600;
  }
  DefaultPodTemplate(ChildObject(spec, "template"));
}

std::string GoDeploymentStrategy(const json::object& s) {
  return "apps.DeploymentStrategy{Type:" + GoQuote(StringAt(s, "type")) + ", RollingUpdate:(*apps.RollingUpdateDeployment)" +
         (s.contains("rollingUpdate") ? "(0xc000000000)" : "(nil)") + "}";
}

ErrorList ValidateStrategy(const Object& spec, const FieldPath& p) {
  ErrorList errs;
  static const json::object kEmpty;
  const json::object* s = ObjectAt(spec, "strategy");
  const json::object& strategy = s ? *s : kEmpty;
  std::string type = StringAt(strategy, "type");
  const json::object* ru = ObjectAt(strategy, "rollingUpdate");
  if (type == "Recreate") {
    if (strategy.contains("rollingUpdate")) {
      errs.push_back(ForbiddenError(p.Child("rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'"));
    }
  } else if (type == "RollingUpdate") {
    if (!ru) {
      errs.push_back(RequiredError(p.Child("rollingUpdate"), "this should be defaulted and never be nil"));
    } else {
      FieldPath rp = p.Child("rollingUpdate");
      const json::value zero(0);
      const json::value* mu = ru->if_contains("maxUnavailable");
      const json::value* ms = ru->if_contains("maxSurge");
      const json::value& mu_v = mu ? *mu : zero;
      const json::value& ms_v = ms ? *ms : zero;
      for (auto& e : ValidatePositiveIntOrPercent(mu_v, rp.Child("maxUnavailable"))) errs.push_back(std::move(e));
      for (auto& e : ValidatePositiveIntOrPercent(ms_v, rp.Child("maxSurge"))) errs.push_back(std::move(e));
      if (IntOrPercentValue(&mu_v) == 0 && IntOrPercentValue(&ms_v) == 0) {
        errs.push_back(InvalidRendered(rp.Child("maxUnavailable"), GoIntOrString(mu_v), "may not be 0 when `maxSurge` is 0"));
      }
      for (auto& e : IsNotMoreThan100Percent(mu_v, rp.Child("maxUnavailable"))) errs.push_back(std::move(e));
    }
  } else {
    FieldError e = NotSupportedError(p, "", {"Recreate", "RollingUpdate"});
    e.omit_value = true;
    e.detail = GoDeploymentStrategy(strategy) + ": " + e.detail;
    errs.push_back(std::move(e));
  }
  return errs;
}

ErrorList ValidateDeploymentSpec(const Object& d) {
  static const Object kEmpty;
  const Object* sp = ObjectAt(d, "spec");
  const Object& spec = sp ? *sp : kEmpty;
  FieldPath p("spec");
  ErrorList errs;
  CheckNonnegative(spec, "replicas", p.Child("replicas"), errs);
  bool parsed = false;
  for (auto& e : ValidateSelectorAndTemplate(spec, p, "deployment", "invalid label selector", &parsed)) {
    errs.push_back(std::move(e));
  }
  if (parsed) {
    FieldPath tp = p.Child("template");
    for (auto& e : ValidatePodTemplate(spec.if_contains("template"), tp)) errs.push_back(std::move(e));
    const Object& pod = TemplatePodSpec(spec);
    std::string restart = StringAt(pod, "restartPolicy");
    if (spec.contains("template") && restart != "Always") {
      errs.push_back(NotSupportedError(tp.Child("spec").Child("restartPolicy"), restart, {"Always"}));
    }
    if (pod.contains("activeDeadlineSeconds")) {
      errs.push_back(ForbiddenError(tp.Child("spec").Child("activeDeadlineSeconds"),
                                    "activeDeadlineSeconds in ReplicaSet is not Supported"));
    }
  }
  for (auto& e : ValidateStrategy(spec, p.Child("strategy"))) errs.push_back(std::move(e));
  CheckNonnegative(spec, "minReadySeconds", p.Child("minReadySeconds"), errs);
  CheckNonnegative(spec, "revisionHistoryLimit", p.Child("revisionHistoryLimit"), errs);
  if (auto pds = OptInt(&spec, "progressDeadlineSeconds")) {
    CheckNonnegative(spec, "progressDeadlineSeconds", p.Child("progressDeadlineSeconds"), errs);
    if (*pds <= OptInt(&spec, "minReadySeconds").value_or(0)) {
      errs.push_back(InvalidError(p.Child("progressDeadlineSeconds"), *pds, "must be greater than minReadySeconds"));
    }
  }
  return errs;
}

ErrorList ValidateDeploymentStatus(const Object& d, const Object& old) {
  static const Object kEmpty;
  const Object* st = ObjectAt(d, "status");
  const Object& s = st ? *st : kEmpty;
  FieldPath p("status");
  ErrorList errs;
  for (const char* f : {"observedGeneration", "replicas", "updatedReplicas", "readyReplicas", "availableReplicas",
                        "unavailableReplicas", "collisionCount"}) {
    CheckNonnegative(s, f, p.Child(f), errs);
  }
  int64_t replicas = IntAt(s, "replicas");
  const std::string msg = "cannot be greater than status.replicas";
  if (IntAt(s, "updatedReplicas") > replicas) errs.push_back(InvalidError(p.Child("updatedReplicas"), IntAt(s, "updatedReplicas"), msg));
  if (IntAt(s, "readyReplicas") > replicas) errs.push_back(InvalidError(p.Child("readyReplicas"), IntAt(s, "readyReplicas"), msg));
  if (IntAt(s, "availableReplicas") > replicas) {
    errs.push_back(InvalidError(p.Child("availableReplicas"), IntAt(s, "availableReplicas"), msg));
  }
  if (IntAt(s, "availableReplicas") > IntAt(s, "readyReplicas")) {
    errs.push_back(InvalidError(p.Child("availableReplicas"), IntAt(s, "availableReplicas"), "cannot be greater than readyReplicas"));
  }
  const Object* os = ObjectAt(old, "status");
  auto before = OptInt(os, "collisionCount");
  auto now = OptInt(&s, "collisionCount");
  if (before && (!now || *now < *before)) {
    errs.push_back(InvalidError(p.Child("collisionCount"), now.value_or(0), "cannot be decremented"));
  }
  return errs;
}

class DeploymentStrategy : public registry::DefaultStrategy {
 public:
  DeploymentStrategy() : DefaultStrategy(Options{.has_status = true, .track_generation = true}) {}

  void PrepareForCreate(const registry::Context& ctx, Object& d) const override {
    DefaultDeployment(d);
    DefaultStrategy::PrepareForCreate(ctx, d);
  }
  void PrepareForUpdate(const registry::Context&, Object& d, const Object& old) const override {
    DefaultDeployment(d);
    if (const auto* s = old.if_contains("status")) {
      d["status"] = *s;
    } else {
      d.erase("status");
    }
    // Spec changes, and annotation changes (they are copied to the ReplicaSets), bump the generation.
    int64_t gen = am::GetGeneration(old);
    const json::value* annotations = PathAt(d, {"metadata", "annotations"});
    const json::value* old_annotations = PathAt(old, {"metadata", "annotations"});
    bool annotations_changed = (annotations ? *annotations : json::value(json::object())) !=
                               (old_annotations ? *old_annotations : json::value(json::object()));
    if (registry::SpecChanged(d, old) || annotations_changed) ++gen;
    am::SetGeneration(d, gen == 0 ? 1 : gen);
  }
  ErrorList Validate(const registry::Context&, const Object& d) const override { return ValidateDeploymentSpec(d); }
  ErrorList ValidateUpdate(const registry::Context&, const Object& d, const Object& old) const override {
    ErrorList errs = ValidateDeploymentSpec(d);
    static const Object kEmpty;
    const Object* spec = ObjectAt(d, "spec");
    const Object* old_spec = ObjectAt(old, "spec");
    for (auto& e : ValidateImmutableSelector(spec ? *spec : kEmpty, old_spec ? *old_spec : kEmpty,
                                             FieldPath("spec").Child("selector"))) {
      errs.push_back(std::move(e));
    }
    return errs;
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Ready", "string", "", "Number of the pod with ready state", 0},
            {"Up-to-date", "string", "",
             "Total number of non-terminated pods targeted by this deployment that have the desired template spec.", 0},
            {"Available", "string", "",
             "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.", 0},
            registry::AgeColumn(),
            {"Containers", "string", "", "Names of each container in the template.", 1},
            {"Images", "string", "", "Images referenced by each container in the template.", 1},
            {"Selector", "string", "",
             "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected "
             "by this deployment.",
             1}};
  }
  json::array TableCells(const Object& d) const override {
    static const Object kEmpty;
    const Object* sp = ObjectAt(d, "spec");
    const Object& spec = sp ? *sp : kEmpty;
    const Object* st = ObjectAt(d, "status");
    const Object& status = st ? *st : kEmpty;
    auto [names, images] = ContainerCells(TemplatePodSpec(spec));
    std::string ready = std::to_string(IntAt(status, "readyReplicas")) + "/" + std::to_string(IntAt(spec, "replicas"));
    return {json::value(am::GetName(d)),        json::value(ready),  IntAt(status, "updatedReplicas"),
            IntAt(status, "availableReplicas"), json::value(AgeCell(d)), json::value(names),
            json::value(images),                json::value(SelectorString(spec.if_contains("selector")))};
  }
};

}  // namespace

std::vector<registry::RestResource> Deployments(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"apps", "v1", "deployments", "deployment", "Deployment", true, {"deploy"}, {"all"},
                        "io.k8s.api.apps.v1.Deployment"});
  auto strategy = std::make_shared<DeploymentStrategy>();
  spec.strategy = strategy;
  spec.has_status = false;
  auto out = registry::MakeResource(deps, spec);
  // kube's deployment status strategy: spec and labels come from the stored object.
  AddStatus(out, std::make_shared<WorkloadStatusStrategy>(strategy, true, ValidateDeploymentStatus));
  AddScale(deps, out);
  return out;
}

}  // namespace capstan::api::apps
