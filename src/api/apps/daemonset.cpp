// api/apps/daemonset.cpp: apps/v1 DaemonSets: kube's SetDefaults_DaemonSet (RollingUpdate with
// maxUnavailable 1 and maxSurge 0, revisionHistoryLimit 10) and pod template defaults, the template
// generation kept in the deprecated.daemonset.template.generation annotation (1 on create, +1 with
// every template change, as kube's strategy and v1 conversion do), kube's ValidateDaemonSet(Update),
// generation bumps on spec changes, the status subresource and kube's printer (NAME DESIRED CURRENT
// READY UP-TO-DATE AVAILABLE NODE SELECTOR AGE, wide CONTAINERS IMAGES SELECTOR). DaemonSets have no
// scale subresource in kube.
#include <charconv>

#include "api/apps/apps.h"
#include "api/apps/pod_template.h"
#include "api/apps/workload_util.h"
#include "api/common.h"
#include "apimachinery/labels.h"
#include "apimachinery/object_meta.h"
#include "util/strings.h"

namespace capstan::api::apps {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

constexpr std::string_view kTemplateGeneration = "deprecated.daemonset.template.generation";
const Object kEmpty;

const Object& Spec(const Object& o) {
  const Object* s = ObjectAt(o, "spec");
  return s ? *s : kEmpty;
}

int64_t TemplateGeneration(const Object& ds) {
  auto v = am::GetAnnotations(ds);
  for (const auto& [k, val] : v) {
    if (k != kTemplateGeneration) continue;
    int64_t n = 0;
    auto r = std::from_chars(val.data(), val.data() + val.size(), n);
    return r.ec == std::errc() && r.ptr == val.data() + val.size() ? n : 0;
  }
  return 0;
}

void DefaultDaemonSet(Object& ds) {
  json::object& spec = ChildObject(ds, "spec");
  json::object& us = ChildObject(spec, "updateStrategy");
  if (StringAt(us, "type").empty()) us["type"] = "RollingUpdate";
  if (StringAt(us, "type") == "RollingUpdate") {
    json::object& ru = ChildObject(us, "rollingUpdate");
    if (!ru.contains("maxUnavailable") || ru["maxUnavailable"].is_null()) ru["maxUnavailable"] = 1;
    if (!ru.contains("maxSurge") || ru["maxSurge"].is_null()) ru["maxSurge"] = 0;
  }
  if (!spec.contains("revisionHistoryLimit") || spec["revisionHistoryLimit"].is_null()) spec["revisionHistoryLimit"] = 10;
  DefaultPodTemplate(ChildObject(spec, "template"));
}

std::string FormatLabels(const json::value* m) {
  if (!m || !m->is_object() || m->get_object().empty()) return "<none>";
  std::vector<std::pair<std::string, std::string>> kv;
  for (const auto& e : m->get_object()) {
    kv.emplace_back(std::string(e.key()), e.value().is_string() ? std::string(e.value().get_string()) : "");
  }
  std::sort(kv.begin(), kv.end());
  std::vector<std::string> parts;
  for (const auto& [k, v] : kv) parts.push_back(k + "=" + v);
  return Join(parts, ",");
}

ErrorList ValidateUpdateStrategy(const Object& spec, const FieldPath& p) {
  ErrorList errs;
  const Object* us = ObjectAt(spec, "updateStrategy");
  std::string type = us ? StringAt(*us, "type") : "";
  const Object* ru = us ? ObjectAt(*us, "rollingUpdate") : nullptr;
  if (type == "OnDelete") return errs;
  if (type == "RollingUpdate") {
    if (!ru) {
      errs.push_back(RequiredError(p.Child("rollingUpdate"), ""));
      return errs;
    }
    FieldPath rp = p.Child("rollingUpdate");
    const json::value zero(0);
    const json::value* mu = ru->if_contains("maxUnavailable");
    const json::value* ms = ru->if_contains("maxSurge");
    const json::value& mu_v = mu ? *mu : zero;
    const json::value& ms_v = ms ? *ms : zero;
    for (auto& e : ValidatePositiveIntOrPercent(mu_v, rp.Child("maxUnavailable"))) errs.push_back(std::move(e));
    for (auto& e : ValidatePositiveIntOrPercent(ms_v, rp.Child("maxSurge"))) errs.push_back(std::move(e));
    for (auto& e : IsNotMoreThan100Percent(mu_v, rp.Child("maxUnavailable"))) errs.push_back(std::move(e));
    for (auto& e : IsNotMoreThan100Percent(ms_v, rp.Child("maxSurge"))) errs.push_back(std::move(e));
    bool has_unavailable = IntOrPercentValue(&mu_v) != 0;
    bool has_surge = IntOrPercentValue(&ms_v) != 0;
    if (has_unavailable && has_surge) {
      errs.push_back(InvalidRendered(rp.Child("maxSurge"), GoIntOrString(ms_v), "may not be set when maxUnavailable is non-zero"));
    } else if (!has_unavailable && !has_surge) {
      errs.push_back(RequiredError(rp.Child("maxUnavailable"), "cannot be 0 when maxSurge is 0"));
    }
    return errs;
  }
  FieldError e = NotSupportedError(p, "", {"RollingUpdate", "OnDelete"});
  e.omit_value = true;
  e.detail = "apps.DaemonSetUpdateStrategy{Type:" + GoQuote(type) + ", RollingUpdate:(*apps.RollingUpdateDaemonSet)" +
             (ru ? "(0xc000000000)" : "(nil)") + "}: " + e.detail;
  errs.push_back(std::move(e));
  return errs;
}

ErrorList ValidateDaemonSetSpec(const Object& ds) {
  const Object& spec = Spec(ds);
  FieldPath p("spec");
  ErrorList errs;
  const json::value* sel = spec.if_contains("selector");
  if (sel && sel->is_null()) sel = nullptr;
  if (sel) {
    for (auto& e : am::ValidateLabelSelector(*sel, p.Child("selector"))) errs.push_back(std::move(e));
  }
  auto selector = am::LabelSelectorFromJson(sel);
  const json::value* labels = TemplateLabels(spec);
  if (selector.ok() && !selector->Matches(labels && labels->is_object() ? &labels->get_object() : nullptr)) {
    errs.push_back(InvalidRendered(p.Child("template").Child("metadata").Child("labels"), GoStringMap(labels),
                                   "`selector` does not match template `labels`"));
  }
  if (sel && sel->is_object() && CountAt(sel->get_object(), "matchLabels") + CountAt(sel->get_object(), "matchExpressions") == 0) {
    errs.push_back(InvalidRendered(p.Child("selector"), GoLabelSelector(sel), "empty selector is invalid for daemonset"));
  }
  FieldPath tp = p.Child("template");
  for (auto& e : ValidatePodTemplate(spec.if_contains("template"), tp)) errs.push_back(std::move(e));
  const Object& pod = TemplatePodSpec(spec);
  std::string restart = StringAt(pod, "restartPolicy");
  if (restart != "Always") errs.push_back(NotSupportedError(tp.Child("spec").Child("restartPolicy"), restart, {"Always"}));
  if (pod.contains("activeDeadlineSeconds")) {
    errs.push_back(ForbiddenError(tp.Child("spec").Child("activeDeadlineSeconds"),
                                  "activeDeadlineSeconds in DaemonSet is not Supported"));
  }
  CheckNonnegative(spec, "minReadySeconds", p.Child("minReadySeconds"), errs);
  for (auto& e : ValidateUpdateStrategy(spec, p.Child("updateStrategy"))) errs.push_back(std::move(e));
  CheckNonnegative(spec, "revisionHistoryLimit", p.Child("revisionHistoryLimit"), errs);
  return errs;
}

ErrorList ValidateDaemonSetStatus(const Object& ds, const Object& old) {
  const Object* st = ObjectAt(ds, "status");
  const Object& s = st ? *st : kEmpty;
  FieldPath p("status");
  ErrorList errs;
  for (const char* f : {"currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady",
                        "observedGeneration", "updatedNumberScheduled", "numberAvailable", "numberUnavailable",
                        "collisionCount"}) {
    CheckNonnegative(s, f, p.Child(f), errs);
  }
  auto before = OptInt(ObjectAt(old, "status"), "collisionCount");
  auto now = OptInt(&s, "collisionCount");
  if (before && (!now || *now < *before)) {
    errs.push_back(InvalidError(p.Child("collisionCount"), now.value_or(0), "cannot be decremented"));
  }
  return errs;
}

class DaemonSetStrategy : public registry::DefaultStrategy {
 public:
  DaemonSetStrategy() : DefaultStrategy(Options{.has_status = true, .track_generation = true}) {}

