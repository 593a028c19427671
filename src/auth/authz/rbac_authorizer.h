// auth/authz/rbac_authorizer.h: the RBAC authorizer (kube's rbac.RBACAuthorizer) over the current
// RbacPolicy snapshot, and kube's escalation check (ConfirmNoEscalation) on the same snapshot.
//
// The snapshot is built elsewhere (from informers over the RBAC resources, see
// cmd/authorization/policy_informers.h) and published with SetPolicy; a decision loads the current
// shared_ptr<const RbacPolicy> atomically and visits only the bindings that name the caller.
// Allow carries kube's reason ("RBAC: allowed by ClusterRoleBinding ..."); otherwise no opinion
// with the binding resolution errors ("RBAC: [clusterrole.rbac.authorization.k8s.io "x" not found]").
// Thread-safe: any number of readers and one publisher.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "auth/authz/authorizer.h"
#include "auth/authz/rbac_policy.h"

namespace capstan::authz {

class RbacAuthorizer : public Authorizer {
 public:
  RbacAuthorizer() : policy_(RbacPolicy::Empty()) {}
  explicit RbacAuthorizer(std::shared_ptr<const RbacPolicy> p) : policy_(std::move(p)) {}

  void SetPolicy(std::shared_ptr<const RbacPolicy> p) { std::atomic_store(&policy_, std::move(p)); }
  std::shared_ptr<const RbacPolicy> policy() const { return std::atomic_load(&policy_); }
  // Publications so far (tests wait on it).
  uint64_t generation() const { return generation_.load(); }
  void BumpGeneration() { generation_.fetch_add(1); }

  // The synchronous decision (Authorize wraps it).
  Result Decide(const Attributes& a) const;
  Task<Result> Authorize(const Attributes& a) override { co_return Decide(a); }
  RulesResult RulesFor(const http::UserInfo& user, const std::string& namespace_) const override;

 private:
  std::shared_ptr<const RbacPolicy> policy_;
  std::atomic<uint64_t> generation_{0};
};

// kube's ConfirmNoEscalation: "" when `user`'s rules in `namespace_` (cluster-wide ones included)
// cover `rules`; otherwise the message kube puts in the 403 (`user "alice" (groups=["a" "b"]) is
// attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], ...}`).
std::string ConfirmNoEscalation(const RbacPolicy& policy, const http::UserInfo& user, const std::string& namespace_,
                                const std::vector<PolicyRule>& rules);

// kube's rbac.RulesAllow: any rule of `rules` allows `a`.
bool RulesAllow(const Attributes& a, const std::vector<PolicyRule>& rules);

}  // namespace capstan::authz
