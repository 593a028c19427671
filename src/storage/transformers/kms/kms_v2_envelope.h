// storage/transformers/kms/kms_v2_envelope.h: kube's KMS v2 envelope transformer, with KMSv2KDF (on and
// locked in kube 1.32): what follows "k8s:enc:kms:v2:<name>:" is kube's EncryptedObject protobuf.
//
// Writes: one 32-byte seed is made at start and whenever the plugin's Status reports a new key_id; the
// plugin encrypts it once (Encrypt) and the EncryptedObject carries that encryptedDEKSource, its keyID
// and annotations, type HKDF_SHA256_XNONCE_AES_GCM_SEED. Each value gets 32 random bytes of info, its
// key is HKDF-SHA256-Expand(seed, info), and encryptedData is info || AES-GCM (random 12-byte nonce,
// the storage key as associated data) — kube's layout, byte for byte.
// Reads: the DEK source is looked up in a cache keyed as kube's (type, encrypted source, key ID,
// annotations), where an entry lives an hour from when it was added (kube's expiring cache, cacheTTL);
// a miss asks the plugin to Decrypt it. So reads of values whose DEK is cached go on
// while the plugin is down, and other reads fail closed (500 for that object). A value written under
// another key ID than the plugin's current one reads as stale (rewrite it). AES_GCM_KEY sources (kube
// without KDF) read too.
// Status is polled every minute (every 10 s while unhealthy); writes fail once no Status succeeded for
// 3 minutes, as kube's. A healthy Status: healthz "ok", version v2 (or v2beta1), a key ID of at most
// 1 KiB; failures worded as kube's isKMSv2ProviderHealthyAndMaybeRotateDEK. Check(): the
// kms-providers health check, whose result is kept 20 s when healthy and 3 s when not (kube's
// kmsPluginHealthzPositiveTTL and NegativeTTL), so probes do not each call the plugin.
//
// Metrics (kms_metrics.h): each plugin call's latency, each key ID use and Status answer, the DEK
// source cache size, cache misses, seed generation. A read whose seed is not cached calls the plugin
// and blocks its thread for at most the provider's timeout; MayBlock says so, and the store then
// reads on the blocking pool.
// Thread-safety: thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "storage/transformers/encryption_config.h"
#include "storage/transformers/kms/kms_metrics.h"
#include "storage/transformers/kms/kms_provider.h"
#include "storage/transformers/kms/kms_v2_client.h"

namespace capstan::storage::kms {

// How long a DEK source stays cached and a health check's result is reused (kube's values).
struct KmsV2Ttls {
  std::chrono::milliseconds source_cache{std::chrono::hours(1)};       // kube's cacheTTL
  std::chrono::milliseconds healthy_check{std::chrono::seconds(20)};   // kmsPluginHealthzPositiveTTL
  std::chrono::milliseconds unhealthy_check{std::chrono::seconds(3)};  // kmsPluginHealthzNegativeTTL
};

class KmsV2Envelope : public KmsProvider {
 public:
  // A memory bound kube does not have: past it, the source that expires first makes room.
  static constexpr size_t kMaxCachedSources = 1000;
  static constexpr std::chrono::minutes kWriteSourceMaxTtl{3};

  using Ttls = KmsV2Ttls;

  // `metrics` (may be null) outlives the envelope.
  KmsV2Envelope(std::string name, std::unique_ptr<KmsV2Client> client, KmsMetrics* metrics = nullptr, Ttls ttls = {});
  ~KmsV2Envelope() override;
  KmsV2Envelope(const KmsV2Envelope&) = delete;
  KmsV2Envelope& operator=(const KmsV2Envelope&) = delete;

  StatusOr<std::string> ToStorage(std::string_view data, std::string_view key) const override;
  bool MayBlock(std::string_view key, Direction d, std::string_view stored) const override;
  StatusOr<std::string> FromStorage(std::string_view stored, std::string_view key, bool* stale) const override;

  // Checks Status now and makes a new seed when the key ID changed (the poller does this on its own).
  capstan::Status Refresh();
  // The kms-providers health check of this provider: Refresh, with kube's message on failure; the
  // result is reused for the healthy or unhealthy TTL.
  capstan::Status Check() override;
  std::string_view api_version() const override { return "v2"; }
  std::string current_key_id() const;

 private:
  struct WriteState;
  void Poll();
  // One Status call, checked as kube checks it.
  StatusOr<PluginStatus> HealthyStatus() const;
  capstan::Status Unhealthy(const std::string& error) const;

  void CacheSourceLocked(const std::string& cache_key, std::string source) const;

  const std::string name_;
  std::unique_ptr<KmsV2Client> client_;
  KmsMetrics* metrics_;
  std::mutex refresh_mu_;  // serializes Refresh (taken before mu_)
  mutable std::mutex mu_;
  std::shared_ptr<const WriteState> state_;                    // guarded by mu_; null until the first seed
  std::chrono::steady_clock::time_point state_valid_until_;    // guarded by mu_
  struct CachedSource {
    std::string source;  // the plaintext DEK source
    std::chrono::steady_clock::time_point expires;
  };
  mutable std::map<std::string, CachedSource> seeds_;  // guarded by mu_: by kube's cache key
  const Ttls ttls_;
  CachedCheck check_;
  std::condition_variable cv_;
  bool stopping_ = false;  // guarded by mu_
  std::thread poller_;
};

}  // namespace capstan::storage::kms
