// admission/resource_quota_evaluator.h: how quota measures objects (kube's quota.Evaluator and the
// core evaluators of kubernetes/pkg/quota/v1/evaluator/core), shared by the ResourceQuota admission
// plugin and the resource quota controller.
//
// - pods: pods, count/pods, cpu, memory, ephemeral-storage, requests.* and limits.* of those,
//   hugepages-* and requests.hugepages-*, extended resources as requests.<name>; kube's pod
//   requests/limits (containers summed, init containers as a maximum, restartable init containers
//   added, overhead). Terminal pods (Succeeded/Failed) and pods past their deletion grace period
//   count only for count/pods. Scopes: Terminating, NotTerminating, BestEffort, NotBestEffort,
//   PriorityClass (Exists, or In/NotIn/DoesNotExist on the class name), CrossNamespacePodAffinity.
//   Constraints: a quota on cpu or memory (requests or limits) needs every container to set them
//   ("must specify limits.cpu for: a,b; requests.cpu for: a").
// - services: services, count/services, services.loadbalancers, services.nodeports (ports of
//   NodePort and LoadBalancer services; with allocateLoadBalancerNodePorts false, only ports with an
//   explicit nodePort).
// - persistentvolumeclaims: persistentvolumeclaims, count/persistentvolumeclaims, requests.storage
//   (the larger of spec and status.allocatedResources, rounded up to a whole byte), and the same by
//   storage class as <class>.storageclass.storage.k8s.io/<resource>.
// - everything else: count/<resource>.<group> (count/<resource> for the core group), with kube's
//   legacy names for configmaps, secrets, replicationcontrollers and resourcequotas. These match no
//   scope, so a quota with scopes never counts them.
// Evaluators are immutable and thread-safe.
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "admission/resource_quota_lists.h"

namespace capstan::admission::quota {

// A quota's scope requirement (spec.scopes are Exists requirements).
struct ScopeRequirement {
  std::string scope_name;
  std::string op;  // In, NotIn, Exists, DoesNotExist
  std::vector<std::string> values;
};

// spec.scopes as Exists requirements, then spec.scopeSelector.matchExpressions.
std::vector<ScopeRequirement> ScopeRequirementsOf(const boost::json::object& quota);

using Clock = std::chrono::system_clock;

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  virtual std::string Group() const = 0;
  virtual std::string Resource() const = 0;
  // Whether an admission request (CREATE/UPDATE, subresource, new and old objects) is evaluated.
  virtual bool Handles(const std::string& operation, const std::string& subresource, const boost::json::object* obj,
                       const boost::json::object* old_obj) const = 0;
  // The names of `input` this evaluator measures.
  virtual std::vector<std::string> MatchingResources(const std::vector<std::string>& input) const = 0;
  virtual bool MatchesScope(const ScopeRequirement& s, const boost::json::object& obj) const { return false; }
  // An error text (without the "failed quota: <name>: " prefix) when `obj` lacks what `required` needs.
  virtual std::optional<std::string> Constraints(const std::vector<std::string>& required,
                                                 const boost::json::object& obj) const {
    return std::nullopt;
  }
  virtual ResourceList Usage(const boost::json::object& obj, Clock::time_point now) const = 0;

  // kube's generic.Matches: the quota's status.hard names something this evaluator measures and the
  // object matches every scope requirement of the quota.
  bool Matches(const boost::json::object& quota, const boost::json::object& obj) const;
  // The requirements of `reqs` the object matches.
  std::vector<ScopeRequirement> MatchingScopes(const boost::json::object& obj,
                                               const std::vector<ScopeRequirement>& reqs) const;
};

// "count/<resource>" or "count/<resource>.<group>".
std::string ObjectCountName(const std::string& group, const std::string& resource);

std::shared_ptr<const Evaluator> NewPodEvaluator();
std::shared_ptr<const Evaluator> NewServiceEvaluator();
std::shared_ptr<const Evaluator> NewPersistentVolumeClaimEvaluator();
std::shared_ptr<const Evaluator> NewObjectCountEvaluator(const std::string& group, const std::string& resource,
                                                         const std::string& alias = "");

// The evaluator for a resource: the core ones above, else an object count evaluator (with kube's
// legacy alias for configmaps, secrets, replicationcontrollers and resourcequotas).
std::shared_ptr<const Evaluator> EvaluatorFor(const std::string& group, const std::string& resource);

// The evaluators a quota with these hard names needs to compute its usage: the core and legacy ones
// always, plus an object count evaluator per count/<resource>.<group> name not covered by them.
std::vector<std::shared_ptr<const Evaluator>> EvaluatorsForHard(const std::vector<std::string>& hard_names);

// kube's resources ignored by quota: the virtual ones (bindings, componentstatuses, token and
// access reviews) and events (core and events.k8s.io).
bool IgnoredByQuota(const std::string& group, const std::string& resource);

// kube's qos.ComputePodQOS(pod) == BestEffort: no container or init container requests or limits a
// positive amount of cpu or memory.
bool IsBestEffort(const boost::json::object& pod);

}  // namespace capstan::admission::quota
