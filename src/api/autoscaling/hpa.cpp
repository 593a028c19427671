// api/autoscaling/hpa.cpp: HorizontalPodAutoscalers, stored as autoscaling/v2 and served in v2 (the
// preferred version) and in v1 through a ConvertingStore with kube's conversion (hpa_conversion.h).
// kube's v2 defaulting (minReplicas 1, CPU at 80% when there is no metric, the scaling behavior's
// rules), kube's ValidateHorizontalPodAutoscaler(Update) and status validation, the status
// subresource and kube's printer (NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE).
#include "api/apps/apps.h"
#include "api/apps/workload_util.h"
#include "api/autoscaling/autoscaling.h"
#include "api/autoscaling/hpa_conversion.h"
#include "api/common.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/object_meta_validation.h"
#include "apimachinery/quantity.h"
#include "apimachinery/validation.h"
#include "registry/converting_store.h"
#include "util/strings.h"

namespace capstan::api::autoscaling {

namespace am = capstan::apimachinery;
namespace json = boost::json;
using apps::ChildObject;

namespace {

const Object kEmpty;

const Object& Spec(const Object& o) {
  const Object* s = ObjectAt(o, "spec");
  return s ? *s : kEmpty;
}

bool Has(const Object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && !v->is_null();
}

json::object ScaleUpDefaults() {
  return json::parse(R"({"stabilizationWindowSeconds":0,"selectPolicy":"Max","policies":[)"
                     R"({"type":"Pods","value":4,"periodSeconds":15},{"type":"Percent","value":100,"periodSeconds":15}]})")
      .as_object();
}

json::object ScaleDownDefaults() {
  return json::parse(R"({"selectPolicy":"Max","policies":[{"type":"Percent","value":100,"periodSeconds":15}]})").as_object();
}

// kube's GenerateHPAScale{Up,Down}Rules: the defaults with the fields the user set (all of them, so
// fields newer than these defaults stay).
void FillRules(json::object& behavior, std::string_view key, json::object defaults) {
  const json::value* given = behavior.if_contains(key);
  if (given && given->is_object()) {
    for (const auto& kv : given->get_object()) {
      if (!kv.value().is_null()) defaults[kv.key()] = kv.value();
    }
  }
  behavior[key] = std::move(defaults);
}

void DefaultHpa(Object& hpa) {
  json::object& spec = ChildObject(hpa, "spec");
  if (!Has(spec, "minReplicas")) spec["minReplicas"] = 1;
  if (CountAt(spec, "metrics") == 0) {
    spec["metrics"] = json::parse(R"([{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization",)"
                                  R"("averageUtilization":80}}}])");
  }
  if (auto* b = spec.if_contains("behavior"); b && b->is_object()) {
    FillRules(b->get_object(), "scaleUp", ScaleUpDefaults());
    FillRules(b->get_object(), "scaleDown", ScaleDownDefaults());
  }
}

// --- validation (kube's pkg/apis/autoscaling/validation) ---

void ValidateCrossVersionRef(const Object* ref, const FieldPath& p, ErrorList& errs) {
  std::string kind = ref ? StringAt(*ref, "kind") : "";
  std::string name = ref ? StringAt(*ref, "name") : "";
  if (kind.empty()) {
    errs.push_back(RequiredError(p.Child("kind"), ""));
  } else {
    for (const auto& m : am::IsPathSegmentName(kind)) errs.push_back(InvalidError(p.Child("kind"), kind, m));
  }
  if (name.empty()) {
    errs.push_back(RequiredError(p.Child("name"), ""));
  } else {
    for (const auto& m : am::IsPathSegmentName(name)) errs.push_back(InvalidError(p.Child("name"), name, m));
  }
}

std::string QuantityText(const json::value* v) {
  if (!v) return "";
  auto q = am::ParseQuantityJson(*v);
  if (q.ok()) return q->String();
  return v->is_string() ? std::string(v->get_string()) : json::serialize(*v);
}

bool PositiveQuantity(const json::value* v) {
  auto q = am::ParseQuantityJson(*v);
  return q.ok() && q->Sign() == 1;
}

void ValidateMetricTarget(const Object* t, const FieldPath& p, ErrorList& errs) {
  std::string type = t ? StringAt(*t, "type") : "";
  if (type.empty()) errs.push_back(RequiredError(p.Child("type"), "must specify a metric target type"));
  if (type != "Utilization" && type != "Value" && type != "AverageValue") {
    errs.push_back(InvalidError(p.Child("type"), type, "must be either Utilization, Value, or AverageValue"));
  }
  if (!t) return;
  // Quantities print with their String() method.
  if (const auto* v = t->if_contains("value"); v && !v->is_null() && !PositiveQuantity(v)) {
    errs.push_back(apps::InvalidRendered(p.Child("value"), QuantityText(v), "must be positive"));
  }
  if (const auto* v = t->if_contains("averageValue"); v && !v->is_null() && !PositiveQuantity(v)) {
    errs.push_back(apps::InvalidRendered(p.Child("averageValue"), QuantityText(v), "must be positive"));
  }
  if (auto u = apps::OptInt(t, "averageUtilization"); u && *u < 1) {
    errs.push_back(InvalidError(p.Child("averageUtilization"), *u, "must be greater than 0"));
  }
}

void ValidateMetricId(const Object* id, const FieldPath& p, ErrorList& errs) {
  std::string name = id ? StringAt(*id, "name") : "";
  if (name.empty()) {
    errs.push_back(RequiredError(p.Child("name"), "must specify a metric name"));
  } else {
    for (const auto& m : am::IsPathSegmentName(name)) errs.push_back(InvalidError(p.Child("name"), name, m));
  }
}

void ValidateSource(std::string_view kind, const Object& src, const FieldPath& p, ErrorList& errs) {
  const Object* target = ObjectAt(src, "target");
  FieldPath tp = p.Child("target");
  auto has = [&](const char* f) { return target && Has(*target, f); };
  if (kind == "object") {
    ValidateCrossVersionRef(ObjectAt(src, "describedObject"), p.Child("describedObject"), errs);
    ValidateMetricId(ObjectAt(src, "metric"), p.Child("metric"), errs);
    ValidateMetricTarget(target, tp, errs);
    if (!has("value") && !has("averageValue")) {
      errs.push_back(RequiredError(tp.Child("averageValue"), "must set either a target value or averageValue"));
    }
  } else if (kind == "external") {
    ValidateMetricId(ObjectAt(src, "metric"), p.Child("metric"), errs);
    ValidateMetricTarget(target, tp, errs);
    if (!has("value") && !has("averageValue")) {
      errs.push_back(RequiredError(tp.Child("averageValue"), "must set either a target value for metric or a per-pod target"));
    }
    if (has("value") && has("averageValue")) {
      errs.push_back(ForbiddenError(tp.Child("value"), "may not set both a target value for metric and a per-pod target"));
    }
  } else if (kind == "pods") {
    ValidateMetricId(ObjectAt(src, "metric"), p.Child("metric"), errs);
    ValidateMetricTarget(target, tp, errs);
    if (!has("averageValue")) errs.push_back(RequiredError(tp.Child("averageValue"), "must specify a positive target averageValue"));
  } else {  // resource, containerResource
    std::string name = StringAt(src, "name");
    if (name.empty()) errs.push_back(RequiredError(p.Child("name"), "must specify a resource name"));
    if (kind == "containerResource") {
      std::string container = StringAt(src, "container");
      if (container.empty()) {
        errs.push_back(RequiredError(p.Child("container"), "must specify a container"));
      } else {
        for (const auto& m : am::IsDNS1123Label(container)) errs.push_back(InvalidError(p.Child("container"), container, m));
      }
    }
    ValidateMetricTarget(target, tp, errs);
    if (!has("averageUtilization") && !has("averageValue")) {
      errs.push_back(RequiredError(tp.Child("averageUtilization"), "must set either a target raw value or a target utilization"));
    }
    if (has("averageUtilization") && has("averageValue")) {
      errs.push_back(ForbiddenError(tp.Child("averageValue"), "may not set both a target raw value and a target utilization"));
    }
  }
}

void ValidateMetricSpec(const Object& m, const FieldPath& p, ErrorList& errs) {
  static const std::vector<std::string> kTypes = {"ContainerResource", "External", "Object", "Pods", "Resource"};
  std::string type = StringAt(m, "type");
  if (type.empty()) errs.push_back(RequiredError(p.Child("type"), "must specify a metric source type"));
  if (std::find(kTypes.begin(), kTypes.end(), type) == kTypes.end()) {
    errs.push_back(NotSupportedError(p.Child("type"), type, kTypes));
  }
  std::vector<std::string> present;
  for (const char* kind : {"object", "external", "pods", "resource", "containerResource"}) {
    const Object* src = ObjectAt(m, kind);
    if (!src) continue;
    present.push_back(kind);
    if (present.size() == 1) ValidateSource(kind, *src, p.Child(kind), errs);
  }
  std::string expected;
  if (type == "Object") expected = "object";
  else if (type == "Pods") expected = "pods";
  else if (type == "Resource") expected = "resource";
  else if (type == "External") expected = "external";
  else if (type == "ContainerResource") expected = "containerResource";
  if (expected.empty()) {
    errs.push_back(NotSupportedError(p.Child("type"), type, kTypes));
  } else if (!ObjectAt(m, expected)) {
    errs.push_back(RequiredError(p.Child(expected), "must populate information for the given metric source"));
  }
  if (present.size() != 1) {
    std::sort(present.begin(), present.end());
    for (const auto& k : present) {
      if (k != expected) errs.push_back(ForbiddenError(p.Child(k), "must populate the given metric source only"));
    }
  }
}

void ValidateScalingRules(const Object* rules, const FieldPath& p, ErrorList& errs) {
  if (!rules) return;
  if (auto w = apps::OptInt(rules, "stabilizationWindowSeconds")) {
    if (*w < 0) errs.push_back(InvalidError(p.Child("stabilizationWindowSeconds"), *w, "must be greater than or equal to zero"));
    if (*w > 3600) errs.push_back(InvalidError(p.Child("stabilizationWindowSeconds"), *w, "must be less than or equal to 3600"));
  }
  if (const auto* sp = rules->if_contains("selectPolicy"); sp && sp->is_string()) {
    std::string v(sp->get_string());
    if (v != "Max" && v != "Min" && v != "Disabled") {
      errs.push_back(NotSupportedError(p.Child("selectPolicy"), v, {"Disabled", "Max", "Min"}));
    }
  }
  const json::array* policies = ArrayAt(*rules, "policies");
  if (!policies || policies->empty()) errs.push_back(RequiredError(p.Child("policies"), "must specify at least one Policy"));
  if (!policies) return;
  for (size_t i = 0; i < policies->size(); ++i) {
    if (!(*policies)[i].is_object()) continue;
    const Object& pol = (*policies)[i].get_object();
    FieldPath pp = p.Child("policies").Index(i);
    std::string type = StringAt(pol, "type");
    if (type != "Pods" && type != "Percent") errs.push_back(NotSupportedError(pp.Child("type"), type, {"Percent", "Pods"}));
    int64_t value = IntAt(pol, "value");
    if (value <= 0) errs.push_back(InvalidError(pp.Child("value"), value, "must be greater than zero"));
    int64_t period = IntAt(pol, "periodSeconds");
    if (period <= 0) errs.push_back(InvalidError(pp.Child("periodSeconds"), period, "must be greater than zero"));
    if (period > 1800) errs.push_back(InvalidError(pp.Child("periodSeconds"), period, "must be less than or equal to 1800"));
  }
}

ErrorList ValidateHpaSpec(const Object& hpa, int64_t min_replicas_lower_bound) {
  const Object& spec = Spec(hpa);
  FieldPath p("spec");
  ErrorList errs;
  auto min = apps::OptInt(&spec, "minReplicas");
  int64_t max = IntAt(spec, "maxReplicas");
  if (min && *min < min_replicas_lower_bound) {
    errs.push_back(InvalidError(p.Child("minReplicas"), *min,
                                "must be greater than or equal to " + std::to_string(min_replicas_lower_bound)));
  }
  if (max < 1) errs.push_back(InvalidError(p.Child("maxReplicas"), max, "must be greater than 0"));
  if (min && max < *min) errs.push_back(InvalidError(p.Child("maxReplicas"), max, "must be greater than or equal to `minReplicas`"));
  ValidateCrossVersionRef(ObjectAt(spec, "scaleTargetRef"), p.Child("scaleTargetRef"), errs);
  bool object_or_external = false;
  if (const json::array* metrics = ArrayAt(spec, "metrics")) {
    for (size_t i = 0; i < metrics->size(); ++i) {
      if (!(*metrics)[i].is_object()) continue;
      const Object& m = (*metrics)[i].get_object();
      ValidateMetricSpec(m, p.Child("metrics").Index(i), errs);
      std::string type = StringAt(m, "type");
      if (type == "Object" || type == "External") object_or_external = true;
    }
  }
  if (min && *min == 0 && !object_or_external) {
    errs.push_back(ForbiddenError(p.Child("metrics"),
                                  "must specify at least one Object or External metric to support scaling to zero replicas"));
  }
  if (const Object* b = ObjectAt(spec, "behavior")) {
    ValidateScalingRules(ObjectAt(*b, "scaleUp"), p.Child("behavior").Child("scaleUp"), errs);
    ValidateScalingRules(ObjectAt(*b, "scaleDown"), p.Child("behavior").Child("scaleDown"), errs);
  }
  return errs;
}

ErrorList ValidateHpaStatus(const Object& hpa, const Object&) {
  const Object* st = ObjectAt(hpa, "status");
  const Object& s = st ? *st : kEmpty;
  ErrorList errs;
  apps::CheckNonnegative(s, "currentReplicas", FieldPath("status").Child("currentReplicas"), errs);
  apps::CheckNonnegative(s, "desiredReplicas", FieldPath("status").Child("desiredReplicas"), errs);
  return errs;
}

// kube's formatHPAMetrics.
std::string FormatMetrics(const Object& hpa) {
  const json::array* specs = ArrayAt(Spec(hpa), "metrics");
  if (!specs || specs->empty()) return "<none>";
  const json::value* st = PathAt(hpa, {"status", "currentMetrics"});
  const json::array* statuses = st && st->is_array() ? &st->get_array() : nullptr;
  auto status_of = [&](size_t i, const char* kind) -> const Object* {
    if (!statuses || i >= statuses->size() || !(*statuses)[i].is_object()) return nullptr;
    return ObjectAt((*statuses)[i].get_object(), kind);
  };
  auto current = [&](const Object* s, const char* field) -> const json::value* {
    const Object* cur = s ? ObjectAt(*s, "current") : nullptr;
    const json::value* v = cur ? cur->if_contains(field) : nullptr;
    return v && !v->is_null() ? v : nullptr;
  };
  std::vector<std::string> list;
  size_t count = 0;
  for (size_t i = 0; i < specs->size(); ++i) {
    const Object& m = (*specs)[i].is_object() ? (*specs)[i].get_object() : kEmpty;
    std::string type = StringAt(m, "type");
    if (type == "External" || type == "Object") {
      const char* kind = type == "External" ? "external" : "object";
      const Object* src = ObjectAt(m, kind);
      const Object* target = src ? ObjectAt(*src, "target") : nullptr;
      const json::value* avg = target && Has(*target, "averageValue") ? target->if_contains("averageValue") : nullptr;
      const Object* s = status_of(i, kind);
      if (avg) {
        std::string cur = "<unknown>";
        if (const auto* v = current(s, "averageValue")) cur = QuantityText(v);
        list.push_back(cur + "/" + QuantityText(avg) + " (avg)");
      } else {
        std::string cur = "<unknown>";
        if (s) cur = QuantityText(current(s, "value"));
        list.push_back(cur + "/" + QuantityText(target ? target->if_contains("value") : nullptr));
      }
    } else if (type == "Pods") {
      const Object* src = ObjectAt(m, "pods");
      const Object* target = src ? ObjectAt(*src, "target") : nullptr;
      const Object* s = status_of(i, "pods");
      std::string cur = "<unknown>";
      if (s) cur = QuantityText(current(s, "averageValue"));
      list.push_back(cur + "/" + QuantityText(target ? target->if_contains("averageValue") : nullptr));
    } else if (type == "Resource" || type == "ContainerResource") {
      const char* kind = type == "Resource" ? "resource" : "containerResource";
      const Object* src = ObjectAt(m, kind);
      const Object* target = src ? ObjectAt(*src, "target") : nullptr;
      std::string name = src ? StringAt(*src, "name") : "";
      const Object* s = status_of(i, kind);
      if (target && Has(*target, "averageValue")) {
        std::string cur = "<unknown>";
        if (s) cur = QuantityText(current(s, "averageValue"));
        list.push_back(name + ": " + cur + "/" + QuantityText(target->if_contains("averageValue")));
      } else {
        std::string cur = "<unknown>";
        if (const auto* u = current(s, "averageUtilization")) cur = std::to_string(u->is_int64() ? u->get_int64() : 0) + "%";
        std::string tgt = "<auto>";
        if (auto u = apps::OptInt(target, "averageUtilization")) tgt = std::to_string(*u) + "%";
        list.push_back(name + ": " + cur + "/" + tgt);
      }
    } else {
      list.push_back("<unknown type>");
    }
    ++count;
  }
  constexpr size_t kMax = 2;
  bool more = count > kMax;
  if (more) list.resize(kMax);
  std::string ret = Join(list, ", ");
  if (more) ret += " + " + std::to_string(count - kMax) + " more...";
  return ret;
}

class HpaStrategy : public registry::DefaultStrategy {
 public:
  HpaStrategy() : DefaultStrategy(Options{.has_status = true}) {}

