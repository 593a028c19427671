// audit/policy.h: the audit policy (audit.k8s.io/v1 Policy) and its evaluation, as kube-apiserver's
// --audit-policy-file.
//
// A policy is read from YAML or JSON (LoadPolicy): kind Policy, apiVersion audit.k8s.io/v1, levels
// None/Metadata/Request/RequestResponse, stages RequestReceived/ResponseStarted/ResponseComplete/Panic,
// policy-wide omitStages (added to every rule's) and omitManagedFields, and rules matching users,
// userGroups, verbs, namespaces, resources (group, resources with the "*", "pods/*", "*/status"
// forms, resourceNames) or nonResourceURLs ("/healthz*"). Errors carry kube's validation texts; a
// policy without rules is refused ("loaded illegal policy with 0 rules"). Evaluate() returns the
// first matching rule's level, stages to omit and omitManagedFields; no match is level None.
// A Policy is immutable once loaded; Evaluate is thread-safe.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "apimachinery/request_scope.h"
#include "apimachinery/status.h"
#include "apimachinery/user_info.h"

namespace capstan::audit {

using Level = AuditLevel;  // apimachinery/request_scope.h
std::string_view LevelName(Level l);

enum class Stage { kRequestReceived, kResponseStarted, kResponseComplete, kPanic };
std::string_view StageName(Stage s);

struct GroupResources {
  std::string group;
  std::vector<std::string> resources;
  std::vector<std::string> resource_names;
};

struct PolicyRule {
  Level level = Level::kNone;
  std::vector<std::string> users;
  std::vector<std::string> user_groups;
  std::vector<std::string> verbs;
  std::vector<GroupResources> resources;
  std::vector<std::string> namespaces;
  std::vector<std::string> non_resource_urls;
  std::set<Stage> omit_stages;  // the rule's, plus the policy's
  std::optional<bool> omit_managed_fields;
};

// What the authorizer would see of a request: enough to match a rule.
struct RequestAttributes {
  const UserInfo* user = nullptr;
  std::string verb;
  bool resource_request = false;
  std::string api_group;
  std::string namespace_;
  std::string resource;
  std::string subresource;
  std::string name;
  std::string path;  // non-resource requests
};

struct RequestAuditConfig {
  Level level = Level::kNone;
  std::set<Stage> omit_stages;
  bool omit_managed_fields = false;
};

class Policy {
 public:
  // A 400-style Status with kube's message on a bad document.
  static StatusOr<Policy> Load(std::string_view text);
  static StatusOr<Policy> LoadFile(const std::string& path);
  // One rule matching everything at `level` (tests, and the webhook e2e setup).
  static Policy AllAt(Level level);

  RequestAuditConfig Evaluate(const RequestAttributes& a) const;
  const std::vector<PolicyRule>& rules() const { return rules_; }

 private:
  std::vector<PolicyRule> rules_;
  std::set<Stage> omit_stages_;
  bool omit_managed_fields_ = false;
};

}  // namespace capstan::audit
