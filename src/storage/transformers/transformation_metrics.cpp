#include "storage/transformers/transformation_metrics.h"

namespace capstan::storage::transformers {

TransformationMetrics::TransformationMetrics(MetricsRegistry& reg)
    : operations(reg.NewCounterVec(
          "apiserver_storage_transformation_operations_total",
          "Total number of transformations. Successful transformation will have a status 'OK' and a varied status "
          "string when the transformation fails. The status, resource, and transformation_type fields can be used "
          "for alerting purposes. For example, you can monitor for encryption/decryption failures using the "
          "transformation_type (e.g., from_storage for decryption and to_storage for encryption). Additionally, "
          "these fields can be used to ensure that the correct transformers are applied to each resource.",
          {"resource", "transformation_type", "transformer_prefix", "status"})),
      duration(reg.NewHistogramVec("apiserver_storage_transformation_duration_seconds",
                                   "Latencies in seconds of value transformation operations.",
                                   {"transformation_type", "transformer_prefix"}, ExponentialBuckets(5e-6, 2, 25))) {}

void TransformationMetrics::Record(const std::string& resource, const char* transformation_type,
                                   const std::string& prefix, std::chrono::steady_clock::duration elapsed,
                                   const Status& result) {
  operations.With({resource, transformation_type, prefix, TransformationStatus(result)})->Inc();
  if (result.ok()) {
    duration.With({transformation_type, prefix})->Observe(std::chrono::duration<double>(elapsed).count());
  }
}

std::string TransformationStatus(const Status& result) {
  if (result.ok()) return "OK";
  // A failed plugin call says "rpc error: code = <Code> desc = ..." (kms/kms_grpc.h), as Go's gRPC status.
  constexpr std::string_view kCode = "rpc error: code = ";
  const std::string& m = result.message();
  if (auto p = m.find(kCode); p != std::string::npos) {
    auto start = p + kCode.size();
    return m.substr(start, m.find(' ', start) - start);
  }
  return "unknown-non-grpc";
}

}  // namespace capstan::storage::transformers
