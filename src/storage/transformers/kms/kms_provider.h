// storage/transformers/kms/kms_provider.h: a KMS provider of an EncryptionConfiguration (kms: apiVersion
// v1 or v2) as the server holds it: a transformer with kube's kms-providers health check.
// Thread-safety: implementations are thread-safe.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "storage/transformer.h"
#include "storage/transformers/encryption_config.h"

namespace capstan::storage::kms {

class KmsProvider : public Transformer {
 public:
  // The kms-providers health check of this provider, its result kept for kube's TTLs.
  virtual capstan::Status Check() = 0;
  // "v1" or "v2": the configuration's kms apiVersion.
  virtual std::string_view api_version() const = 0;
  bool UsesPlugin(std::string_view) const override { return true; }
  // MayBlock, in the implementations: v1 writes always (each encrypts a new DEK), v2 writes never (they use the seed
  // the health check made); reads when the value's DEK is not cached.
};

// A health check's last result, reused until its TTL (one for a healthy result, one for an
// unhealthy one) has passed since the answer came, as kube's kmsPluginProbe keeps it. Thread-safe;
// concurrent callers wait for one check.
class CachedCheck {
 public:
  CachedCheck(std::chrono::milliseconds healthy, std::chrono::milliseconds unhealthy)
      : healthy_(healthy), unhealthy_(unhealthy) {}
  capstan::Status Run(const std::function<capstan::Status()>& check);

 private:
  const std::chrono::milliseconds healthy_, unhealthy_;
  std::mutex mu_;
  std::chrono::steady_clock::time_point valid_until_;  // guarded by mu_
  capstan::Status result_;                             // guarded by mu_
};

struct KmsMetrics;

// The factory BuildTransformers takes: a KmsV2Envelope for apiVersion v2, a KmsV1Envelope for v1 (the
// config allows v1 only with the KMSv1 gate on); each is kept in `made` too, for the health check.
// `metrics` (may be null) outlives them.
transformers::KmsFactory KmsProviderFactory(std::vector<std::shared_ptr<KmsProvider>>* made, KmsMetrics* metrics);

}  // namespace capstan::storage::kms
