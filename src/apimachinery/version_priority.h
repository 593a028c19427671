// apimachinery/version_priority.h: kube's ordering of API version names
// (k8s.io/apimachinery/pkg/version.CompareKubeAwareVersionStrings).
//
// Kube-like names are "v<major>" (GA), "v<major>beta<minor>" and "v<major>alpha<minor>"; they sort GA
// before beta before alpha, then by major, then by minor, higher first: v2, v1, v1beta2, v1beta1,
// v1alpha1. Every other name sorts after them, alphabetically. Discovery lists a group's versions in
// this order (built-in groups, CRD groups, APIServices of equal versionPriority), and a group's
// preferred version is the first. Pure functions.
#pragma once

#include <string_view>

namespace capstan::apimachinery {

// > 0 when `a` has the higher priority (sorts first), < 0 when `b` has, 0 when they are equal.
int CompareKubeAwareVersionStrings(std::string_view a, std::string_view b);

// Whether `a` sorts before `b` (a strict weak order, for std::sort).
inline bool KubeAwareVersionLess(std::string_view a, std::string_view b) {
  return CompareKubeAwareVersionStrings(a, b) > 0;
}

}  // namespace capstan::apimachinery
