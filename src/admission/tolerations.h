// admission/tolerations.h: a pod toleration as a value, and kube's pkg/util/tolerations rules over
// lists of them: when one toleration tolerates everything another does (IsSuperset), the merge of two
// lists that keeps only the broadest (MergeTolerations), and whether every toleration of a pod is
// covered by a whitelist (VerifyAgainstWhitelist). Also kube's ValidateTolerations for tolerations
// given in configurations. Values and pure functions; thread-safe.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "apimachinery/field_errors.h"

namespace capstan::admission {

struct Toleration {
  std::string key;
  std::string op;  // "Equal", "Exists", or "" (Equal)
  std::string value;
  std::string effect;  // "" matches every effect
  std::optional<int64_t> toleration_seconds;

  bool operator==(const Toleration&) const = default;
  // The v1 form, fields in kube's order, empty ones omitted.
  boost::json::object ToJson() const;
};

// True when `ss` tolerates every taint `t` tolerates.
bool IsSuperset(const Toleration& ss, const Toleration& t);

// `first` then `second`, without the tolerations another one of the list covers (of two equal ones,
// the first stays).
std::vector<Toleration> MergeTolerations(const std::vector<Toleration>& first, const std::vector<Toleration>& second);

// Every toleration is covered by one of the whitelist's; an empty whitelist or list passes.
bool VerifyAgainstWhitelist(const std::vector<Toleration>& tolerations, const std::vector<Toleration>& whitelist);

// kube's core ValidateTolerations, each toleration at path[i].
ErrorList ValidateTolerations(const std::vector<Toleration>& tolerations, const FieldPath& path);

}  // namespace capstan::admission
