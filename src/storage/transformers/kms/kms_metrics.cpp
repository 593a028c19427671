#include "storage/transformers/kms/kms_metrics.h"

#include "storage/transformers/encryption_config.h"

namespace capstan::storage::kms {

KmsMetrics::KmsMetrics(MetricsRegistry& reg, std::string apiserver_id)
    : latency(reg.NewHistogramVec("apiserver_envelope_encryption_kms_operations_latency_seconds",
                                  "KMS operation duration with gRPC error code status total.",
                                  {"provider_name", "method_name", "grpc_status_code"},
                                  ExponentialBuckets(0.0001, 2, 20))),
      key_id_hash_total(reg.NewCounterVec(
          "apiserver_envelope_encryption_key_id_hash_total",
          "Number of times a keyID is used split by transformation type, provider, and apiserver identity.",
          {"transformation_type", "provider_name", "key_id_hash", "apiserver_id_hash"})),
      dek_source_cache_size(reg.NewGaugeVec(
          "apiserver_envelope_encryption_dek_source_cache_size",
          "Number of records in data encryption key (DEK) source cache. On a restart, this value is an "
          "approximation of the number of decrypt RPC calls the server will make to the KMS plugin.",
          {"provider_name"})),
      dek_cache_fill_percent(reg.NewGauge("apiserver_envelope_encryption_dek_cache_fill_percent",
                                          "Percent of the cache slots currently occupied by cached DEKs.")),
      apiserver_id_hash(transformers::Sha256Label(apiserver_id)) {}

void KmsMetrics::RecordKeyId(const char* transformation_type, const std::string& provider, const std::string& key_id) {
  key_id_hash_total.With({transformation_type, provider, transformers::Sha256Label(key_id), apiserver_id_hash})->Inc();
}

}  // namespace capstan::storage::kms
