#include "api/autoscaling/hpa_conversion.h"

#include "api/common.h"
#include "apimachinery/json_parse.h"
#include "apimachinery/json_write.h"
#include "util/strings.h"

namespace capstan::api::autoscaling {

namespace json = boost::json;
using Obj = json::object;

namespace {

const Obj* Child(const Obj* o, std::string_view key) {
  if (!o) return nullptr;
  const auto* v = o->if_contains(key);
  return v && v->is_object() ? &v->get_object() : nullptr;
}

const json::value* Field(const Obj* o, std::string_view key) {
  if (!o) return nullptr;
  const auto* v = o->if_contains(key);
  return v && !v->is_null() ? v : nullptr;
}

// Go's json.Unmarshal matches field names case-insensitively.
const json::value* FieldCI(const Obj* o, std::string_view key) {
  if (!o) return nullptr;
  for (const auto& kv : *o) {
    if (EqualsIgnoreCase(kv.key(), key) && !kv.value().is_null()) return &kv.value();
  }
  return nullptr;
}

void CopyIf(Obj& out, std::string_view to, const json::value* v) {
  if (v) out[to] = *v;
}

json::value QuantityOrZero(const json::value* v) { return v ? *v : json::value("0"); }

Obj CrossRef(const Obj* ref) {
  Obj r;
  r["kind"] = json::string(ref ? StringAt(*ref, "kind") : "");
  r["name"] = json::string(ref ? StringAt(*ref, "name") : "");
  if (ref && !StringAt(*ref, "apiVersion").empty()) r["apiVersion"] = json::string(StringAt(*ref, "apiVersion"));
  return r;
}

bool IsCpuUtilization(const Obj& metric, const char* holder, const char* target) {
  if (StringAt(metric, "type") != "Resource") return false;
  const Obj* r = Child(&metric, holder);
  if (!r || StringAt(*r, "name") != "cpu") return false;
  return Field(Child(r, target), "averageUtilization") != nullptr;
}

// --- v2 → v1 alpha (annotation) forms ---

json::value SpecToV1(const Obj& m) {
  Obj out;
  std::string type = StringAt(m, "type");
  out["type"] = json::string(type);
  if (const Obj* o = Child(&m, "object")) {
    const Obj* target = Child(o, "target");
    const Obj* metric = Child(o, "metric");
    Obj v;
    v["target"] = CrossRef(Child(o, "describedObject"));
    v["metricName"] = json::string(metric ? StringAt(*metric, "name") : "");
    v["targetValue"] = QuantityOrZero(Field(target, "value"));
    CopyIf(v, "selector", Field(metric, "selector"));
    CopyIf(v, "averageValue", Field(target, "averageValue"));
    out["object"] = std::move(v);
  }
  if (const Obj* p = Child(&m, "pods")) {
    const Obj* metric = Child(p, "metric");
    Obj v;
    v["metricName"] = json::string(metric ? StringAt(*metric, "name") : "");
    v["targetAverageValue"] = QuantityOrZero(Field(Child(p, "target"), "averageValue"));
    CopyIf(v, "selector", Field(metric, "selector"));
    out["pods"] = std::move(v);
  }
  if (const Obj* r = Child(&m, "resource")) {
    const Obj* target = Child(r, "target");
    Obj v;
    v["name"] = json::string(StringAt(*r, "name"));
    CopyIf(v, "targetAverageUtilization", Field(target, "averageUtilization"));
    CopyIf(v, "targetAverageValue", Field(target, "averageValue"));
    out["resource"] = std::move(v);
  }
  if (const Obj* r = Child(&m, "containerResource")) {
    const Obj* target = Child(r, "target");
    Obj v;
    v["name"] = json::string(StringAt(*r, "name"));
    CopyIf(v, "targetAverageUtilization", Field(target, "averageUtilization"));
    CopyIf(v, "targetAverageValue", Field(target, "averageValue"));
    v["container"] = json::string(StringAt(*r, "container"));
    out["containerResource"] = std::move(v);
  }
  if (const Obj* e = Child(&m, "external")) {
    const Obj* target = Child(e, "target");
    const Obj* metric = Child(e, "metric");
    Obj v;
    v["metricName"] = json::string(metric ? StringAt(*metric, "name") : "");
    CopyIf(v, "metricSelector", Field(metric, "selector"));
    CopyIf(v, "targetValue", Field(target, "value"));
    CopyIf(v, "targetAverageValue", Field(target, "averageValue"));
    out["external"] = std::move(v);
  }
  return out;
}

json::value StatusToV1(const Obj& m) {
  Obj out;
  out["type"] = json::string(StringAt(m, "type"));
  if (const Obj* o = Child(&m, "object")) {
    const Obj* cur = Child(o, "current");
    const Obj* metric = Child(o, "metric");
    Obj v;
    v["target"] = CrossRef(Child(o, "describedObject"));
    v["metricName"] = json::string(metric ? StringAt(*metric, "name") : "");
    v["currentValue"] = QuantityOrZero(Field(cur, "value"));
    CopyIf(v, "selector", Field(metric, "selector"));
    CopyIf(v, "averageValue", Field(cur, "averageValue"));
    out["object"] = std::move(v);
  }
  if (const Obj* p = Child(&m, "pods")) {
    const Obj* metric = Child(p, "metric");
    Obj v;
    v["metricName"] = json::string(metric ? StringAt(*metric, "name") : "");
    v["currentAverageValue"] = QuantityOrZero(Field(Child(p, "current"), "averageValue"));
    CopyIf(v, "selector", Field(metric, "selector"));
    out["pods"] = std::move(v);
  }
  for (const char* kind : {"resource", "containerResource"}) {
    if (const Obj* r = Child(&m, kind)) {
      const Obj* cur = Child(r, "current");
      Obj v;
      v["name"] = json::string(StringAt(*r, "name"));
      CopyIf(v, "currentAverageUtilization", Field(cur, "averageUtilization"));
      v["currentAverageValue"] = QuantityOrZero(Field(cur, "averageValue"));
      if (std::string_view(kind) == "containerResource") v["container"] = json::string(StringAt(*r, "container"));
      out[kind] = std::move(v);
    }
  }
  if (const Obj* e = Child(&m, "external")) {
    const Obj* cur = Child(e, "current");
    const Obj* metric = Child(e, "metric");
    Obj v;
    v["metricName"] = json::string(metric ? StringAt(*metric, "name") : "");
    CopyIf(v, "metricSelector", Field(metric, "selector"));
    v["currentValue"] = QuantityOrZero(Field(cur, "value"));
    CopyIf(v, "currentAverageValue", Field(cur, "averageValue"));
    out["external"] = std::move(v);
  }
  return out;
}

// kube marshals its internal behavior type, which has no JSON tags: Go field names, nulls kept.
json::value BehaviorToInternal(const Obj& b) {
  auto rules = [](const Obj* r) -> json::value {
    if (!r) return nullptr;
    Obj out;
    const json::value* w = Field(r, "stabilizationWindowSeconds");
    out["StabilizationWindowSeconds"] = w ? *w : json::value(nullptr);
    const json::value* s = Field(r, "selectPolicy");
    out["SelectPolicy"] = s ? *s : json::value(nullptr);
    const json::value* ps = Field(r, "policies");
    if (ps && ps->is_array()) {
      json::array arr;
      for (const auto& p : ps->get_array()) {
        if (!p.is_object()) continue;
        Obj x;
        x["Type"] = json::string(StringAt(p.get_object(), "type"));
        x["Value"] = IntAt(p.get_object(), "value");
        x["PeriodSeconds"] = IntAt(p.get_object(), "periodSeconds");
        arr.push_back(std::move(x));
      }
      out["Policies"] = std::move(arr);
    } else {
      out["Policies"] = nullptr;
    }
    return out;
  };
  Obj out;
  out["ScaleUp"] = rules(Child(&b, "scaleUp"));
  out["ScaleDown"] = rules(Child(&b, "scaleDown"));
  return out;
}

// --- v1 alpha (annotation) forms → v2 ---

Obj MetricId(const json::value* name, const json::value* selector) {
  Obj m;
  m["name"] = name ? *name : json::value("");
  if (selector) m["selector"] = *selector;
  return m;
}

Obj CrossRefV2(const Obj* ref) {
  Obj r;
  r["kind"] = json::string(ref ? StringAt(*ref, "kind") : "");
  r["name"] = json::string(ref ? StringAt(*ref, "name") : "");
  if (ref && !StringAt(*ref, "apiVersion").empty()) r["apiVersion"] = json::string(StringAt(*ref, "apiVersion"));
  return r;
}

json::value SpecFromV1(const Obj& m) {
  Obj out;
  out["type"] = json::string(StringAt(m, "type"));
  if (const Obj* o = Child(&m, "object")) {
    Obj v;
    v["describedObject"] = CrossRefV2(Child(o, "target"));
    Obj target;
    const json::value* avg = Field(o, "averageValue");
    target["type"] = avg ? "AverageValue" : "Value";
    target["value"] = QuantityOrZero(Field(o, "targetValue"));
    CopyIf(target, "averageValue", avg);
    v["target"] = std::move(target);
    v["metric"] = MetricId(Field(o, "metricName"), Field(o, "selector"));
    out["object"] = std::move(v);
  }
  if (const Obj* p = Child(&m, "pods")) {
    Obj v;
    v["metric"] = MetricId(Field(p, "metricName"), Field(p, "selector"));
    Obj target;
    target["type"] = "AverageValue";
    target["averageValue"] = QuantityOrZero(Field(p, "targetAverageValue"));
    v["target"] = std::move(target);
    out["pods"] = std::move(v);
  }
  for (const char* kind : {"resource", "containerResource"}) {
    if (const Obj* r = Child(&m, kind)) {
      Obj v;
      v["name"] = json::string(StringAt(*r, "name"));
      Obj target;
      const json::value* util = Field(r, "targetAverageUtilization");
      target["type"] = util ? "Utilization" : "AverageValue";
      CopyIf(target, "averageValue", Field(r, "targetAverageValue"));
      CopyIf(target, "averageUtilization", util);
      v["target"] = std::move(target);
      if (std::string_view(kind) == "containerResource") v["container"] = json::string(StringAt(*r, "container"));
      out[kind] = std::move(v);
    }
  }
  if (const Obj* e = Child(&m, "external")) {
    Obj v;
    v["metric"] = MetricId(Field(e, "metricName"), Field(e, "metricSelector"));
    Obj target;
    const json::value* value = Field(e, "targetValue");
    target["type"] = value ? "Value" : "AverageValue";
    CopyIf(target, "value", value);
    CopyIf(target, "averageValue", Field(e, "targetAverageValue"));
    v["target"] = std::move(target);
    out["external"] = std::move(v);
  }
  return out;
}

json::value StatusFromV1(const Obj& m) {
  Obj out;
  out["type"] = json::string(StringAt(m, "type"));
  if (const Obj* o = Child(&m, "object")) {
    Obj v;
    v["metric"] = MetricId(Field(o, "metricName"), Field(o, "selector"));
    Obj cur;
    cur["value"] = QuantityOrZero(Field(o, "currentValue"));
    CopyIf(cur, "averageValue", Field(o, "averageValue"));
    v["current"] = std::move(cur);
    v["describedObject"] = CrossRefV2(Child(o, "target"));
    out["object"] = std::move(v);
  }
  if (const Obj* p = Child(&m, "pods")) {
    Obj v;
    v["metric"] = MetricId(Field(p, "metricName"), Field(p, "selector"));
    Obj cur;
    cur["averageValue"] = QuantityOrZero(Field(p, "currentAverageValue"));
    v["current"] = std::move(cur);
    out["pods"] = std::move(v);
  }
  for (const char* kind : {"resource", "containerResource"}) {
    if (const Obj* r = Child(&m, kind)) {
      Obj v;
      v["name"] = json::string(StringAt(*r, "name"));
      Obj cur;
      cur["averageValue"] = QuantityOrZero(Field(r, "currentAverageValue"));
      CopyIf(cur, "averageUtilization", Field(r, "currentAverageUtilization"));
      v["current"] = std::move(cur);
      if (std::string_view(kind) == "containerResource") v["container"] = json::string(StringAt(*r, "container"));
      out[kind] = std::move(v);
    }
  }
  if (const Obj* e = Child(&m, "external")) {
    Obj v;
    v["metric"] = MetricId(Field(e, "metricName"), Field(e, "metricSelector"));
    Obj cur;
    cur["value"] = QuantityOrZero(Field(e, "currentValue"));
    CopyIf(cur, "averageValue", Field(e, "currentAverageValue"));
    v["current"] = std::move(cur);
    out["external"] = std::move(v);
  }
  return out;
}

json::value BehaviorFromInternal(const Obj& b) {
  auto rules = [](const json::value* r) -> json::value {
    if (!r || !r->is_object()) return nullptr;
    const Obj* o = &r->get_object();
    Obj out;
    CopyIf(out, "stabilizationWindowSeconds", FieldCI(o, "StabilizationWindowSeconds"));
    CopyIf(out, "selectPolicy", FieldCI(o, "SelectPolicy"));
    if (const json::value* ps = FieldCI(o, "Policies"); ps && ps->is_array()) {
      json::array arr;
      for (const auto& p : ps->get_array()) {
        if (!p.is_object()) continue;
        Obj x;
        CopyIf(x, "type", FieldCI(&p.get_object(), "Type"));
        CopyIf(x, "value", FieldCI(&p.get_object(), "Value"));
        CopyIf(x, "periodSeconds", FieldCI(&p.get_object(), "PeriodSeconds"));
        arr.push_back(std::move(x));
      }
      out["policies"] = std::move(arr);
    }
    return out;
  };
  Obj out;
  json::value up = rules(FieldCI(&b, "ScaleUp"));
  json::value down = rules(FieldCI(&b, "ScaleDown"));
  if (!up.is_null()) out["scaleUp"] = std::move(up);
  if (!down.is_null()) out["scaleDown"] = std::move(down);
  return out;
}

json::value ConditionToV1(const Obj& c) {
  Obj out;
  out["type"] = json::string(StringAt(c, "type"));
  out["status"] = json::string(StringAt(c, "status"));
  const json::value* t = Field(&c, "lastTransitionTime");
  out["lastTransitionTime"] = t ? *t : json::value(nullptr);
  if (!StringAt(c, "reason").empty()) out["reason"] = json::string(StringAt(c, "reason"));
  if (!StringAt(c, "message").empty()) out["message"] = json::string(StringAt(c, "message"));
  return out;
}

json::value ConditionFromV1(const Obj& c) {
  Obj out;
  out["type"] = json::string(StringAt(c, "type"));
  out["status"] = json::string(StringAt(c, "status"));
  CopyIf(out, "lastTransitionTime", Field(&c, "lastTransitionTime"));
  if (!StringAt(c, "reason").empty()) out["reason"] = json::string(StringAt(c, "reason"));
  if (!StringAt(c, "message").empty()) out["message"] = json::string(StringAt(c, "message"));
  return out;
}

// The array an annotation holds (JSON text), nullopt when absent or unreadable (kube ignores those).
std::optional<json::value> AnnotationJson(const Obj* annotations, std::string_view key) {
  const json::value* v = Field(annotations, key);
  if (!v || !v->is_string()) return std::nullopt;
  auto parsed = apimachinery::ParseJsonValue(std::string_view(v->get_string()));
  if (!parsed.ok()) return std::nullopt;
  return std::move(*parsed);
}

void DropRoundTripAnnotations(Obj& obj) {
  auto* md = obj.if_contains("metadata");
  if (!md || !md->is_object()) return;
  auto* a = md->get_object().if_contains("annotations");
  if (!a || !a->is_object()) return;
  for (auto key : {kMetricSpecsAnnotation, kMetricStatusesAnnotation, kBehaviorSpecsAnnotation, kConditionsAnnotation}) {
    a->get_object().erase(key);
  }
  if (a->get_object().empty()) md->get_object().erase("annotations");
}

void SetAnnotation(Obj& obj, std::string_view key, const json::value& v) {
  json::value& md = obj["metadata"];
  if (!md.is_object()) md = Obj();
  json::value& a = md.get_object()["annotations"];
  if (!a.is_object()) a = Obj();
  a.get_object()[key] = json::string(apimachinery::ToJson(v));
}

}  // namespace

StatusOr<Obj> HpaV2ToV1(Obj v2) {
  Obj out;
  out["kind"] = "HorizontalPodAutoscaler";
  out["apiVersion"] = "autoscaling/v1";
  out["metadata"] = v2.contains("metadata") ? v2["metadata"] : json::value(Obj());
  DropRoundTripAnnotations(out);
  const Obj* spec = Child(&v2, "spec");
  const Obj* status = Child(&v2, "status");

  Obj s1;
  s1["scaleTargetRef"] = CrossRef(Child(spec, "scaleTargetRef"));
  CopyIf(s1, "minReplicas", Field(spec, "minReplicas"));
  s1["maxReplicas"] = spec ? IntAt(*spec, "maxReplicas") : 0;
  json::array other;
  bool cpu_found = false;
  if (const json::value* metrics = Field(spec, "metrics"); metrics && metrics->is_array()) {
    for (const auto& m : metrics->get_array()) {
      if (!m.is_object()) continue;
      if (IsCpuUtilization(m.get_object(), "resource", "target")) {
        if (!cpu_found) {
          s1["targetCPUUtilizationPercentage"] = *Field(Child(Child(&m.get_object(), "resource"), "target"), "averageUtilization");
          cpu_found = true;
        }
        continue;
      }
      other.push_back(SpecToV1(m.get_object()));
    }
  }
  out["spec"] = std::move(s1);

  Obj st1;
  CopyIf(st1, "observedGeneration", Field(status, "observedGeneration"));
  CopyIf(st1, "lastScaleTime", Field(status, "lastScaleTime"));
  st1["currentReplicas"] = status ? IntAt(*status, "currentReplicas") : 0;
  st1["desiredReplicas"] = status ? IntAt(*status, "desiredReplicas") : 0;
  json::array current;
  if (const json::value* cm = Field(status, "currentMetrics"); cm && cm->is_array()) {
    for (const auto& m : cm->get_array()) {
      if (!m.is_object()) continue;
      current.push_back(StatusToV1(m.get_object()));
      if (StringAt(m.get_object(), "type") == "Resource") {
        const Obj* r = Child(&m.get_object(), "resource");
        if (r && StringAt(*r, "name") == "cpu") {
          if (const json::value* u = Field(Child(r, "current"), "averageUtilization")) {
            st1["currentCPUUtilizationPercentage"] = *u;
          }
        }
      }
    }
  }
  out["status"] = std::move(st1);

  if (!other.empty()) SetAnnotation(out, kMetricSpecsAnnotation, other);
  if (!current.empty()) SetAnnotation(out, kMetricStatusesAnnotation, current);
  if (const Obj* behavior = Child(spec, "behavior")) SetAnnotation(out, kBehaviorSpecsAnnotation, BehaviorToInternal(*behavior));
  if (const json::value* conds = Field(status, "conditions"); conds && conds->is_array() && !conds->get_array().empty()) {
    json::array arr;
    for (const auto& c : conds->get_array()) {
      if (c.is_object()) arr.push_back(ConditionToV1(c.get_object()));
    }
    SetAnnotation(out, kConditionsAnnotation, arr);
  }
  return out;
}

StatusOr<Obj> HpaV1ToV2(Obj v1) {
  Obj out;
  out["kind"] = "HorizontalPodAutoscaler";
  out["apiVersion"] = "autoscaling/v2";
  out["metadata"] = v1.contains("metadata") ? v1["metadata"] : json::value(Obj());
  const Obj* annotations = Child(Child(&v1, "metadata"), "annotations");
  const Obj* spec = Child(&v1, "spec");
  const Obj* status = Child(&v1, "status");

  Obj s2;
  s2["scaleTargetRef"] = CrossRefV2(Child(spec, "scaleTargetRef"));
  // v1's defaulting.
  s2["minReplicas"] = Field(spec, "minReplicas") ? *Field(spec, "minReplicas") : json::value(1);
  s2["maxReplicas"] = spec ? IntAt(*spec, "maxReplicas") : 0;
  json::array metrics;
  if (auto other = AnnotationJson(annotations, kMetricSpecsAnnotation); other && other->is_array()) {
    for (const auto& m : other->get_array()) {
      if (m.is_object()) metrics.push_back(SpecFromV1(m.get_object()));
    }
  }
  if (const json::value* cpu = Field(spec, "targetCPUUtilizationPercentage")) {
    Obj target;
    target["type"] = "Utilization";
    target["averageUtilization"] = *cpu;
    Obj resource;
    resource["name"] = "cpu";
    resource["target"] = std::move(target);
    Obj m;
    m["type"] = "Resource";
    m["resource"] = std::move(resource);
    metrics.push_back(std::move(m));
  }
  if (metrics.empty()) {
    Obj target;
    target["type"] = "Utilization";
    target["averageUtilization"] = kDefaultCpuUtilization;
    Obj resource;
    resource["name"] = "cpu";
    resource["target"] = std::move(target);
    Obj m;
    m["type"] = "Resource";
    m["resource"] = std::move(resource);
    metrics.push_back(std::move(m));
  }
  s2["metrics"] = std::move(metrics);
  if (auto b = AnnotationJson(annotations, kBehaviorSpecsAnnotation); b && b->is_object()) {
    json::value behavior = BehaviorFromInternal(b->get_object());
    if (!behavior.get_object().empty()) s2["behavior"] = std::move(behavior);
  }
  out["spec"] = std::move(s2);

  Obj st2;
  CopyIf(st2, "observedGeneration", Field(status, "observedGeneration"));
  CopyIf(st2, "lastScaleTime", Field(status, "lastScaleTime"));
  if (status && IntAt(*status, "currentReplicas") != 0) st2["currentReplicas"] = IntAt(*status, "currentReplicas");
  st2["desiredReplicas"] = status ? IntAt(*status, "desiredReplicas") : 0;
  if (auto cm = AnnotationJson(annotations, kMetricStatusesAnnotation); cm && cm->is_array()) {
    json::array arr;
    for (const auto& m : cm->get_array()) {
      if (m.is_object()) arr.push_back(StatusFromV1(m.get_object()));
    }
    st2["currentMetrics"] = std::move(arr);
  } else if (const json::value* cpu = Field(status, "currentCPUUtilizationPercentage")) {
    Obj cur;
    cur["averageUtilization"] = *cpu;
    Obj resource;
    resource["name"] = "cpu";
    resource["current"] = std::move(cur);
    Obj m;
    m["type"] = "Resource";
    m["resource"] = std::move(resource);
    st2["currentMetrics"] = json::array{std::move(m)};
  }
  if (auto conds = AnnotationJson(annotations, kConditionsAnnotation); conds && conds->is_array()) {
    json::array arr;
    for (const auto& c : conds->get_array()) {
      if (c.is_object()) arr.push_back(ConditionFromV1(c.get_object()));
    }
    st2["conditions"] = std::move(arr);
  }
  out["status"] = std::move(st2);
  DropRoundTripAnnotations(out);
  return out;
}

}  // namespace capstan::api::autoscaling
