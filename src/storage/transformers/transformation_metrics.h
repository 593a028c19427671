// storage/transformers/transformation_metrics.h: kube's storage value metrics
// (k8s.io/apiserver/pkg/storage/value), which ResourceTransformers records for every value of a
// resource the encryption config names:
//   apiserver_storage_transformation_operations_total{resource, transformation_type, transformer_prefix, status}
//   apiserver_storage_transformation_duration_seconds{transformation_type, transformer_prefix} (successes)
// transformation_type is "to_storage" or "from_storage"; transformer_prefix the provider's whole prefix
// ("k8s:enc:aescbc:v1:key1:", "k8s:enc:kms:v2:name:"), "identity", or "unknown" when no provider
// matched; status "OK", the gRPC code of a failed KMS call, else "unknown-non-grpc". kube takes
// `resource` from the request; Capstan from the storage key, so reads of the watch cache are labelled
// too. Thread-safe.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "apimachinery/status.h"
#include "util/metrics.h"

namespace capstan::storage::transformers {

struct TransformationMetrics {
  explicit TransformationMetrics(MetricsRegistry& reg);
  void Record(const std::string& resource, const char* transformation_type, const std::string& prefix,
              std::chrono::steady_clock::duration elapsed, const Status& result);

  CounterVec& operations;
  HistogramVec& duration;
};

// kube's getErrorCode for a transformation's result.
std::string TransformationStatus(const Status& result);

}  // namespace capstan::storage::transformers