  void PrepareForCreate(const registry::Context& ctx, Object& hpa) const override {
    DefaultHpa(hpa);
    DefaultStrategy::PrepareForCreate(ctx, hpa);
  }
  void PrepareForUpdate(const registry::Context& ctx, Object& hpa, const Object& old) const override {
    DefaultHpa(hpa);
    DefaultStrategy::PrepareForUpdate(ctx, hpa, old);
  }
  ErrorList Validate(const registry::Context&, const Object& hpa) const override { return ValidateHpaSpec(hpa, 1); }
  ErrorList ValidateUpdate(const registry::Context&, const Object& hpa, const Object& old) const override {
    // An object that already scales to zero keeps being allowed to.
    auto old_min = apps::OptInt(&Spec(old), "minReplicas");
    return ValidateHpaSpec(hpa, old_min && *old_min == 0 ? 0 : 1);
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Reference", "string", "",
             "scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should "
             "be collected, as well as to actually change the replica count.",
             0},
            {"Targets", "string", "",
             "metrics contains the specifications for which to use to calculate the desired replica count (the maximum "
             "replica count across all metrics will be used).  The desired replica count is calculated multiplying the "
             "ratio between the target value and the current value by the current number of pods.  Ergo, metrics used "
             "must decrease as the pod count is increased, and vice-versa.  See the individual metric source types for "
             "more information about how each type of metric must respond.",
             0},
            {"MinPods", "string", "",
             "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It "
             "defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled "
             "and at least one Object or External metric is configured.  Scaling is active as long as at least one "
             "metric value is available.",
             0},
            {"MaxPods", "string", "",
             "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It cannot "
             "be less that minReplicas.",
             0},
            {"Replicas", "string", "",
             "currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the "
             "autoscaler.",
             0},
            registry::AgeColumn()};
  }
  json::array TableCells(const Object& hpa) const override {
    const Object& spec = Spec(hpa);
    const Object* ref = ObjectAt(spec, "scaleTargetRef");
    std::string reference = (ref ? StringAt(*ref, "kind") : "") + "/" + (ref ? StringAt(*ref, "name") : "");
    std::string min = "<unset>";
    if (auto m = apps::OptInt(&spec, "minReplicas")) min = std::to_string(*m);
    const Object* st = ObjectAt(hpa, "status");
    return {json::value(am::GetName(hpa)), json::value(reference), json::value(FormatMetrics(hpa)),
            json::value(min),              IntAt(spec, "maxReplicas"), st ? IntAt(*st, "currentReplicas") : 0,
            json::value(AgeCell(hpa))};
  }
};

}  // namespace

std::vector<registry::RestResource> HorizontalPodAutoscalers(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"autoscaling", "v2", "horizontalpodautoscalers", "horizontalpodautoscaler",
                        "HorizontalPodAutoscaler", true, {"hpa"}, {"all"},
                        "io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler"});
  auto strategy = std::make_shared<HpaStrategy>();
  spec.strategy = strategy;
  auto v2 = registry::MakeResource(deps, spec);
  apps::AddStatus(v2, std::make_shared<apps::WorkloadStatusStrategy>(strategy, false, ValidateHpaStatus));

  // autoscaling/v1: the same objects, converted on the way in and out.
  auto conv = registry::MakeFunctionConverter(HpaV1ToV2, HpaV2ToV1);
  std::vector<registry::RestResource> out = v2;
  for (const auto& r : v2) {
    registry::RestResource v1;
    v1.info = r.info;
    v1.info.version = "v1";
    v1.info.definition = "io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler";
    v1.storage = registry::WrapConverting(v1.info, r.storage, conv);
    v1.schema = deps.schemas ? deps.schemas->Find(v1.info.definition) : nullptr;
    v1.protobuf = r.protobuf;
    out.push_back(std::move(v1));
  }
  return out;
}

}  // namespace capstan::api::autoscaling
