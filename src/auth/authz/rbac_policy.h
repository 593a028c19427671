// auth/authz/rbac_policy.h: one immutable snapshot of the RBAC objects (Roles, ClusterRoles,
// RoleBindings, ClusterRoleBindings) indexed for authorization.
//
// Bindings are indexed by subject (user name, group name, service account "namespace:name"), cluster
// bindings once and role bindings per namespace, and each binding's role reference is resolved when
// the snapshot is built. A decision therefore looks at the bindings that name the caller (its user,
// each of its groups, its service account) and nothing else: it never scans every binding. Rules are
// visited as kube's DefaultRuleResolver visits them (cluster role bindings, then the namespace's role
// bindings, each in name order), with the same source descriptions and resolution errors
// (`clusterrole.rbac.authorization.k8s.io "x" not found`).
//
// Snapshots are built on one thread (the RBAC informers' loop) and published as shared_ptr<const>;
// every method is const and safe to call from any number of threads.
#pragma once

#include <boost/json/object.hpp>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "auth/authz/policy_rule.h"
#include "server/http/user_info.h"

namespace capstan::authz {

inline constexpr const char* kRbacGroup = "rbac.authorization.k8s.io";

struct RoleRef {
  std::string api_group;
  std::string kind;  // Role or ClusterRole
  std::string name;
  bool operator==(const RoleRef&) const = default;
};

struct Subject {
  std::string kind;  // User, Group or ServiceAccount
  std::string api_group;
  std::string name;
  std::string namespace_;
  bool operator==(const Subject&) const = default;
};

// A Role or ClusterRole (namespace_ empty).
struct RoleData {
  std::string namespace_;
  std::string name;
  std::vector<PolicyRule> rules;
};

// A RoleBinding or ClusterRoleBinding (namespace_ empty).
struct BindingData {
  std::string namespace_;
  std::string name;
  RoleRef role_ref;
  std::vector<Subject> subjects;
};

RoleData RoleFromJson(const boost::json::object& obj);
BindingData BindingFromJson(const boost::json::object& obj);
RoleRef RoleRefFromJson(const boost::json::object* ref);
std::vector<Subject> SubjectsFromJson(const boost::json::value* subjects);

// kube's appliesToUser: whether `s` (of a binding in `binding_namespace`, "" for cluster bindings)
// names `user`.
bool SubjectAppliesTo(const Subject& s, const http::UserInfo& user, std::string_view binding_namespace);

// "system:serviceaccount:<ns>:<name>" → "<ns>:<name>", or "" for other users.
std::string_view ServiceAccountKey(std::string_view user_name);

class RbacPolicy {
 public:
  struct ResolvedBinding {
    BindingData binding;
    std::shared_ptr<const RoleData> role;  // null when the reference does not resolve
    std::string error;                     // why not
  };

  // Called for each rule that applies (rule set) or each resolution error (error set). `binding` and
  // `subject` say where the rule comes from. Returning false stops the visit.
  using Visitor = std::function<bool(const ResolvedBinding& binding, const Subject& subject, const PolicyRule* rule,
                                     const std::string* error)>;

  static std::shared_ptr<const RbacPolicy> Build(std::vector<RoleData> roles, std::vector<RoleData> cluster_roles,
                                                 std::vector<BindingData> role_bindings,
                                                 std::vector<BindingData> cluster_role_bindings);
  static std::shared_ptr<const RbacPolicy> Empty();

  // kube's VisitRulesFor.
  void VisitRulesFor(const http::UserInfo& user, std::string_view namespace_, const Visitor& visit) const;
  // Every rule that applies, and the resolution errors met on the way.
  std::vector<PolicyRule> RulesFor(const http::UserInfo& user, std::string_view namespace_,
                                   std::vector<std::string>* errors = nullptr) const;

  // A Role's or ClusterRole's rules, or null.
  const RoleData* FindRole(std::string_view namespace_, std::string_view name) const;
  const RoleData* FindClusterRole(std::string_view name) const;

  size_t role_count() const { return roles_.size(); }
  size_t cluster_role_count() const { return cluster_roles_.size(); }
  size_t role_binding_count() const { return role_bindings_.size(); }
  size_t cluster_role_binding_count() const { return cluster_bindings_.size(); }

  // kube's describers: `ClusterRoleBinding "b" of ClusterRole "r" to User "u"`,
  // `RoleBinding "b/ns" of Role "r" to ServiceAccount "sa/ns"`.
  static std::string Describe(const ResolvedBinding& b, const Subject& s);

 private:
  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  using Index = std::unordered_map<std::string, std::vector<uint32_t>, StringHash, std::equal_to<>>;
  struct SubjectIndex {
    Index users;
    Index groups;
    Index service_accounts;  // "<ns>:<name>"
  };
  using RoleMap = std::unordered_map<std::string, std::shared_ptr<const RoleData>, StringHash, std::equal_to<>>;

  // Appends the indices of the bindings in `index` that may name `user` (sorted, unique).
  static void Candidates(const SubjectIndex& index, const http::UserInfo& user, std::vector<uint32_t>& out);
  static void AddToIndex(SubjectIndex& index, const BindingData& b, uint32_t i);
  bool VisitBindings(const std::vector<ResolvedBinding>& bindings, const SubjectIndex& index,
                     const http::UserInfo& user, std::string_view binding_namespace, const Visitor& visit) const;

  RoleMap roles_;  // "<ns>/<name>"
  RoleMap cluster_roles_;
  std::vector<ResolvedBinding> cluster_bindings_;  // by name
  SubjectIndex cluster_index_;
  std::vector<ResolvedBinding> role_bindings_;  // by namespace, then name
  std::unordered_map<std::string, SubjectIndex, StringHash, std::equal_to<>> namespace_index_;
};

}  // namespace capstan::authz
