#include "admission/spec_policy_plugins.h"

#include <boost/json.hpp>
#include <set>

#include "apimachinery/validation.h"

namespace capstan::admission {

namespace json = boost::json;

namespace {

// The main resource `resource` of the core group (no subresource), with an object.
bool IsCore(const Attributes& a, const char* resource) {
  return a.resource && a.resource->group.empty() && a.resource->resource == resource && a.subresource.empty() &&
         a.object;
}

const json::object* Spec(const json::object& obj) {
  const json::value* spec = obj.if_contains("spec");
  return spec && spec->is_object() ? &spec->as_object() : nullptr;
}

std::set<std::string> ExternalIPs(const json::object* obj) {
  std::set<std::string> ips;
  const json::object* spec = obj ? Spec(*obj) : nullptr;
  const json::value* list = spec ? spec->if_contains("externalIPs") : nullptr;
  if (!list || !list->is_array()) return ips;
  for (const auto& ip : list->as_array()) {
    if (ip.is_string()) ips.emplace(ip.as_string());
  }
  return ips;
}

std::string StringAt(const json::object& o, const char* key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

}  // namespace

Task<Status> DenyServiceExternalIPs::Validate(const Attributes& a) {
  if (!IsCore(a, "services")) co_return Status();
  std::set<std::string> now = ExternalIPs(a.object);
  if (now.empty()) co_return Status();
  std::set<std::string> before = ExternalIPs(a.operation == "UPDATE" ? a.old_object : nullptr);
  for (const auto& ip : now) {
    if (!before.count(ip)) co_return ForbiddenFor(a, "Use of external IPs is denied by admission control");
  }
  co_return Status();
}

Task<Status> LimitPodHardAntiAffinityTopology::Validate(const Attributes& a) {
  if (!IsCore(a, "pods")) co_return Status();
  const json::object* spec = Spec(*a.object);
  const json::value* affinity = spec ? spec->if_contains("affinity") : nullptr;
  const json::value* anti = affinity && affinity->is_object() ? affinity->as_object().if_contains("podAntiAffinity") : nullptr;
  const json::value* terms = anti && anti->is_object()
                                 ? anti->as_object().if_contains("requiredDuringSchedulingIgnoredDuringExecution")
                                 : nullptr;
  if (!terms || !terms->is_array()) co_return Status();
  for (const auto& t : terms->as_array()) {
    std::string key = t.is_object() ? StringAt(t.as_object(), "topologyKey") : "";
    if (key != "kubernetes.io/hostname") {
      co_return ForbiddenFor(a, "affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey " + key +
                                    " but only key kubernetes.io/hostname is allowed");
    }
  }
  co_return Status();
}

bool IsExtendedResourceName(const std::string& name) {
  // Native: no domain prefix, or one under kubernetes.io.
  if (name.find('/') == std::string::npos || name.find("kubernetes.io/") != std::string::npos) return false;
  if (name.rfind("requests.", 0) == 0) return false;
  return apimachinery::IsQualifiedName("requests." + name).empty();
}

Task<Status> ExtendedResourceToleration::Admit(Attributes& a) {
  if (!IsCore(a, "pods")) co_return Status();
  json::value* spec = a.object->if_contains("spec");
  if (!spec || !spec->is_object()) co_return Status();
  std::set<std::string> extended;  // sorted, as kube adds them
  for (const char* list : {"containers", "initContainers"}) {
    const json::value* cs = spec->as_object().if_contains(list);
    if (!cs || !cs->is_array()) continue;
    for (const auto& c : cs->as_array()) {
      const json::value* res = c.is_object() ? c.as_object().if_contains("resources") : nullptr;
      const json::value* req = res && res->is_object() ? res->as_object().if_contains("requests") : nullptr;
      if (!req || !req->is_object()) continue;
      for (const auto& kv : req->as_object()) {
        std::string name(kv.key());
        if (IsExtendedResourceName(name)) extended.insert(name);
      }
    }
  }
  if (extended.empty()) co_return Status();
  json::value& tolerations = spec->as_object()["tolerations"];
  if (!tolerations.is_array()) tolerations = json::array();
  json::array& list = tolerations.as_array();
  for (const auto& name : extended) {
    // kube's AddOrUpdateTolerationInPod: a toleration matching key, operator, value and effect is replaced
    // (its tolerationSeconds dropped) unless it is already the same; else this one is appended.
    json::object want{{"key", name}, {"operator", "Exists"}, {"effect", "NoSchedule"}};
    bool matched = false;
    for (auto& t : list) {
      if (!t.is_object()) continue;
      const json::object& o = t.as_object();
      if (StringAt(o, "key") == name && StringAt(o, "operator") == "Exists" && StringAt(o, "value").empty() &&
          StringAt(o, "effect") == "NoSchedule") {
        t = want;
        matched = true;
      }
    }
    if (!matched) list.push_back(want);
  }
  co_return Status();
}

}  // namespace capstan::admission
