// registry/scale_store.h: the scale subresource (autoscaling/v1 Scale) of a replicated resource
// (replicationcontrollers, deployments, replicasets, statefulsets): kube's ScaleREST. GET returns the
// parent as a Scale (spec.replicas, status.replicas and the selector); PUT and PATCH change only the
// parent's spec.replicas, through the parent's Store, so its strategy (generation, validation) and
// optimistic concurrency apply: a Scale carrying a resourceVersion is a precondition on the parent.
// The Scale itself is validated as kube's ValidateScale (spec.replicas >= 0), and errors name the
// parent's resource. Server-side printing (kubectl get --subresource=scale) shows the Scale as kube's
// printers do: Name, Desired, Available; a custom resource brings its own columns. Thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "registry/rest.h"
#include "registry/store.h"

namespace capstan::registry {

struct ScaleConfig {
  // Where the parent keeps its desired and observed replicas.
  std::vector<std::string> spec_replicas_path = {"spec", "replicas"};
  std::vector<std::string> status_replicas_path = {"status", "replicas"};
  // spec.replicas when the parent omits it (kube's defaulting gives 1).
  int64_t default_replicas = 1;
  // status.selector of the Scale: the parent's pod selector in label-query form (e.g. "app=web").
  std::function<std::string(const Object& parent)> selector;
  // The Table of a Scale; unset: kube's built-in printers' Name, Desired (spec.replicas) and
  // Available (status.replicas).
  std::vector<TableColumn> table_columns;
  std::function<boost::json::array(const Object& scale)> table_cells;
};

class ScaleStore : public Patcher, public TableConvertor {
 public:
  // `parent` is the parent resource's Store (it outlives this); `info` is the scale subresource's.
  ScaleStore(std::shared_ptr<Store> parent, ResourceInfo info, ScaleConfig config);

  const ResourceInfo& Info() const override { return info_; }
  Task<StatusOr<Object>> Get(const Context& ctx, const std::string& name, const GetOptions& opts) override;
  Task<StatusOr<UpdateOutcome>> Update(const Context& ctx, const std::string& name, ObjectTransform transform,
                                       const UpdateOptions& opts) override;

  std::vector<TableColumn> TableColumns() const override;
  boost::json::array TableCells(const Object& scale) const override;

  // The Scale of a parent object.
  Object ToScale(const Object& parent) const;

 private:
  std::shared_ptr<Store> parent_;
  ResourceInfo info_;
  ScaleConfig config_;
};

// The ResourceInfo of <parent>/scale: kind Scale of autoscaling/v1.
ResourceInfo ScaleInfo(const ResourceInfo& parent);

}  // namespace capstan::registry
