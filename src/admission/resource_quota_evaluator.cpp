#include "admission/resource_quota_evaluator.h"

#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <set>

#include "apimachinery/json_path.h"
#include "util/strings.h"

namespace capstan::admission::quota {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

const json::value* At(const json::object& o, std::initializer_list<std::string_view> path) { return am::GetPath(o, path); }

std::string Str(const json::object& o, std::initializer_list<std::string_view> path) {
  const json::value* v = At(o, path);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

const json::array* Arr(const json::object& o, std::initializer_list<std::string_view> path) {
  const json::value* v = At(o, path);
  return v && v->is_array() ? &v->get_array() : nullptr;
}

Quantity One() { return Quantity::FromInt(1); }

// ---- objects counted by name ----

class ObjectCountEvaluator : public Evaluator {
 public:
  ObjectCountEvaluator(std::string group, std::string resource, std::string alias)
      : group_(std::move(group)), resource_(std::move(resource)) {
    names_.push_back(ObjectCountName(group_, resource_));
    if (!alias.empty()) names_.push_back(std::move(alias));
  }
  std::string Group() const override { return group_; }
  std::string Resource() const override { return resource_; }
  bool Handles(const std::string& op, const std::string& sub, const json::object*, const json::object*) const override {
    return sub.empty() && op == "CREATE";
  }
  std::vector<std::string> MatchingResources(const std::vector<std::string>& input) const override {
    return Intersection(input, names_);
  }
  ResourceList Usage(const json::object&, Clock::time_point) const override {
    ResourceList out;
    for (const auto& n : names_) out[n] = One();
    return out;
  }

 private:
  std::string group_, resource_;
  std::vector<std::string> names_;
};

// ---- services ----

class ServiceEvaluator : public Evaluator {
 public:
  std::string Group() const override { return ""; }
  std::string Resource() const override { return "services"; }
  bool Handles(const std::string& op, const std::string&, const json::object*, const json::object*) const override {
    return op == "CREATE" || op == "UPDATE";  // the type can change
  }
  std::vector<std::string> MatchingResources(const std::vector<std::string>& input) const override {
    return Intersection(input, {"count/services", "services", "services.nodeports", "services.loadbalancers"});
  }
  ResourceList Usage(const json::object& svc, Clock::time_point) const override {
    ResourceList out;
    out["count/services"] = One();
    out["services"] = One();
    out["services.loadbalancers"] = Quantity();
    out["services.nodeports"] = Quantity();
    const json::array* ports = Arr(svc, {"spec", "ports"});
    int64_t n = ports ? static_cast<int64_t>(ports->size()) : 0;
    std::string type = Str(svc, {"spec", "type"});
    if (type == "NodePort") {
      out["services.nodeports"] = Quantity::FromInt(n);
    } else if (type == "LoadBalancer") {
      const json::value* alloc = At(svc, {"spec", "allocateLoadBalancerNodePorts"});
      if (alloc && alloc->is_bool() && !alloc->get_bool()) {
        int64_t explicit_ports = 0;
        for (const auto& p : ports ? *ports : json::array()) {
          const json::value* np = p.is_object() ? p.get_object().if_contains("nodePort") : nullptr;
          if (np && np->is_number() && np->to_number<int64_t>() != 0) ++explicit_ports;
        }
        out["services.nodeports"] = Quantity::FromInt(explicit_ports);
      } else {
        out["services.nodeports"] = Quantity::FromInt(n);
      }
      out["services.loadbalancers"] = One();
    }
    return out;
  }
};

// ---- persistent volume claims ----

constexpr std::string_view kStorageClassSuffix = ".storageclass.storage.k8s.io/";

class PvcEvaluator : public Evaluator {
 public:
  std::string Group() const override { return ""; }
  std::string Resource() const override { return "persistentvolumeclaims"; }
  bool Handles(const std::string& op, const std::string& sub, const json::object* obj,
               const json::object* old_obj) const override {
    if (sub.empty()) return op == "CREATE" || op == "UPDATE";
    if (sub != "status" || !obj || !old_obj) return false;
    // Replenished when the allocated storage changes.
    const json::value* a = At(*obj, {"status", "allocatedResources", "storage"});
    const json::value* b = At(*old_obj, {"status", "allocatedResources", "storage"});
    if (!a || !b) return (a == nullptr) != (b == nullptr);
    return json::serialize(*a) != json::serialize(*b);
  }
  std::vector<std::string> MatchingResources(const std::vector<std::string>& input) const override {
    std::vector<std::string> out;
    for (const auto& n : input) {
      if (n == "count/persistentvolumeclaims" || n == "persistentvolumeclaims" || n == "requests.storage" ||
          EndsWith(n, std::string(kStorageClassSuffix) + "persistentvolumeclaims") ||
          EndsWith(n, std::string(kStorageClassSuffix) + "requests.storage")) {
        out.push_back(n);
      }
    }
    return out;
  }
  ResourceList Usage(const json::object& pvc, Clock::time_point) const override {
    ResourceList out;
    out["persistentvolumeclaims"] = One();
    out["count/persistentvolumeclaims"] = One();
    // kube's GetPersistentVolumeClaimClass: the beta annotation first, then spec.storageClassName.
    std::string cls = Str(pvc, {"metadata", "annotations", "volume.beta.kubernetes.io/storage-class"});
    if (cls.empty()) cls = Str(pvc, {"spec", "storageClassName"});
    if (!cls.empty()) out[cls + std::string(kStorageClassSuffix) + "persistentvolumeclaims"] = One();
    auto round_up = [](Quantity q) {
      Quantity whole = Quantity::FromInt(q.Value(), q.format());
      return whole.Cmp(q) == 0 ? q : whole;
    };
    std::optional<Quantity> storage;
    if (const json::value* v = At(pvc, {"spec", "resources", "requests", "storage"})) {
      if (auto q = am::ParseQuantityJson(*v); q.ok()) storage = round_up(*q);
    }
    if (storage) {
      if (const json::value* v = At(pvc, {"status", "allocatedResources", "storage"})) {
        if (auto q = am::ParseQuantityJson(*v); q.ok() && q->Cmp(*storage) > 0) storage = round_up(*q);
      }
      out["requests.storage"] = *storage;
      if (!cls.empty()) out[cls + std::string(kStorageClassSuffix) + "requests.storage"] = *storage;
    }
    return out;
  }
};

}  // namespace

std::vector<ScopeRequirement> ScopeRequirementsOf(const json::object& q) {
  std::vector<ScopeRequirement> out;
  if (const json::array* scopes = Arr(q, {"spec", "scopes"})) {
    for (const auto& s : *scopes) {
      if (s.is_string()) out.push_back({std::string(s.get_string()), "Exists", {}});
    }
  }
  if (const json::array* exprs = Arr(q, {"spec", "scopeSelector", "matchExpressions"})) {
    for (const auto& e : *exprs) {
      if (!e.is_object()) continue;
      ScopeRequirement r{Str(e.get_object(), {"scopeName"}), Str(e.get_object(), {"operator"}), {}};
      if (const json::array* vals = Arr(e.get_object(), {"values"})) {
        for (const auto& v : *vals) {
          if (v.is_string()) r.values.emplace_back(v.get_string());
        }
      }
      out.push_back(std::move(r));
    }
  }
  return out;
}

bool Evaluator::Matches(const json::object& quota, const json::object& obj) const {
  if (MatchingResources(Names(ResourceListFromJson(At(quota, {"status", "hard"})))).empty()) return false;
  for (const auto& s : ScopeRequirementsOf(quota)) {
    if (!MatchesScope(s, obj)) return false;
  }
  return true;
}

std::vector<ScopeRequirement> Evaluator::MatchingScopes(const json::object& obj,
                                                        const std::vector<ScopeRequirement>& reqs) const {
  std::vector<ScopeRequirement> out;
  for (const auto& r : reqs) {
    if (MatchesScope(r, obj)) out.push_back(r);
  }
  return out;
}

std::string ObjectCountName(const std::string& group, const std::string& resource) {
  return group.empty() ? "count/" + resource : "count/" + resource + "." + group;
}

std::shared_ptr<const Evaluator> NewServiceEvaluator() { return std::make_shared<ServiceEvaluator>(); }
std::shared_ptr<const Evaluator> NewPersistentVolumeClaimEvaluator() { return std::make_shared<PvcEvaluator>(); }
std::shared_ptr<const Evaluator> NewObjectCountEvaluator(const std::string& group, const std::string& resource,
                                                         const std::string& alias) {
  return std::make_shared<ObjectCountEvaluator>(group, resource, alias);
}

namespace {

const std::map<std::string, std::string>& LegacyAliases() {
  static const std::map<std::string, std::string> kAliases = {{"configmaps", "configmaps"},
                                                              {"secrets", "secrets"},
                                                              {"replicationcontrollers", "replicationcontrollers"},
                                                              {"resourcequotas", "resourcequotas"}};
  return kAliases;
}

const std::vector<std::shared_ptr<const Evaluator>>& CoreEvaluators() {
  static const auto* kCore = [] {
    auto* v = new std::vector<std::shared_ptr<const Evaluator>>{NewPodEvaluator(), NewServiceEvaluator(),
                                                               NewPersistentVolumeClaimEvaluator()};
    for (const auto& [res, alias] : LegacyAliases()) v->push_back(NewObjectCountEvaluator("", res, alias));
    return v;
  }();
  return *kCore;
}

}  // namespace

std::shared_ptr<const Evaluator> EvaluatorFor(const std::string& group, const std::string& resource) {
  if (group.empty()) {
    for (const auto& e : CoreEvaluators()) {
      if (e->Resource() == resource) return e;
    }
  }
  return NewObjectCountEvaluator(group, resource);
}

std::vector<std::shared_ptr<const Evaluator>> EvaluatorsForHard(const std::vector<std::string>& hard_names) {
  std::vector<std::shared_ptr<const Evaluator>> out = CoreEvaluators();
  std::set<std::string> covered;
  for (const auto& e : out) {
    for (const auto& n : e->MatchingResources(hard_names)) covered.insert(n);
  }
  for (const auto& n : hard_names) {
    if (!StartsWith(n, "count/") || covered.count(n)) continue;
    std::string gr = n.substr(6);
    size_t dot = gr.find('.');
    std::string resource = gr.substr(0, dot);
    std::string group = dot == std::string::npos ? "" : gr.substr(dot + 1);
    if (resource.empty() || IgnoredByQuota(group, resource)) continue;
    out.push_back(NewObjectCountEvaluator(group, resource));
    covered.insert(n);
  }
  return out;
}

bool IgnoredByQuota(const std::string& group, const std::string& resource) {
  // Virtual resources that are never stored, and events, which kube has never counted.
  static const std::set<std::pair<std::string, std::string>> kIgnored = {
      {"", "bindings"},
      {"", "componentstatuses"},
      {"", "events"},
      {"events.k8s.io", "events"},
      {"authentication.k8s.io", "tokenreviews"},
      {"authentication.k8s.io", "selfsubjectreviews"},
      {"authorization.k8s.io", "subjectaccessreviews"},
      {"authorization.k8s.io", "selfsubjectaccessreviews"},
      {"authorization.k8s.io", "localsubjectaccessreviews"},
      {"authorization.k8s.io", "selfsubjectrulesreviews"}};
  return kIgnored.count({group, resource}) > 0;
}

}  // namespace capstan::admission::quota
