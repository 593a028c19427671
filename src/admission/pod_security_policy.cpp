#include "admission/pod_security_policy.h"

#include <tuple>

namespace capstan::admission::psa {

std::string_view LevelName(Level l) {
  switch (l) {
    case Level::kPrivileged: return "privileged";
    case Level::kBaseline: return "baseline";
    case Level::kRestricted: return "restricted";
  }
  return "privileged";
}

bool ParseLevel(std::string_view text, Level& out) {
  if (text == "privileged") {
    out = Level::kPrivileged;
  } else if (text == "baseline") {
    out = Level::kBaseline;
  } else if (text == "restricted") {
    out = Level::kRestricted;
  } else {
    return false;
  }
  return true;
}

bool Version::Older(const Version& other) const {
  if (latest) return false;
  if (other.latest) return true;
  return minor < other.minor;
}

std::string Version::String() const { return latest ? "latest" : "v1." + std::to_string(minor); }

bool ParseVersion(std::string_view text, Version& out) {
  if (text == "latest") {
    out = Version::Latest();
    return true;
  }
  if (text.size() < 4 || text.substr(0, 3) != "v1.") return false;
  std::string_view digits = text.substr(3);
  if (digits.size() > 1 && digits[0] == '0') return false;
  if (digits.size() > 9) return false;  // past any real version; kube's Atoi would overflow much later
  int n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + (c - '0');
  }
  out = Version::V1(n);
  return true;
}

std::string LevelVersion::String() const { return std::string(LevelName(level)) + ":" + version.String(); }

bool LevelVersion::operator<(const LevelVersion& o) const {
  return std::make_tuple(static_cast<int>(level), version.latest, version.latest ? 0 : version.minor) <
         std::make_tuple(static_cast<int>(o.level), o.version.latest, o.version.latest ? 0 : o.version.minor);
}

bool LevelVersion::Equivalent(const LevelVersion& o) const {
  return (level == Level::kPrivileged && o.level == Level::kPrivileged) || *this == o;
}

bool Policy::FullyPrivileged() const {
  return enforce.level == Level::kPrivileged && audit.level == Level::kPrivileged && warn.level == Level::kPrivileged;
}

bool Policy::Equivalent(const Policy& o) const {
  return enforce.Equivalent(o.enforce) && audit.Equivalent(o.audit) && warn.Equivalent(o.warn);
}

int CompareLevels(Level a, Level b) {
  int x = static_cast<int>(a), y = static_cast<int>(b);
  return x < y ? -1 : (x > y ? 1 : 0);
}

namespace {

const char kLevelDetail[] = "must be one of privileged, baseline, restricted";
const char kVersionDetail[] = "must be \"latest\" or \"v1.x\"";

void AddError(ErrorList* errors, const char* label, const std::string& value, const char* detail) {
  if (errors) errors->push_back(InvalidError(FieldPath("metadata").Child("labels").Key(label), value, detail));
}

}  // namespace

Policy PolicyToEvaluate(const Labels& labels, const Policy& defaults, ErrorList* errors) {
  Policy p = defaults;
  if (labels.empty()) return p;
  bool has_enforce_level = false, has_warn_level = false, has_warn_version = false;
  auto level_label = [&](const char* key, LevelVersion& lv, Level on_error) -> bool {
    auto it = labels.find(key);
    if (it == labels.end()) return false;
    if (!ParseLevel(it->second, lv.level)) {
      lv.level = on_error;
      AddError(errors, key, it->second, kLevelDetail);
      return false;
    }
    return true;
  };
  auto version_label = [&](const char* key, LevelVersion& lv) -> bool {
    auto it = labels.find(key);
    if (it == labels.end()) return false;
    if (!ParseVersion(it->second, lv.version)) {
      lv.version = Version::Latest();
      AddError(errors, key, it->second, kVersionDetail);
    }
    return true;
  };
  has_enforce_level = level_label(kEnforceLevelLabel, p.enforce, Level::kRestricted);
  version_label(kEnforceVersionLabel, p.enforce);
  level_label(kAuditLevelLabel, p.audit, Level::kPrivileged);
  version_label(kAuditVersionLabel, p.audit);
  has_warn_level = labels.count(kWarnLevelLabel) > 0;
  level_label(kWarnLevelLabel, p.warn, Level::kPrivileged);
  has_warn_version = version_label(kWarnVersionLabel, p.warn);
  if (!has_warn_level && has_enforce_level && CompareLevels(p.enforce.level, p.warn.level) > 0) {
    p.warn.level = p.enforce.level;
    if (!has_warn_version) p.warn.version = p.enforce.version;
  }
  return p;
}

}  // namespace capstan::admission::psa
