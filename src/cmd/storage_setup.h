// cmd/storage_setup.h: the storage a Capstan process runs on, from its flags: the embedded store in
// --data-dir, or an etcd cluster with --etcd-servers; plus encryption at rest
// (--encryption-provider-config), the storage format (--storage-media-type, storage/storage_codec.h)
// and the storage health checks.
//
// With etcd: the health client is made in the background as kube-apiserver makes it
// (storage/etcd3/health_check.h), and start-up waits for it for at most
// --storage-initialization-timeout, then fails with a message naming the endpoints and the last
// error; requests use a client of their own; one replica per interval compacts
// (--etcd-compaction-interval, storage/etcd3/compactor.h). Keys carry --etcd-prefix because the
// registry builds them under it; the backend adds nothing (kube's keys, byte for byte).
//
// Health checks: "storage" for the embedded store; "etcd" (/healthz, /livez, /readyz, with
// --etcd-healthcheck-timeout) and "etcd-readiness" (/readyz, with --etcd-readycheck-timeout) for etcd,
// as kube names them; with --encryption-provider-config-automatic-reload, kube's "kms-providers"
// (/healthz, /readyz) and "poststarthook/start-encryption-provider-config-automatic-reload".
//
// Thread-safety: built and wired once at start; the parts it hands out are thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "apimachinery/status.h"
#include "cmd/options.h"
#include "endpoints/api_registry.h"
#include "server/healthz.h"
#include "storage/backend.h"
#include "storage/object_store.h"
#include "storage/size_monitor.h"
#include "storage/storage_codec.h"
#include "storage/transformer.h"
#include "storage/transformers/config_reloader.h"
#include "storage/transformers/encryption_config.h"
#include "util/metrics.h"

namespace capstan::apimachinery {
class ProtobufCodec;
}
namespace capstan::storage::etcd3 {
class EtcdHealth;
class Compactor;
}  // namespace capstan::storage::etcd3
namespace capstan::storage::transformers {
class ResourceTransformers;
class ConfigReloader;
}
namespace capstan::storage::embedded {
class SnapshotScheduler;
}
namespace capstan::storage::kms {
class KmsProvider;
struct KmsMetrics;
}

namespace capstan::cmd {

// kube's APIServerID: the identity lease name with APIServerIdentity on, else empty (the label the
// configuration-reload metrics hash).
std::string ApiServerId();

class StorageSetup {
 public:
  // `protobuf` (the built-in kinds' codec) must outlive the setup; it reads and writes kube's
  // protobuf values.
  static StatusOr<std::unique_ptr<StorageSetup>> Open(const Options& options, MetricsRegistry& metrics,
                                                      const apimachinery::ProtobufCodec* protobuf);
  ~StorageSetup();

  // The backend, for the caller to own (it must outlive the compactor and transformer users: the
  // caller keeps this StorageSetup alive as long as the backend).
  std::unique_ptr<storage::Backend> TakeBackend() { return std::move(backend_); }
  // null when every value is stored as it is (no --encryption-provider-config).
  const storage::Transformer* transformer() const;
  // How values are encoded (kube's storage format for each registered built-in resource).
  const storage::StorageCodec* codec() const { return codec_.get(); }
  // Starts the compactor on `backend` (etcd only).
  void StartCompactor(storage::Backend& backend);
  // --snapshot-interval: scheduled snapshots of the embedded store (storage/embedded/snapshot_scheduler.h).
  void StartSnapshots(storage::Backend& backend);
  // apiserver_storage_size_bytes for `backend` in /metrics (storage/size_monitor.h).
  void StartSizeMonitor(storage::Backend& backend, MetricsRegistry& metrics);
  void AddHealthChecks(server::HealthChecks& health, storage::Backend& backend);
  // One check per --etcd-servers endpoint, of that member alone (componentstatuses' etcd-N, as kube
  // probes each server), with --etcd-healthcheck-timeout; for the embedded store one check of it.
  std::vector<server::HealthChecks::Check> MemberChecks(storage::Backend& backend);
  // Whether `backend`'s watch progress answers are in order (the watch cache's
  // WatchCacheFlags::progress_reliable): always for the embedded store; for etcd, whether the
  // members' version answers progress requests after every earlier event (3.4.31+, 3.5.13+). On
  // older etcd the watch cache sends consistent reads to etcd instead of waiting for freshness it
  // cannot prove. The function reads the version each call (a rolling upgrade turns it on).
  std::function<bool()> WatchProgressReliable(storage::Backend& backend) const;
  // Moves objects from keys earlier Capstan releases used to kube's keys (ingresses to
  // <prefix>/ingress, APIServices to <prefix>/apiregistration.k8s.io/apiservices), so an existing
  // data dir keeps its objects. Runs once at start, before anything is served.
  Status MoveLegacyKeys(storage::ObjectStore& objects);
  // Tells the encryption transformer which group/resource each served resource's key root holds, and
  // the codec which built-in kind (its storage version) is stored there.
  void RegisterResources(const endpoints::ApiRegistry& apis);

 private:
  StorageSetup() = default;
  // Builds KMS v1 and v2 providers, each kept in `made` too (for the health check).
  storage::transformers::KmsFactory KmsFactory(std::vector<std::shared_ptr<storage::kms::KmsProvider>>* made);
  // The reloader's builder: the new file's transformers with its KMS providers, whose kms-providers
  // check becomes the one /healthz runs once the file is in effect.
  storage::transformers::ReloadBuilder ReloadBuilder();
  std::vector<std::shared_ptr<storage::kms::KmsProvider>> KmsProviders() const;

  Options options_;
  std::unique_ptr<storage::Backend> backend_;
  std::unique_ptr<storage::etcd3::EtcdHealth> etcd_health_;
  // With several endpoints: a health client of each member alone (same order as --etcd-servers).
  std::vector<std::unique_ptr<storage::etcd3::EtcdHealth>> member_health_;
  std::unique_ptr<storage::etcd3::Compactor> compactor_;
  std::unique_ptr<storage::embedded::SnapshotScheduler> snapshots_;
  std::unique_ptr<storage::SizeMonitor> size_monitor_;
  std::unique_ptr<storage::kms::KmsMetrics> kms_metrics_;  // before the transformers (KMS providers use it)
  std::unique_ptr<storage::transformers::TransformationMetrics> transformation_metrics_;  // before transformers_
  std::unique_ptr<storage::transformers::ResourceTransformers> transformers_;
  std::unique_ptr<storage::StorageCodec> codec_;
  // --encryption-provider-config-automatic-reload; declared after transformers_, which it updates.
  std::unique_ptr<storage::transformers::ConfigReloader> reloader_;
  mutable std::mutex kms_mu_;
  std::vector<std::shared_ptr<storage::kms::KmsProvider>> kms_;  // of the config in effect; guarded by kms_mu_
};

}  // namespace capstan::cmd
