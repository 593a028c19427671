// The pod evaluator of admission/resource_quota_evaluator.h: kube's pod requests and limits, the pod
// scopes and the cpu/memory constraint.
#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <set>

#include "admission/resource_quota_evaluator.h"
#include "apimachinery/time_util.h"
#include "apimachinery/validation.h"
#include "apimachinery/json_path.h"
#include "util/strings.h"

namespace capstan::admission::quota {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

const json::value* At(const json::object& o, std::initializer_list<std::string_view> path) { return am::GetPath(o, path); }

const json::array* Arr(const json::object& o, std::initializer_list<std::string_view> path) {
  const json::value* v = At(o, path);
  return v && v->is_array() ? &v->get_array() : nullptr;
}

std::string Str(const json::object& o, std::initializer_list<std::string_view> path) {
  const json::value* v = At(o, path);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

template <class F>
void ForEachContainer(const json::object& pod, const char* list, F f) {
  if (const json::array* cs = Arr(pod, {"spec", list})) {
    for (const auto& c : *cs) {
      if (c.is_object()) f(c.get_object());
    }
  }
}

void MaxInto(ResourceList& acc, const ResourceList& x) {
  for (const auto& [k, v] : x) {
    auto it = acc.find(k);
    if (it == acc.end()) {
      acc.emplace(k, v);
    } else if (v.Cmp(it->second) > 0) {
      it->second = v;
    }
  }
}

// kube's resourcehelper.PodRequests / PodLimits: containers summed; init containers as a maximum,
// restartable (sidecar) ones also added to the sum; overhead added (for limits, only to resources
// that have a limit).
ResourceList PodTotal(const json::object& pod, const char* which) {
  ResourceList total;
  ForEachContainer(pod, "containers", [&](const json::object& c) {
    total = Add(total, ResourceListFromJson(At(c, {"resources", which})));
  });
  ResourceList restartable, init_max;
  ForEachContainer(pod, "initContainers", [&](const json::object& c) {
    ResourceList r = ResourceListFromJson(At(c, {"resources", which}));
    if (Str(c, {"restartPolicy"}) == "Always") {
      total = Add(total, r);
      restartable = Add(restartable, r);
      r = restartable;
    } else {
      r = Add(r, restartable);
    }
    MaxInto(init_max, r);
  });
  MaxInto(total, init_max);
  ResourceList overhead = ResourceListFromJson(At(pod, {"spec", "overhead"}));
  if (std::string_view(which) == "requests") {
    total = Add(total, overhead);
  } else {
    for (auto& [k, v] : total) {
      if (auto it = overhead.find(k); it != overhead.end()) v = v.Add(it->second);
    }
  }
  return total;
}

bool IsExtendedResourceName(const std::string& n) {
  bool native = n.find('/') == std::string::npos || n.find("kubernetes.io/") != std::string::npos;
  if (native || StartsWith(n, "requests.")) return false;
  return am::IsQualifiedName("requests." + n).empty();
}

// kube's podComputeUsageHelper.
ResourceList ComputeUsage(const ResourceList& requests, const ResourceList& limits) {
  ResourceList out;
  out["pods"] = Quantity::FromInt(1);
  for (const char* r : {"cpu", "memory", "ephemeral-storage"}) {
    if (auto it = requests.find(r); it != requests.end()) {
      out[r] = it->second;
      out[std::string("requests.") + r] = it->second;
    }
    if (auto it = limits.find(r); it != limits.end()) out[std::string("limits.") + r] = it->second;
  }
  for (const auto& [k, v] : requests) {
    if (StartsWith(k, "hugepages-")) {
      out[k] = v;
      out["requests." + k] = v;
    }
    if (IsExtendedResourceName(k)) out["requests." + k] = v;
  }
  return out;
}

bool IsTerminating(const json::object& pod) {
  const json::value* v = At(pod, {"spec", "activeDeadlineSeconds"});
  return v && v->is_number() && v->to_number<double>() >= 0;
}

}  // namespace

// kube's qos.GetPodQOS == BestEffort: no container sets a non-zero cpu or memory request or limit.
bool IsBestEffort(const json::object& pod) {
  bool any = false;
  auto check = [&](const json::object& c) {
    for (const char* which : {"requests", "limits"}) {
      ResourceList l = ResourceListFromJson(At(c, {"resources", which}));
      for (const char* r : {"cpu", "memory"}) {
        if (auto it = l.find(r); it != l.end() && !it->second.IsZero()) any = true;
      }
    }
  };
  ForEachContainer(pod, "containers", check);
  ForEachContainer(pod, "initContainers", check);
  return !any;
}

namespace {

bool CrossNamespaceTerms(const json::value* terms, bool weighted) {
  if (!terms || !terms->is_array()) return false;
  for (const auto& t : terms->get_array()) {
    if (!t.is_object()) continue;
    const json::object* term = &t.get_object();
    if (weighted) {
      const json::value* inner = term->if_contains("podAffinityTerm");
      if (!inner || !inner->is_object()) continue;
      term = &inner->get_object();
    }
    const json::value* nss = term->if_contains("namespaces");
    if (nss && nss->is_array() && !nss->get_array().empty()) return true;
    const json::value* sel = term->if_contains("namespaceSelector");
    if (sel && !sel->is_null()) return true;
  }
  return false;
}

bool UsesCrossNamespacePodAffinity(const json::object& pod) {
  for (const char* kind : {"podAffinity", "podAntiAffinity"}) {
    if (CrossNamespaceTerms(At(pod, {"spec", "affinity", kind, "requiredDuringSchedulingIgnoredDuringExecution"}),
                           false) ||
        CrossNamespaceTerms(At(pod, {"spec", "affinity", kind, "preferredDuringSchedulingIgnoredDuringExecution"}),
                           true)) {
      return true;
    }
  }
  return false;
}

// kube's QuotaV1Pod: terminal pods and pods past their deletion grace period are not charged.
bool ChargedPod(const json::object& pod, Clock::time_point now) {
  std::string phase = Str(pod, {"status", "phase"});
  if (phase == "Failed" || phase == "Succeeded") return false;
  std::string ts = Str(pod, {"metadata", "deletionTimestamp"});
  const json::value* grace = At(pod, {"metadata", "deletionGracePeriodSeconds"});
  if (!ts.empty() && grace && grace->is_number()) {
    auto t = am::ParseRfc3339(ts);
    if (t.ok() && now > t->ToTimePoint() + std::chrono::seconds(grace->to_number<int64_t>())) return false;
  }
  return true;
}

class PodEvaluator : public Evaluator {
 public:
  std::string Group() const override { return ""; }
  std::string Resource() const override { return "pods"; }
  bool Handles(const std::string& op, const std::string& sub, const json::object*, const json::object*) const override {
    if (!sub.empty() && sub != "resize") return false;
    return op == "CREATE" || (sub == "resize" && op == "UPDATE");
  }
  std::vector<std::string> MatchingResources(const std::vector<std::string>& input) const override {
    std::vector<std::string> out =
        Intersection(input, {"count/pods", "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
                             "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage",
                             "pods"});
    for (const auto& n : input) {
      bool native = n.find('/') == std::string::npos || n.find("kubernetes.io/") != std::string::npos;
      if (StartsWith(n, "hugepages-") || StartsWith(n, "requests.hugepages-")) out.push_back(n);
      if (!native && StartsWith(n, "requests.")) out.push_back(n);
    }
    return out;
  }
  bool MatchesScope(const ScopeRequirement& s, const json::object& pod) const override {
    if (s.scope_name == "Terminating") return IsTerminating(pod);
    if (s.scope_name == "NotTerminating") return !IsTerminating(pod);
    if (s.scope_name == "BestEffort") return IsBestEffort(pod);
    if (s.scope_name == "NotBestEffort") return !IsBestEffort(pod);
    if (s.scope_name == "CrossNamespacePodAffinity") return UsesCrossNamespacePodAffinity(pod);
    if (s.scope_name == "PriorityClass") {
      std::string pc = Str(pod, {"spec", "priorityClassName"});
      bool has = !pc.empty();
      bool listed = std::find(s.values.begin(), s.values.end(), pc) != s.values.end();
      if (s.op == "Exists") return has;
      if (s.op == "DoesNotExist") return !has;
      if (s.op == "In") return has && listed;
      if (s.op == "NotIn") return !has || !listed;
    }
    return false;
  }
  std::optional<std::string> Constraints(const std::vector<std::string>& required,
                                         const json::object& pod) const override {
    static const std::set<std::string> kValidation = {"cpu", "memory", "requests.cpu", "requests.memory",
                                                      "limits.cpu", "limits.memory"};
    std::set<std::string> need;
    for (const auto& r : required) {
      if (kValidation.count(r)) need.insert(r);
    }
    std::map<std::string, std::set<std::string>> missing;
    auto check = [&](const json::object& c) {
      ResourceList usage = ComputeUsage(ResourceListFromJson(At(c, {"resources", "requests"})),
                                        ResourceListFromJson(At(c, {"resources", "limits"})));
      for (const auto& r : need) {
        if (!usage.count(r)) missing[r].insert(Str(c, {"name"}));
      }
    };
    ForEachContainer(pod, "containers", check);
    ForEachContainer(pod, "initContainers", check);
    if (missing.empty()) return std::nullopt;
    std::vector<std::string> parts;
    for (const auto& [r, names] : missing) {
      parts.push_back(r + " for: " + Join(std::vector<std::string>(names.begin(), names.end()), ","));
    }
    return "must specify " + Join(parts, "; ");
  }
  ResourceList Usage(const json::object& pod, Clock::time_point now) const override {
    ResourceList out;
    out["count/pods"] = Quantity::FromInt(1);
    if (!ChargedPod(pod, now)) return out;
    return Add(out, ComputeUsage(PodTotal(pod, "requests"), PodTotal(pod, "limits")));
  }
};

}  // namespace

std::shared_ptr<const Evaluator> NewPodEvaluator() { return std::make_shared<PodEvaluator>(); }

}  // namespace capstan::admission::quota
