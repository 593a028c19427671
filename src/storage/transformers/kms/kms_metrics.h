// storage/transformers/kms/kms_metrics.h: kube's KMS envelope metrics, one set per metrics registry,
// shared by every KMS provider:
//   apiserver_envelope_encryption_kms_operations_latency_seconds{provider_name, method_name, grpc_status_code}
//   apiserver_envelope_encryption_key_id_hash_total{transformation_type, provider_name, key_id_hash, apiserver_id_hash}
//   apiserver_envelope_encryption_key_id_hash_last_timestamp_seconds{same labels}
//   apiserver_envelope_encryption_key_id_hash_status_last_timestamp_seconds{provider_name, key_id_hash, apiserver_id_hash}
//   apiserver_envelope_encryption_invalid_key_id_from_status_total{provider_name, error}
//   apiserver_envelope_encryption_dek_source_cache_size{provider_name}
//   apiserver_envelope_encryption_dek_cache_fill_percent (KMS v1's DEK cache)
//   apiserver_envelope_encryption_dek_cache_inter_arrival_time_seconds{transformation_type} (KMS v1)
//   apiserver_storage_envelope_transformation_cache_misses_total (a DEK the plugin had to decrypt)
//   apiserver_storage_data_key_generation_duration_seconds, _failures_total (v1 DEKs, v2 seeds)
// Hashes are kube's "sha256:<hex>" (transformers::Sha256Label); timestamps are Unix seconds. Thread-safe.
#pragma once

#include <chrono>
#include <mutex>
#include <string>

#include "util/metrics.h"

namespace capstan::storage::kms {

struct KmsMetrics {
  explicit KmsMetrics(MetricsRegistry& reg, std::string apiserver_id);
  HistogramVec& latency;
  CounterVec& key_id_hash_total;
  GaugeVec& key_id_hash_last_timestamp;
  GaugeVec& key_id_hash_status_last_timestamp;
  CounterVec& invalid_key_id_from_status;
  GaugeVec& dek_source_cache_size;
  Gauge& dek_cache_fill_percent;
  HistogramVec& dek_cache_inter_arrival;
  Counter& cache_misses;
  HistogramVec& dek_generation;
  Counter& dek_generation_failures;
  const std::string apiserver_id_hash;

  // transformation_type: "from_storage" or "to_storage".
  void RecordKeyId(const char* transformation_type, const std::string& provider, const std::string& key_id);
  // A key ID the plugin's Status returned: its hash and time, or, when kube's ValidateKeyID refuses it,
  // invalid_key_id_from_status_total{error} ("empty", "too_long").
  void RecordKeyIdFromStatus(const std::string& provider, const std::string& key_id);
  // kube's RecordArrival: the time since the previous transformation of that type (KMS v1).
  void RecordArrival(const char* transformation_type);
  // A DEK or seed generated since `start`: its duration, or a failure.
  void RecordDekGeneration(std::chrono::steady_clock::time_point start, bool ok);

 private:
  std::mutex arrival_mu_;
  std::chrono::steady_clock::time_point last_from_, last_to_;  // guarded by arrival_mu_
};

// kube's KeyIDMaxSize: a key ID longer than this is refused.
inline constexpr size_t kKeyIdMaxSize = 1024;

}  // namespace capstan::storage::kms
