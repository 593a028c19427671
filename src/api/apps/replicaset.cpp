// api/apps/replicaset.cpp: apps/v1 ReplicaSets: kube's SetDefaults_ReplicaSet (replicas 1) and pod
// template defaults, kube's ValidateReplicaSet(Update) (selector required, matching the template,
// immutable), generation bumps on spec changes, status (and kube's status validation) and scale
// subresources, the status.replicas field selector and kube's printer (NAME DESIRED CURRENT READY AGE,
// wide CONTAINERS IMAGES SELECTOR).
#include "api/apps/apps.h"
#include "api/apps/pod_template.h"
#include "api/apps/workload_util.h"
#include "api/common.h"
#include "apimachinery/object_meta.h"

namespace capstan::api::apps {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

const Object kEmpty;

const Object& Spec(const Object& o) {
  const Object* s = ObjectAt(o, "spec");
  return s ? *s : kEmpty;
}
const Object& StatusOf(const Object& o) {
  const Object* s = ObjectAt(o, "status");
  return s ? *s : kEmpty;
}

void DefaultReplicaSet(Object& rs) {
  json::object& spec = ChildObject(rs, "spec");
  if (!spec.contains("replicas") || spec["replicas"].is_null()) spec["replicas"] = 1;
  DefaultPodTemplate(ChildObject(spec, "template"));
}

ErrorList ValidateReplicaSetSpec(const Object& rs) {
  const Object& spec = Spec(rs);
  FieldPath p("spec");
  ErrorList errs;
  CheckNonnegative(spec, "replicas", p.Child("replicas"), errs);
  CheckNonnegative(spec, "minReadySeconds", p.Child("minReadySeconds"), errs);
  bool parsed = false;
  // kube's ReplicaSet validation says "deployment" here too.
  for (auto& e : ValidateSelectorAndTemplate(spec, p, "deployment", "invalid label selector", &parsed)) {
    errs.push_back(std::move(e));
  }
  if (parsed) {
    FieldPath tp = p.Child("template");
    for (auto& e : ValidatePodTemplate(spec.if_contains("template"), tp)) errs.push_back(std::move(e));
    const Object& pod = TemplatePodSpec(spec);
    std::string restart = StringAt(pod, "restartPolicy");
    if (restart != "Always") errs.push_back(NotSupportedError(tp.Child("spec").Child("restartPolicy"), restart, {"Always"}));
    if (pod.contains("activeDeadlineSeconds")) {
      errs.push_back(ForbiddenError(tp.Child("spec").Child("activeDeadlineSeconds"),
                                    "activeDeadlineSeconds in ReplicaSet is not Supported"));
    }
  }
  return errs;
}

ErrorList ValidateReplicaSetStatus(const Object& rs, const Object&) {
  const Object& s = StatusOf(rs);
  FieldPath p("status");
  ErrorList errs;
  for (const char* f : {"replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas", "observedGeneration"}) {
    CheckNonnegative(s, f, p.Child(f), errs);
  }
  int64_t replicas = IntAt(s, "replicas");
  const std::string msg = "cannot be greater than status.replicas";
  for (const char* f : {"fullyLabeledReplicas", "readyReplicas", "availableReplicas"}) {
    if (IntAt(s, f) > replicas) errs.push_back(InvalidError(p.Child(f), IntAt(s, f), msg));
  }
  if (IntAt(s, "availableReplicas") > IntAt(s, "readyReplicas")) {
    errs.push_back(InvalidError(p.Child("availableReplicas"), IntAt(s, "availableReplicas"), "cannot be greater than readyReplicas"));
  }
  return errs;
}

class ReplicaSetStrategy : public registry::DefaultStrategy {
 public:
  ReplicaSetStrategy() : DefaultStrategy(Options{.has_status = true, .track_generation = true}) {}

  void PrepareForCreate(const registry::Context& ctx, Object& rs) const override {
    DefaultReplicaSet(rs);
    DefaultStrategy::PrepareForCreate(ctx, rs);
  }
  void PrepareForUpdate(const registry::Context& ctx, Object& rs, const Object& old) const override {
    DefaultReplicaSet(rs);
    DefaultStrategy::PrepareForUpdate(ctx, rs, old);
  }
  ErrorList Validate(const registry::Context&, const Object& rs) const override { return ValidateReplicaSetSpec(rs); }
  ErrorList ValidateUpdate(const registry::Context&, const Object& rs, const Object& old) const override {
    ErrorList errs = ValidateReplicaSetSpec(rs);
    for (auto& e : ValidateImmutableSelector(Spec(rs), Spec(old), FieldPath("spec").Child("selector"))) {
      errs.push_back(std::move(e));
    }
    return errs;
  }

  // apps/v1 has no field label conversion of its own: kube's default one refuses status.replicas
  // (kube's storage lists it among a ReplicaSet's fields, but no selector reaches it).

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Desired", "integer", "",
             "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and "
             "unspecified. Defaults to 1. More info: "
             "https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/"
             "#what-is-a-replicationcontroller",
             0},
            {"Current", "integer", "",
             "Replicas is the most recently observed number of replicas. More info: "
             "https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/"
             "#what-is-a-replicationcontroller",
             0},
            {"Ready", "integer", "", "The number of ready replicas for this replica set.", 0},
            registry::AgeColumn(),
            {"Containers", "string", "", "Names of each container in the template.", 1},
            {"Images", "string", "", "Images referenced by each container in the template.", 1},
            {"Selector", "string", "",
             "Selector is a label query over pods that should match the replica count. If the selector is empty, it "
             "is defaulted to the labels present on the pod template. Label keys and values that must match in order "
             "to be controlled by this replica set. More info: "
             "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
             1}};
  }
  json::array TableCells(const Object& rs) const override {
    const Object& spec = Spec(rs);
    const Object& status = StatusOf(rs);
    auto [names, images] = ContainerCells(TemplatePodSpec(spec));
    return {json::value(am::GetName(rs)), IntAt(spec, "replicas"), IntAt(status, "replicas"),
            IntAt(status, "readyReplicas"), json::value(AgeCell(rs)), json::value(names), json::value(images),
            json::value(FormatLabelSelector(spec.if_contains("selector")))};
  }
};

}  // namespace

std::vector<registry::RestResource> ReplicaSets(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"apps", "v1", "replicasets", "replicaset", "ReplicaSet", true, {"rs"}, {"all"},
                        "io.k8s.api.apps.v1.ReplicaSet"});
  auto strategy = std::make_shared<ReplicaSetStrategy>();
  spec.strategy = strategy;
  auto out = registry::MakeResource(deps, spec);
  AddStatus(out, std::make_shared<WorkloadStatusStrategy>(strategy, false, ValidateReplicaSetStatus));
  AddScale(deps, out);
  return out;
}

}  // namespace capstan::api::apps
