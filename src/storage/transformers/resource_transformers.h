// storage/transformers/resource_transformers.h: the storage::Transformer that BackendObjectStore (and
// so the watch cache) uses when --encryption-provider-config is given: it finds the resource a storage
// key belongs to and applies that resource's providers, as kube's per-resource storage does.
//
// A key's resource: the registered key root it lies under (RegisterResource: "/registry/deployments"
// → apps/deployments; the API wiring registers every served resource), else the first segment after
// --etcd-prefix as a core resource ("/registry/secrets/ns/name" → secrets). Its transformer: the
// config's entry for the exact group resource, else "*.<group>", else "*.*", else identity (which
// refuses to read "k8s:enc:" values, as kube's). The storage key is passed on as the transformers'
// authenticated data.
//
// Failures are 500 InternalError Statuses worded as kube words them for a read ("Internal error
// occurred: cipher: message authentication failed"), for the one object concerned.
//
// The providers can be replaced while the server runs (Set: --encryption-provider-config-automatic-reload,
// storage/transformers/config_reloader.h): each read or write uses the set current when it starts.
//
// Thread-safety: ToStorage/FromStorage are safe from any thread; RegisterResource and Set may run
// concurrently with them (new resources appear at run time).
#pragma once

#include <map>
#include <memory>
#include <shared_mutex>
#include <string>

#include "storage/transformer.h"
#include "storage/transformers/encryption_config.h"
#include "storage/transformers/transformation_metrics.h"

namespace capstan::storage::transformers {

class ResourceTransformers : public Transformer {
 public:
  using ByResource = std::map<GroupResource, std::shared_ptr<const Transformer>>;
  ResourceTransformers(ByResource by_resource, std::string prefix);

  // Replaces every resource's providers (a reloaded configuration).
  void Set(ByResource by_resource);
  void RegisterResource(const std::string& key_root, const std::string& group, const std::string& resource);
  // Where transformations of the configured resources are recorded; set before the first one.
  void set_metrics(TransformationMetrics* metrics) { metrics_ = metrics; }

  StatusOr<std::string> ToStorage(std::string_view data, std::string_view key) const override;
  StatusOr<std::string> FromStorage(std::string_view stored, std::string_view key, bool* stale) const override;
  bool MayBlock(std::string_view key, Direction d, std::string_view stored) const override;
  bool UsesPlugin(std::string_view key) const override;

  // The group resource a key belongs to, and the transformer used for it (for tests and logs).
  GroupResource ResourceOf(std::string_view key) const;
  std::shared_ptr<const Transformer> For(const GroupResource& gr) const;

 private:
  void AddGroupRootsLocked(const ByResource& by_resource);
  // The config's providers of `gr`; null when it names none.
  std::shared_ptr<const Transformer> Configured(const GroupResource& gr) const;

  std::string prefix_;
  mutable std::shared_mutex mu_;
  std::shared_ptr<const ByResource> by_resource_;             // guarded by mu_; replaced whole by Set
  std::map<std::string, GroupResource, std::less<>> roots_;  // guarded by mu_
  TransformationMetrics* metrics_ = nullptr;
};

// Loads --encryption-provider-config and builds the transformer for keys under `prefix`.
StatusOr<std::unique_ptr<ResourceTransformers>> LoadResourceTransformers(const std::string& path,
                                                                         const std::string& prefix);

}  // namespace capstan::storage::transformers
