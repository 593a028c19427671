#include "admission/tolerations.h"

#include <boost/json.hpp>

#include "apimachinery/object_meta_validation.h"
#include "apimachinery/validation.h"
#include "util/strings.h"

namespace capstan::admission {

namespace am = capstan::apimachinery;
namespace json = boost::json;

json::object Toleration::ToJson() const {
  json::object o;
  if (!key.empty()) o["key"] = key;
  if (!op.empty()) o["operator"] = op;
  if (!value.empty()) o["value"] = value;
  if (!effect.empty()) o["effect"] = effect;
  if (toleration_seconds) o["tolerationSeconds"] = *toleration_seconds;
  return o;
}

bool IsSuperset(const Toleration& ss, const Toleration& t) {
  if (t == ss) return true;
  // An empty key with Exists matches every key.
  if (t.key != ss.key && (!ss.key.empty() || ss.op != "Exists")) return false;
  if (t.effect != ss.effect && !ss.effect.empty()) return false;
  if (ss.effect == "NoExecute" && ss.toleration_seconds) {
    if (!t.toleration_seconds || *t.toleration_seconds > *ss.toleration_seconds) return false;
  }
  if (ss.op == "Equal" || ss.op.empty()) return t.op == "Equal" && t.value == ss.value;
  return ss.op == "Exists";
}

std::vector<Toleration> MergeTolerations(const std::vector<Toleration>& first, const std::vector<Toleration>& second) {
  std::vector<Toleration> all = first;
  all.insert(all.end(), second.begin(), second.end());
  std::vector<Toleration> merged;
  for (size_t i = 0; i < all.size(); ++i) {
    const Toleration& t = all[i];
    bool redundant = false;
    for (const auto& m : merged) redundant = redundant || IsSuperset(m, t);
    for (size_t j = i + 1; j < all.size() && !redundant; ++j) redundant = !(t == all[j]) && IsSuperset(all[j], t);
    if (!redundant) merged.push_back(t);
  }
  return merged;
}

bool VerifyAgainstWhitelist(const std::vector<Toleration>& tolerations, const std::vector<Toleration>& whitelist) {
  if (whitelist.empty()) return true;
  for (const auto& t : tolerations) {
    bool covered = false;
    for (const auto& w : whitelist) covered = covered || IsSuperset(w, t);
    if (!covered) return false;
  }
  return true;
}

ErrorList ValidateTolerations(const std::vector<Toleration>& tolerations, const FieldPath& path) {
  ErrorList errs;
  for (size_t i = 0; i < tolerations.size(); ++i) {
    const Toleration& t = tolerations[i];
    FieldPath p = path.Index(i);
    if (!t.key.empty()) {
      ErrorList more = am::ValidateLabelName(t.key, p.Child("key"));
      errs.insert(errs.end(), more.begin(), more.end());
    }
    if (t.key.empty() && t.op != "Exists") {
      errs.push_back(InvalidError(p.Child("operator"), t.op,
                                  "operator must be Exists when `key` is empty, which means \"match all values and all keys\""));
    }
    if (t.toleration_seconds && t.effect != "NoExecute") {
      errs.push_back(InvalidError(p.Child("effect"), t.effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    if (t.op == "Equal" || t.op.empty()) {
      if (auto problems = am::IsValidLabelValue(t.value); !problems.empty()) {
        errs.push_back(InvalidError(p.Child("operator"), t.value, Join(problems, ";")));
      }
    } else if (t.op == "Exists") {
      if (!t.value.empty()) errs.push_back(InvalidError(p.Child("operator"), t.value, "value must be empty when `operator` is 'Exists'"));
    } else {
      errs.push_back(NotSupportedError(p.Child("operator"), t.op, {"Equal", "Exists"}));
    }
    if (!t.effect.empty() && t.effect != "NoSchedule" && t.effect != "PreferNoSchedule" && t.effect != "NoExecute") {
      errs.push_back(NotSupportedError(p.Child("effect"), t.effect, {"NoSchedule", "PreferNoSchedule", "NoExecute"}));
    }
  }
  return errs;
}

}  // namespace capstan::admission