  void PrepareForCreate(const registry::Context& ctx, Object& ds) const override {
    DefaultDaemonSet(ds);
    DefaultStrategy::PrepareForCreate(ctx, ds);
    int64_t tg = TemplateGeneration(ds);
    am::SetAnnotation(ds, kTemplateGeneration, std::to_string(tg < 1 ? 1 : tg));
  }
  void PrepareForUpdate(const registry::Context&, Object& ds, const Object& old) const override {
    DefaultDaemonSet(ds);
    if (const auto* s = old.if_contains("status")) {
      ds["status"] = *s;
    } else {
      ds.erase("status");
    }
    int64_t tg = TemplateGeneration(old);
    int64_t gen = am::GetGeneration(old);
    const json::value* tmpl = Spec(ds).if_contains("template");
    const json::value* old_tmpl = Spec(old).if_contains("template");
    if ((tmpl ? *tmpl : json::value()) != (old_tmpl ? *old_tmpl : json::value())) {
      ++tg;
      ++gen;
    } else if (registry::SpecChanged(ds, old)) {
      ++gen;
    }
    am::SetAnnotation(ds, kTemplateGeneration, std::to_string(tg));
    am::SetGeneration(ds, gen == 0 ? 1 : gen);
  }
  ErrorList Validate(const registry::Context&, const Object& ds) const override { return ValidateDaemonSetSpec(ds); }
  ErrorList ValidateUpdate(const registry::Context&, const Object& ds, const Object& old) const override {
    ErrorList errs = ValidateDaemonSetSpec(ds);
    for (auto& e : ValidateImmutableSelector(Spec(ds), Spec(old), FieldPath("spec").Child("selector"))) {
      errs.push_back(std::move(e));
    }
    return errs;
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Desired", "integer", "",
             "The total number of nodes that should be running the daemon pod (including nodes correctly running the "
             "daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/",
             0},
            {"Current", "integer", "",
             "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More "
             "info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/",
             0},
            {"Ready", "integer", "",
             "The number of nodes that should be running the daemon pod and have one or more of the daemon pod "
             "running and ready.",
             0},
            {"Up-to-date", "integer", "", "The total number of nodes that are running updated daemon pod", 0},
            {"Available", "integer", "",
             "The number of nodes that should be running the daemon pod and have one or more of the daemon pod "
             "running and available (ready for at least spec.minReadySeconds)",
             0},
            {"Node Selector", "string", "",
             "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a "
             "node's labels for the pod to be scheduled on that node. More info: "
             "https://kubernetes.io/docs/concepts/configuration/assign-pod-node/",
             0},
            registry::AgeColumn(),
            {"Containers", "string", "", "Names of each container in the template.", 1},
            {"Images", "string", "", "Images referenced by each container in the template.", 1},
            {"Selector", "string", "",
             "A label query over pods that are managed by the daemon set. Must match in order to be controlled. If "
             "empty, defaulted to labels on Pod template. More info: "
             "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
             1}};
  }
  json::array TableCells(const Object& ds) const override {
    const Object& spec = Spec(ds);
    const Object* st = ObjectAt(ds, "status");
    const Object& s = st ? *st : kEmpty;
    const Object& pod = TemplatePodSpec(spec);
    auto [names, images] = ContainerCells(pod);
    return {json::value(am::GetName(ds)),
            IntAt(s, "desiredNumberScheduled"),
            IntAt(s, "currentNumberScheduled"),
            IntAt(s, "numberReady"),
            IntAt(s, "updatedNumberScheduled"),
            IntAt(s, "numberAvailable"),
            json::value(FormatLabels(pod.if_contains("nodeSelector"))),
            json::value(AgeCell(ds)),
            json::value(names),
            json::value(images),
            json::value(FormatLabelSelector(spec.if_contains("selector")))};
  }
};

}  // namespace

std::vector<registry::RestResource> DaemonSets(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"apps", "v1", "daemonsets", "daemonset", "DaemonSet", true, {"ds"}, {"all"},
                        "io.k8s.api.apps.v1.DaemonSet"});
  auto strategy = std::make_shared<DaemonSetStrategy>();
  spec.strategy = strategy;
  auto out = registry::MakeResource(deps, spec);
  AddStatus(out, std::make_shared<WorkloadStatusStrategy>(strategy, false, ValidateDaemonSetStatus));
  return out;
}

}  // namespace capstan::api::apps
