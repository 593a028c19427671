#include "storage/transformers/kms/kms_metrics.h"

#include "storage/transformers/encryption_config.h"

namespace capstan::storage::kms {

namespace {

double UnixNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

KmsMetrics::KmsMetrics(MetricsRegistry& reg, std::string apiserver_id)
    : latency(reg.NewHistogramVec("apiserver_envelope_encryption_kms_operations_latency_seconds",
                                  "KMS operation duration with gRPC error code status total.",
                                  {"provider_name", "method_name", "grpc_status_code"},
                                  ExponentialBuckets(0.0001, 2, 20))),
      key_id_hash_total(reg.NewCounterVec(
          "apiserver_envelope_encryption_key_id_hash_total",
          "Number of times a keyID is used split by transformation type, provider, and apiserver identity.",
          {"transformation_type", "provider_name", "key_id_hash", "apiserver_id_hash"})),
      key_id_hash_last_timestamp(reg.NewGaugeVec(
          "apiserver_envelope_encryption_key_id_hash_last_timestamp_seconds",
          "The last time in seconds when a keyID was used.",
          {"transformation_type", "provider_name", "key_id_hash", "apiserver_id_hash"})),
      key_id_hash_status_last_timestamp(reg.NewGaugeVec(
          "apiserver_envelope_encryption_key_id_hash_status_last_timestamp_seconds",
          "The last time in seconds when a keyID was returned by the Status RPC call.",
          {"provider_name", "key_id_hash", "apiserver_id_hash"})),
      invalid_key_id_from_status(reg.NewCounterVec(
          "apiserver_envelope_encryption_invalid_key_id_from_status_total",
          "Number of times an invalid keyID is returned by the Status RPC call split by error.",
          {"provider_name", "error"})),
      dek_source_cache_size(reg.NewGaugeVec(
          "apiserver_envelope_encryption_dek_source_cache_size",
          "Number of records in data encryption key (DEK) source cache. On a restart, this value is an "
          "approximation of the number of decrypt RPC calls the server will make to the KMS plugin.",
          {"provider_name"})),
      dek_cache_fill_percent(reg.NewGauge("apiserver_envelope_encryption_dek_cache_fill_percent",
                                          "Percent of the cache slots currently occupied by cached DEKs.")),
      dek_cache_inter_arrival(reg.NewHistogramVec("apiserver_envelope_encryption_dek_cache_inter_arrival_time_seconds",
                                                  "Time (in seconds) of inter arrival of transformation requests.",
                                                  {"transformation_type"}, ExponentialBuckets(60, 2, 10))),
      cache_misses(reg.NewCounter("apiserver_storage_envelope_transformation_cache_misses_total",
                                  "Total number of cache misses while accessing key decryption key(KEK).")),
      dek_generation(reg.NewHistogramVec("apiserver_storage_data_key_generation_duration_seconds",
                                         "Latencies in seconds of data encryption key(DEK) generation operations.", {},
                                         ExponentialBuckets(5e-6, 2, 14))),
      dek_generation_failures(reg.NewCounter("apiserver_storage_data_key_generation_failures_total",
                                             "Total number of failed data encryption key(DEK) generation operations.")),
      apiserver_id_hash(transformers::Sha256Label(apiserver_id)) {}

void KmsMetrics::RecordKeyId(const char* transformation_type, const std::string& provider, const std::string& key_id) {
  const std::string hash = transformers::Sha256Label(key_id);
  key_id_hash_total.With({transformation_type, provider, hash, apiserver_id_hash})->Inc();
  key_id_hash_last_timestamp.With({transformation_type, provider, hash, apiserver_id_hash})->Set(UnixNow());
}

void KmsMetrics::RecordKeyIdFromStatus(const std::string& provider, const std::string& key_id) {
  if (key_id.empty() || key_id.size() > kKeyIdMaxSize) {
    invalid_key_id_from_status.With({provider, key_id.empty() ? "empty" : "too_long"})->Inc();
    return;
  }
  key_id_hash_status_last_timestamp.With({provider, transformers::Sha256Label(key_id), apiserver_id_hash})
      ->Set(UnixNow());
}

void KmsMetrics::RecordArrival(const char* transformation_type) {
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(arrival_mu_);
  auto& last = std::string_view(transformation_type) == "from_storage" ? last_from_ : last_to_;
  if (last == std::chrono::steady_clock::time_point()) last = now;
  dek_cache_inter_arrival.With({transformation_type})->Observe(std::chrono::duration<double>(now - last).count());
  last = now;
}

void KmsMetrics::RecordDekGeneration(std::chrono::steady_clock::time_point start, bool ok) {
  if (!ok) {
    dek_generation_failures.Inc();
    return;
  }
  dek_generation.With({})->Observe(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

}  // namespace capstan::storage::kms
