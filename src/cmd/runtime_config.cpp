#include "cmd/runtime_config.h"

#include <algorithm>
#include <regex>

#include "util/strings.h"

namespace capstan::cmd {

namespace {

// The group/versions of kube-apiserver 1.32's schemes (pkg/apis/*/install, apiextensions, aggregator).
const std::set<std::string>& Registered() {
  static const std::set<std::string> k = {
      "/v1", "admission.k8s.io/v1", "admission.k8s.io/v1beta1", "admissionregistration.k8s.io/v1",
      "admissionregistration.k8s.io/v1alpha1", "admissionregistration.k8s.io/v1beta1", "apiextensions.k8s.io/v1",
      "apiextensions.k8s.io/v1beta1", "apiregistration.k8s.io/v1", "apiregistration.k8s.io/v1beta1", "apps/v1",
      "apps/v1beta1", "apps/v1beta2", "authentication.k8s.io/v1", "authentication.k8s.io/v1alpha1",
      "authentication.k8s.io/v1beta1", "authorization.k8s.io/v1", "authorization.k8s.io/v1beta1", "autoscaling/v1",
      "autoscaling/v2", "autoscaling/v2beta1", "autoscaling/v2beta2", "batch/v1", "batch/v1beta1",
      "certificates.k8s.io/v1", "certificates.k8s.io/v1alpha1", "certificates.k8s.io/v1beta1", "coordination.k8s.io/v1",
      "coordination.k8s.io/v1alpha2", "coordination.k8s.io/v1beta1", "discovery.k8s.io/v1", "discovery.k8s.io/v1beta1",
      "events.k8s.io/v1", "events.k8s.io/v1beta1", "extensions/v1beta1", "flowcontrol.apiserver.k8s.io/v1",
      "flowcontrol.apiserver.k8s.io/v1beta1", "flowcontrol.apiserver.k8s.io/v1beta2", "flowcontrol.apiserver.k8s.io/v1beta3",
      "imagepolicy.k8s.io/v1alpha1", "internal.apiserver.k8s.io/v1alpha1", "networking.k8s.io/v1",
      "networking.k8s.io/v1alpha1", "networking.k8s.io/v1beta1", "node.k8s.io/v1", "node.k8s.io/v1alpha1",
      "node.k8s.io/v1beta1", "policy/v1", "policy/v1beta1", "rbac.authorization.k8s.io/v1",
      "rbac.authorization.k8s.io/v1alpha1", "rbac.authorization.k8s.io/v1beta1", "resource.k8s.io/v1alpha3",
      "resource.k8s.io/v1beta1", "scheduling.k8s.io/v1", "scheduling.k8s.io/v1alpha1", "scheduling.k8s.io/v1beta1",
      "storage.k8s.io/v1", "storage.k8s.io/v1alpha1", "storage.k8s.io/v1beta1", "storagemigration.k8s.io/v1alpha1",
  };
  return k;
}

// kube's DefaultAPIResourceConfigSource (and apiextensions' and the aggregator's): what it can serve.
const std::map<std::string, bool>& DefaultConfig() {
  static const std::map<std::string, bool> k = [] {
    std::map<std::string, bool> m;
    for (const char* gv :
         {"admissionregistration.k8s.io/v1", "/v1", "apps/v1", "authentication.k8s.io/v1", "authorization.k8s.io/v1",
          "autoscaling/v1", "autoscaling/v2", "batch/v1", "certificates.k8s.io/v1", "coordination.k8s.io/v1",
          "discovery.k8s.io/v1", "events.k8s.io/v1", "networking.k8s.io/v1", "node.k8s.io/v1", "policy/v1",
          "rbac.authorization.k8s.io/v1", "storage.k8s.io/v1", "scheduling.k8s.io/v1", "flowcontrol.apiserver.k8s.io/v1",
          "apiextensions.k8s.io/v1", "apiregistration.k8s.io/v1"}) {
      m[gv] = true;
    }
    for (const char* gv :
         {"admissionregistration.k8s.io/v1beta1", "authentication.k8s.io/v1beta1", "storage.k8s.io/v1beta1",
          "flowcontrol.apiserver.k8s.io/v1beta1", "flowcontrol.apiserver.k8s.io/v1beta2",
          "flowcontrol.apiserver.k8s.io/v1beta3", "networking.k8s.io/v1beta1", "resource.k8s.io/v1beta1",
          "admissionregistration.k8s.io/v1alpha1", "internal.apiserver.k8s.io/v1alpha1", "authentication.k8s.io/v1alpha1",
          "coordination.k8s.io/v1alpha2", "resource.k8s.io/v1alpha3", "certificates.k8s.io/v1alpha1",
          "networking.k8s.io/v1alpha1", "storage.k8s.io/v1alpha1", "storagemigration.k8s.io/v1alpha1",
          "apiextensions.k8s.io/v1beta1", "apiregistration.k8s.io/v1beta1"}) {
      m[gv] = false;
    }
    return m;
  }();
  return k;
}

std::string GroupOf(const std::string& gv) { return gv.substr(0, gv.find('/')); }
std::string VersionOf(const std::string& gv) { return gv.substr(gv.find('/') + 1); }

bool GroupRegistered(const std::string& group) {
  for (const auto& gv : Registered()) {
    if (GroupOf(gv) == group) return true;
  }
  return false;
}

// schema.ParseGroupVersion on "a/b" (both sides non-empty apart from the core group's "").
bool ValidGroupVersion(const std::string& group, const std::string& version) {
  return !version.empty() && version.find('/') == std::string::npos;
}

Status Error(const std::string& msg) { return Status(400, "BadRequest", msg); }

// APIEnablementOptions.Validate: its first error, or "".
std::string ValidateEnablement(const std::map<std::string, std::string>& completed, const std::set<std::string>& matchers) {
  if (completed.size() == 1 && completed.count("api/all") && completed.at("api/all") == "false") {
    return "invalid key with only api/all=false";
  }
  std::vector<std::string> unknown;
  for (const auto& [k, v] : completed) {
    if (matchers.count(k)) continue;
    auto tokens = Split(k, '/');
    if (tokens.size() != 2 && tokens.size() != 3) return "runtime-config invalid key " + k;
    if (!ValidGroupVersion(tokens[0], tokens[1])) return "runtime-config invalid key " + k;
    if (!GroupRegistered(tokens[0]) && std::find(unknown.begin(), unknown.end(), tokens[0]) == unknown.end()) {
      unknown.push_back(tokens[0]);
    }
  }
  if (!unknown.empty()) return "unknown api groups " + Join(unknown, ",");
  return "";
}

}  // namespace

RuntimeConfig::RuntimeConfig() : versions_(DefaultConfig()) {}

StatusOr<RuntimeConfig> RuntimeConfig::Parse(const std::vector<std::string>& values, bool priority_and_fairness) {
  // cliflag.ConfigurationMap.
  std::map<std::string, std::string> flag;
  std::vector<std::string> order;  // for kube's String(): sorted key=value pairs
  for (const auto& value : values) {
    for (const auto& raw : Split(value, ',')) {
      std::string item(TrimSpace(raw));
      if (item.empty()) continue;
      size_t eq = item.find('=');
      if (eq == std::string::npos) {
        flag[item] = "";
      } else {
        flag[std::string(TrimSpace(item.substr(0, eq)))] = std::string(TrimSpace(item.substr(eq + 1)));
      }
    }
  }
  // kube's Validate collects the priority-and-fairness check (on the flag as given) and the API
  // enablement checks (on the completed keys); an aggregate of two reads "[a, b]".
  std::vector<std::string> errs;
  if (priority_and_fairness) {
    std::string text;
    for (const auto& [k, v] : flag) text += (text.empty() ? "" : ",") + k + "=" + v;
    for (const char* key : {"flowcontrol.apiserver.k8s.io/v1", "api/ga", "api/all"}) {
      if (text.find(std::string(key) + "=false") != std::string::npos) {
        errs.push_back(std::string("--runtime-config=") + key + "=false conflicts with --enable-priority-and-fairness=true");
        break;
      }
      if (text.find(std::string(key) + "=true") != std::string::npos) break;
    }
  }
  std::map<std::string, std::string> completed;
  for (const auto& [k, v] : flag) {
    if (k == "api/legacy") continue;
    if (k == "v1" || StartsWith(k, "v1/") || k == "api/v1" || StartsWith(k, "api/v1/")) {
      completed["/v1"] = v;  // kube moves every core key to "/v1" (a resource key loses its resource)
      continue;
    }
    completed[k] = v;
  }
  static const std::set<std::string> kMatchers = {"api/all", "api/ga", "api/beta", "api/alpha"};
  errs.push_back(ValidateEnablement(completed, kMatchers));
  if (errs.back().empty()) errs.pop_back();
  if (errs.size() == 1) return Error(errs.front());
  if (!errs.empty()) return Error("[" + Join(errs, ", ") + "]");

  // MergeAPIResourceConfigs.
  RuntimeConfig rc;
  static const std::regex kGa("^v\\d+$"), kBeta("^v\\d+beta\\d+$"), kAlpha("^v\\d+alpha\\d+$");
  auto matches = [&](const std::string& matcher, const std::string& version) {
    if (matcher == "api/all") return true;
    if (matcher == "api/ga") return std::regex_match(version, kGa);
    if (matcher == "api/beta") return std::regex_match(version, kBeta);
    return std::regex_match(version, kAlpha);
  };
  for (const char* m : {"api/all", "api/ga", "api/beta", "api/alpha"}) {
    auto it = completed.find(m);
    if (it == completed.end()) continue;
    if (it->second != "true" && it->second != "false") return Error("invalid value " + std::string(m) + "=" + it->second);
    for (auto& [gv, on] : rc.versions_) {
      if (matches(m, VersionOf(gv))) on = it->second == "true";
    }
  }
  std::vector<std::pair<std::string, bool>> version_prefs, resource_prefs;
  for (const auto& [k, v] : completed) {
    if (kMatchers.count(k)) continue;
    auto tokens = Split(k, '/');
    std::string gv = tokens[0] + "/" + tokens[1];
    if (!Registered().count(gv)) return Error("group version " + (tokens[0].empty() ? tokens[1] : gv) + " that has not been registered");
    bool on = true;
    if (!v.empty()) {
      auto b = GoParseBool(v);
      if (!b) return Error("invalid value of " + k + ": " + v + ", err: strconv.ParseBool: parsing " + GoQuote(v) + ": invalid syntax");
      on = *b;
    }
    if (tokens.size() == 2) {
      version_prefs.emplace_back(gv, on);
    } else {
      std::string lower = tokens[2];
      std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
      if (lower != tokens[2]) {
        return Error("invalid key " + k + ": group/version/resource and resource is always lowercase plural, not " +
                     GoQuote(tokens[2]));
      }
      resource_prefs.emplace_back(k, on);
    }
  }
  for (const auto& [gv, on] : version_prefs) rc.versions_[gv] = on;
  for (const auto& [gvr, on] : resource_prefs) rc.resources_[gvr] = on;
  return rc;
}

bool RuntimeConfig::VersionEnabled(const std::string& group, const std::string& version) const {
  auto it = versions_.find(group + "/" + version);
  if (it != versions_.end() && it->second) return true;
  // A version with a resource switched on explicitly is served for that resource.
  std::string prefix = group + "/" + version + "/";
  for (auto r = resources_.lower_bound(prefix); r != resources_.end() && StartsWith(r->first, prefix); ++r) {
    if (r->second) return true;
  }
  return false;
}

bool RuntimeConfig::ResourceEnabled(const std::string& group, const std::string& version, const std::string& resource) const {
  auto r = resources_.find(group + "/" + version + "/" + resource);
  if (r != resources_.end()) return r->second;
  auto it = versions_.find(group + "/" + version);
  return it != versions_.end() && it->second;
}

std::vector<std::string> RuntimeConfig::NotServed(const std::set<std::string>& served) const {
  std::vector<std::string> out;
  for (const auto& [gv, on] : versions_) {
    if (!VersionEnabled(GroupOf(gv), VersionOf(gv)) || served.count(gv)) continue;
    out.push_back(GroupOf(gv).empty() ? VersionOf(gv) : gv);
  }
  return out;
}

}  // namespace capstan::cmd
