// storage/transformers/kms/kms_v1_envelope.h: kube's KMS v1 envelope transformer (deprecated; kube 1.32
// allows it only with the KMSv1 feature gate). What follows "k8s:enc:kms:v1:<name>:" is kube's layout:
// a big-endian uint16 length, the DEK as the plugin encrypted it, then the value sealed with AES-CBC
// (kube's aescbc transformer) under that DEK.
//
// Writes: every value gets a new 32-byte DEK, which the plugin encrypts (Encrypt). Reads: the DEK is
// looked up in an LRU cache of `cache_size` entries keyed by the encrypted DEK (kube's cachesize,
// default 1000; negative: no cache), a miss asks the plugin to Decrypt it. Before its first call the
// client checks the plugin's Version is v1beta1, as kube's. Check(): kube's kms-providers check, an
// Encrypt of "ping", its result kept 20 s when healthy and 3 s when not.
// Calls block the calling thread for at most the provider's timeout.
// Thread-safety: thread-safe.
#pragma once

#include <chrono>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "storage/transformers/kms/kms_metrics.h"
#include "storage/transformers/kms/kms_provider.h"

namespace capstan::storage::kms {

class KmsV1Client;

class KmsV1Envelope : public KmsProvider {
 public:
  // `metrics` (may be null) outlives the envelope.
  KmsV1Envelope(const transformers::KmsConfig& config, KmsMetrics* metrics = nullptr,
                std::chrono::milliseconds healthy_check = std::chrono::seconds(20),
                std::chrono::milliseconds unhealthy_check = std::chrono::seconds(3));
  ~KmsV1Envelope() override;
  KmsV1Envelope(const KmsV1Envelope&) = delete;
  KmsV1Envelope& operator=(const KmsV1Envelope&) = delete;

  StatusOr<std::string> ToStorage(std::string_view data, std::string_view key) const override;
  bool MayBlock(std::string_view key, Direction d, std::string_view stored) const override;
  StatusOr<std::string> FromStorage(std::string_view stored, std::string_view key, bool* stale) const override;
  capstan::Status Check() override;
  std::string_view api_version() const override { return "v1"; }

  size_t cached_keys() const;

 private:
  // The DEK of an encrypted DEK, from the cache (nullopt on a miss); a hit becomes the most recent.
  std::optional<std::string> CachedKey(const std::string& encrypted) const;
  void CacheKey(const std::string& encrypted, const std::string& dek) const;

  const std::string name_;
  const int cache_size_;
  std::unique_ptr<KmsV1Client> client_;
  KmsMetrics* metrics_;

  mutable std::mutex mu_;
  // LRU: most recent first; the map points into the list.
  mutable std::list<std::pair<std::string, std::string>> lru_;  // guarded by mu_: encrypted DEK, DEK
  mutable std::unordered_map<std::string, std::list<std::pair<std::string, std::string>>::iterator> index_;

  CachedCheck check_;
};

}  // namespace capstan::storage::kms
