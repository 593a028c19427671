// storage/transformers/kms/kms_metrics.h: kube's KMS v2 envelope metrics, one set per metrics registry,
// shared by every KMS v2 provider:
//   apiserver_envelope_encryption_kms_operations_latency_seconds{provider_name, method_name, grpc_status_code}
//   apiserver_envelope_encryption_key_id_hash_total{transformation_type, provider_name, key_id_hash, apiserver_id_hash}
//   apiserver_envelope_encryption_dek_source_cache_size{provider_name}
//   apiserver_envelope_encryption_dek_cache_fill_percent (KMS v1's DEK cache)
// Hashes are kube's "sha256:<hex>" (transformers::Sha256Label). Thread-safe.
#pragma once

#include <string>

#include "util/metrics.h"

namespace capstan::storage::kms {

struct KmsMetrics {
  explicit KmsMetrics(MetricsRegistry& reg, std::string apiserver_id);
  HistogramVec& latency;
  CounterVec& key_id_hash_total;
  GaugeVec& dek_source_cache_size;
  Gauge& dek_cache_fill_percent;
  const std::string apiserver_id_hash;

  // transformation_type: "from_storage" or "to_storage".
  void RecordKeyId(const char* transformation_type, const std::string& provider, const std::string& key_id);
};

}  // namespace capstan::storage::kms
