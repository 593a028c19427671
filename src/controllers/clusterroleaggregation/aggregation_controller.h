// controllers/clusterroleaggregation/aggregation_controller.h: kube's
// clusterrole-aggregation-controller: a ClusterRole with an aggregationRule gets as its rules the
// union of the rules of every other ClusterRole that one of its clusterRoleSelectors matches (roles
// visited in name order, rules appended when not already present), so admin, edit and view grow as
// roles labelled rbac.authorization.k8s.io/aggregate-to-<name>=true appear, change or go.
//
// Any ClusterRole change queues every aggregated ClusterRole (kube does the same: the set is small).
// A sync writes the rules only when they differ. Queue: "ClusterRoleAggregator". Thread-safety:
// loop-thread only.
#pragma once

#include <string>

#include "controllers/controller.h"

namespace capstan::controllers {

inline constexpr std::string_view kClusterRoleAggregationController = "clusterrole-aggregation-controller";

class ClusterRoleAggregationController : public Controller {
 public:
  std::string_view Name() const override { return kClusterRoleAggregationController; }
  void Start(ControllerContext& ctx) override;

  // The aggregated rules of `role` from `all` (the cluster roles, any order); exposed for tests.
  static boost::json::array AggregatedRules(const Object& role, const std::vector<const Object*>& all);

 private:
  Task<void> Run(ControllerContext& ctx);
  Task<SyncResult> Sync(const std::string& name);
  void EnqueueAggregated();

  ApiClient* client_ = nullptr;
  Informer* roles_ = nullptr;
  WorkQueue* queue_ = nullptr;
};

}  // namespace capstan::controllers
