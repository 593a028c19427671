// cmd/runtime_config.h: --runtime-config as kube-apiserver 1.32 reads it: a comma list of key[=value]
// (repeatable; a later key wins; no value means true) with the keys api/all, api/ga, api/beta,
// api/alpha (switch every version of that stage in kube's resource config), <group>/<version> and
// <group>/<version>/<resource> (v1, api/v1 and v1/... name the core group; api/legacy is dropped), and
// kube's errors: "invalid key with only api/all=false", "runtime-config invalid key x",
// "unknown api groups a,b", "group version g/v that has not been registered", "invalid value of k: v, ...".
//
// The group/versions kube 1.32 knows are its schemes'; those it can serve are its default resource
// config (GA versions on; the beta and alpha versions DefaultAPIResourceConfigSource lists off).
// Capstan serves only GA versions; a version enabled that Capstan does not have is reported by
// NotServed() so the server can say so at start. Thread-safety: immutable after Parse.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "apimachinery/status.h"

namespace capstan::cmd {

class RuntimeConfig {
 public:
  // Kube's default config (no flag given).
  RuntimeConfig();
  // `values`: each --runtime-config occurrence. `priority_and_fairness`: --enable-priority-and-fairness,
  // which kube refuses to combine with flowcontrol.apiserver.k8s.io/v1 (or api/ga, api/all) off.
  static StatusOr<RuntimeConfig> Parse(const std::vector<std::string>& values, bool priority_and_fairness);

  bool VersionEnabled(const std::string& group, const std::string& version) const;
  // A resource (its subresources follow it) of an enabled version, unless switched off on its own;
  // a resource switched on explicitly in a disabled version counts too, as in kube.
  bool ResourceEnabled(const std::string& group, const std::string& version, const std::string& resource) const;
  // "group/version" (core: "v1") of every enabled version that kube could serve and Capstan does not.
  std::vector<std::string> NotServed(const std::set<std::string>& served) const;

 private:
  std::map<std::string, bool> versions_;   // "group/version" -> enabled (the default config's keys)
  std::map<std::string, bool> resources_;  // "group/version/resource" -> enabled
};

}  // namespace capstan::cmd
