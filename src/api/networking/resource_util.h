// api/networking/resource_util.h: how the catalog groups build their REST storages: a resource's
// Store (registry::MakeResource) plus subresources that read and write the parent's objects with
// their own strategy (status, certificatesigningrequests/approval), and the status strategy most of
// these kinds share (kube's "status changes are not allowed to update spec": everything but status
// comes from the stored object, then the kind validates the new status).
//
// Subresource writes carry the subresource name in the registry::Context (admission sees it).
// Strategies are immutable; storages are thread-safe as the Store is.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "registry/rest_resource.h"
#include "registry/strategy.h"

namespace capstan::api::catalog {

using registry::Object;

// A get/update/patch subresource over the parent's objects with its own strategy.
class SubresourceStorage : public registry::Patcher {
 public:
  SubresourceStorage(registry::StoreConfig c, std::shared_ptr<const registry::Strategy> strategy)
      : inner_(std::move(c), std::move(strategy)) {}
  const registry::ResourceInfo& Info() const override { return inner_.Info(); }
  Task<StatusOr<Object>> Get(const registry::Context& ctx, const std::string& name,
                             const registry::GetOptions& opts) override;
  Task<StatusOr<registry::UpdateOutcome>> Update(const registry::Context& ctx, const std::string& name,
                                                 registry::ObjectTransform transform,
                                                 const registry::UpdateOptions& opts) override;

 private:
  registry::OwningStore inner_;
};

// The resource's storages: the main Store, then one SubresourceStorage per (name, strategy).
std::vector<registry::RestResource> MakeResourceWith(
    const registry::GroupDeps& deps, registry::ResourceSpec spec,
    std::vector<std::pair<std::string, std::shared_ptr<const registry::Strategy>>> subresources);

// The status subresource's strategy: the new object keeps its status and takes everything else from
// the stored one; metadata comes from the request (kube's status strategies of these kinds leave
// metadata changes in) unless `reset_metadata` lists metadata fields to keep from the stored object.
class StatusOnlyStrategy : public registry::Strategy {
 public:
  using Validator = std::function<ErrorList(const Object& obj, const Object& old)>;
  StatusOnlyStrategy(std::shared_ptr<const registry::Strategy> main, Validator validate,
                     std::vector<std::string> reset_metadata = {})
      : main_(std::move(main)), validate_(std::move(validate)), reset_metadata_(std::move(reset_metadata)) {}
  bool NamespaceScoped() const override { return main_->NamespaceScoped(); }
  bool AllowUnconditionalUpdate() const override { return main_->AllowUnconditionalUpdate(); }
  apimachinery::NameValidator NameValidator() const override { return main_->NameValidator(); }
  void PrepareForUpdate(const registry::Context& ctx, Object& obj, const Object& old) const override;
  ErrorList ValidateUpdate(const registry::Context& ctx, const Object& obj, const Object& old) const override;
  bool ShouldDeleteDuringUpdate(const Object& obj) const override { return main_->ShouldDeleteDuringUpdate(obj); }
  std::vector<registry::TableColumn> TableColumns() const override { return main_->TableColumns(); }
  boost::json::array TableCells(const Object& obj) const override { return main_->TableCells(obj); }

 private:
  std::shared_ptr<const registry::Strategy> main_;
  Validator validate_;
  std::vector<std::string> reset_metadata_;
};

}  // namespace capstan::api::catalog
