// api/scheduling/scheduling_descriptions.h: the scheduling.k8s.io/v1 field descriptions kube's
// printers use as column descriptions (generated from the API's documentation).
#pragma once

namespace capstan::api::scheduling {

inline constexpr const char* kValue =
    "value represents the integer value of this priority class. This is the actual priority that pods receive when they have the name of this class in their pod spec.";
inline constexpr const char* kGlobalDefault =
    "globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class. Only one PriorityClass can be marked as `globalDefault`. However, if more than one PriorityClasses exists with their `globalDefault` field set to true, the smallest value of such global default PriorityClasses will be used as the default priority.";
inline constexpr const char* kPreemptionPolicy =
    "preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.";

}  // namespace capstan::api::scheduling
