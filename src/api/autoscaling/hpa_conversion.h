// api/autoscaling/hpa_conversion.h: kube's conversion of HorizontalPodAutoscalers between
// autoscaling/v1 and autoscaling/v2 (the storage version).
//
// v1 has one metric (targetCPUUtilizationPercentage) and one observed value
// (currentCPUUtilizationPercentage); what it cannot express travels in annotations, as kube does, so a
// v1 client that reads, changes and writes back an object keeps it whole:
//   autoscaling.alpha.kubernetes.io/metrics          the other metric specs (v1's alpha MetricSpec JSON)
//   autoscaling.alpha.kubernetes.io/current-metrics  every metric status
//   autoscaling.alpha.kubernetes.io/behavior         spec.behavior (kube's internal JSON, Go field names)
//   autoscaling.alpha.kubernetes.io/conditions       status.conditions
// V1ToV2 applies v1's defaulting (minReplicas 1; with no metric at all, CPU at 80%) and removes those
// annotations; V2ToV1 drops any such annotation the stored object carries and writes fresh ones.
// Pure functions; thread-safe.
#pragma once

#include <boost/json.hpp>

#include "apimachinery/status.h"

namespace capstan::api::autoscaling {

inline constexpr std::string_view kMetricSpecsAnnotation = "autoscaling.alpha.kubernetes.io/metrics";
inline constexpr std::string_view kMetricStatusesAnnotation = "autoscaling.alpha.kubernetes.io/current-metrics";
inline constexpr std::string_view kBehaviorSpecsAnnotation = "autoscaling.alpha.kubernetes.io/behavior";
inline constexpr std::string_view kConditionsAnnotation = "autoscaling.alpha.kubernetes.io/conditions";
inline constexpr int kDefaultCpuUtilization = 80;

StatusOr<boost::json::object> HpaV1ToV2(boost::json::object v1);
StatusOr<boost::json::object> HpaV2ToV1(boost::json::object v2);

}  // namespace capstan::api::autoscaling
