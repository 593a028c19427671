// storage/transformers/config_reloader.h: --encryption-provider-config-automatic-reload, kube's
// DynamicEncryptionConfigContent controller.
//
// A thread checks the file every poll interval (kube: one minute; Capstan: 2 s, so a rotation step
// takes effect within seconds). It compares the hash of the file's bytes with the hash of
// the configuration in effect; when they differ it parses, validates and builds the new providers and
// swaps them into the ResourceTransformers at once: new writes use the new first provider, and reads
// work for every key the new file still lists (a key that was removed no longer decrypts, as in kube).
// A file that does not load (unreadable, empty, invalid) changes nothing: the configuration in effect
// stays, the error is logged ("error processing encryption config file <path>: <error>") and counted,
// and the check is retried with kube's workqueue backoff (5 ms doubling, at most 1000 s) besides the
// regular poll. Outcomes are counted in kube's metrics:
//   apiserver_encryption_config_controller_automatic_reloads_total{status, apiserver_id_hash}
//   apiserver_encryption_config_controller_automatic_reload_last_timestamp_seconds{status, apiserver_id_hash}
// with status "success" or "failure" and apiserver_id_hash "sha256:<hex of the API server ID>". (kube's
// automatic_reload_success_total and _failures_total were deprecated in 1.30 and are hidden in 1.32.)
// KMS providers of the new file are built by the ReloadBuilder (storage_setup's builds KMS v1 and v2
// providers; the default builds none, so a kms provider fails the reload). As kube's
// validateNewTransformersHealth, the new configuration takes effect only once its KMS health check
// passes, polled every 100 ms for the KMS grace period (2 x the sum of the providers' timeouts, v1's
// counted twice; at least 10 s); until then, and if it never passes, the old one stays in effect. An
// invalid file does not fail the kms-providers check, in kube either.
//
// Thread-safety: CheckOnce is serialized with the thread; Start/Stop from one thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "storage/transformers/resource_transformers.h"
#include "util/metrics.h"

namespace capstan::storage::transformers {

// What a valid file builds before it takes effect.
struct ReloadCandidate {
  ResourceTransformers::ByResource transformers;
  // The new configuration's kms-providers check; null when it has no KMS provider.
  std::function<Status()> health;
  // Called once the configuration is in effect; may be null.
  std::function<void()> activate;
};
using ReloadBuilder = std::function<StatusOr<ReloadCandidate>(const EncryptionConfig&)>;

// kube's KMSCloseGracePeriod of a configuration: 2 x the sum of its KMS timeouts (v1's twice, its
// health check being an Encrypt and a Decrypt).
std::chrono::nanoseconds KmsGracePeriod(const EncryptionConfig& config);

struct ConfigReloaderOptions {
  std::chrono::milliseconds poll_interval{2000};  // kube: one minute
  // The least time a new configuration's KMS health check is given (kube's minKMSPluginCloseGracePeriod).
  std::chrono::milliseconds min_kms_grace{10000};
  ReloadBuilder build;  // null: BuildTransformers without KMS
};

class ConfigReloader {
 public:
  enum class Outcome { kUnchanged, kReloaded, kFailed };

  // `loaded_hash`: the hash of the configuration `target` was built from.
  ConfigReloader(ResourceTransformers& target, std::string path, std::string loaded_hash, std::string apiserver_id,
                 MetricsRegistry& metrics, ConfigReloaderOptions options = {});
  ~ConfigReloader();
  ConfigReloader(const ConfigReloader&) = delete;
  ConfigReloader& operator=(const ConfigReloader&) = delete;

  void Start();
  void Stop();
  bool started() const;
  // One check of the file now (kube's processWorkItem).
  Outcome CheckOnce();
  // automatic_reloads_total{status} so far ("success", "failure").
  double reloads(const std::string& status) const;

 private:
  void Run();
  void Record(const char* status);
  StatusOr<ReloadCandidate> Build(const EncryptionConfig& config) const;
  // Polls the candidate's health check until it passes, the grace period ends, or Stop.
  Status WaitHealthy(const ReloadCandidate& candidate, std::chrono::nanoseconds grace) const;

  ResourceTransformers& target_;
  const std::string path_;
  const ConfigReloaderOptions options_;
  ConfigReloadMetrics metrics_;
  std::mutex check_mu_;       // one check at a time
  std::string loaded_hash_;   // guarded by check_mu_
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  bool stopping_ = false;     // guarded by mu_
  bool started_ = false;      // guarded by mu_
  std::thread thread_;
};

// kube's metrics getHash: "sha256:<hex>", "" for an empty ID.
std::string ApiServerIdHash(const std::string& id);

}  // namespace capstan::storage::transformers
