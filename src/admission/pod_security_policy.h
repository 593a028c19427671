// admission/pod_security_policy.h: the Pod Security Standards' vocabulary as the PodSecurity plugin
// reads it from namespace labels: levels (privileged < baseline < restricted), versions ("latest" or
// "v1.N"), a level at a version, and the policy of a namespace (one level-version each for enforce,
// audit and warn), with kube's label keys, parse errors and defaulting rules (an enforce label without
// a warn label raises warn to the enforce level). Value types and pure functions; thread-safe.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "apimachinery/field_errors.h"

namespace capstan::admission::psa {

enum class Level { kPrivileged = 0, kBaseline = 1, kRestricted = 2 };

std::string_view LevelName(Level l);
// Unknown text: false (kube's "must be one of privileged, baseline, restricted").
bool ParseLevel(std::string_view text, Level& out);

// "latest" (newer than any v1.N) or v1.N.
struct Version {
  bool latest = true;
  int minor = 0;  // major is always 1

  static Version Latest() { return {}; }
  static Version V1(int minor) { return Version{false, minor}; }
  bool Older(const Version& other) const;
  std::string String() const;  // "latest" or "v1.N"
  bool operator==(const Version& o) const { return latest == o.latest && (latest || minor == o.minor); }
  bool operator!=(const Version& o) const { return !(*this == o); }
};
// "latest" or v1.N with N a decimal without leading zeros; anything else false.
bool ParseVersion(std::string_view text, Version& out);

struct LevelVersion {
  Level level = Level::kPrivileged;
  Version version;
  std::string String() const;  // "restricted:latest", "baseline:v1.25"
  bool operator==(const LevelVersion& o) const { return level == o.level && version == o.version; }
  bool operator!=(const LevelVersion& o) const { return !(*this == o); }
  bool operator<(const LevelVersion& o) const;  // for caching results by level-version
  // Both privileged, or the same level and version.
  bool Equivalent(const LevelVersion& o) const;
};

struct Policy {
  LevelVersion enforce, audit, warn;
  bool FullyPrivileged() const;
  bool Equivalent(const Policy& o) const;
};

// -1, 0 or 1 as a is less, as or more strict than b.
int CompareLevels(Level a, Level b);

inline constexpr char kLabelPrefix[] = "pod-security.kubernetes.io/";
inline constexpr char kEnforceLevelLabel[] = "pod-security.kubernetes.io/enforce";
inline constexpr char kEnforceVersionLabel[] = "pod-security.kubernetes.io/enforce-version";
inline constexpr char kAuditLevelLabel[] = "pod-security.kubernetes.io/audit";
inline constexpr char kAuditVersionLabel[] = "pod-security.kubernetes.io/audit-version";
inline constexpr char kWarnLevelLabel[] = "pod-security.kubernetes.io/warn";
inline constexpr char kWarnVersionLabel[] = "pod-security.kubernetes.io/warn-version";

using Labels = std::map<std::string, std::string, std::less<>>;

// kube's PolicyToEvaluate: the namespace's labels over the configured defaults. A bad enforce level
// reads as restricted (fail closed), a bad audit or warn level as privileged (fail open), a bad
// version as latest; each bad label is one metadata.labels[...] Invalid error.
Policy PolicyToEvaluate(const Labels& labels, const Policy& defaults, ErrorList* errors);

}  // namespace capstan::admission::psa
