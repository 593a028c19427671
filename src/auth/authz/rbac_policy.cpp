#include "auth/authz/rbac_policy.h"

#include <algorithm>
#include <boost/json.hpp>

#include "util/strings.h"

namespace capstan::authz {

namespace json = boost::json;

namespace {

constexpr std::string_view kServiceAccountPrefix = "system:serviceaccount:";

std::string StringField(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

const json::object* ObjectField(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_object() ? &v->get_object() : nullptr;
}

std::string NotFound(std::string_view kind, std::string_view name) {
  return std::string(kind) + ".rbac.authorization.k8s.io " + GoQuote(name) + " not found";
}

}  // namespace

RoleRef RoleRefFromJson(const json::object* ref) {
  RoleRef r;
  if (!ref) return r;
  r.api_group = StringField(*ref, "apiGroup");
  r.kind = StringField(*ref, "kind");
  r.name = StringField(*ref, "name");
  return r;
}

std::vector<Subject> SubjectsFromJson(const json::value* subjects) {
  std::vector<Subject> out;
  if (!subjects || !subjects->is_array()) return out;
  for (const auto& s : subjects->get_array()) {
    if (!s.is_object()) continue;
    const auto& o = s.get_object();
    out.push_back(Subject{StringField(o, "kind"), StringField(o, "apiGroup"), StringField(o, "name"),
                          StringField(o, "namespace")});
  }
  return out;
}

RoleData RoleFromJson(const json::object& obj) {
  RoleData r;
  if (const auto* md = ObjectField(obj, "metadata")) {
    r.namespace_ = StringField(*md, "namespace");
    r.name = StringField(*md, "name");
  }
  r.rules = PolicyRulesFromJson(obj.if_contains("rules"));
  return r;
}

BindingData BindingFromJson(const json::object& obj) {
  BindingData b;
  if (const auto* md = ObjectField(obj, "metadata")) {
    b.namespace_ = StringField(*md, "namespace");
    b.name = StringField(*md, "name");
  }
  b.role_ref = RoleRefFromJson(ObjectField(obj, "roleRef"));
  b.subjects = SubjectsFromJson(obj.if_contains("subjects"));
  return b;
}

std::string_view ServiceAccountKey(std::string_view user_name) {
  if (!StartsWith(user_name, kServiceAccountPrefix)) return {};
  return user_name.substr(kServiceAccountPrefix.size());
}

bool SubjectAppliesTo(const Subject& s, const http::UserInfo& user, std::string_view binding_namespace) {
  if (s.kind == "User") return user.name == s.name;
  if (s.kind == "Group") return user.InGroup(s.name);
  if (s.kind == "ServiceAccount") {
    std::string_view ns = s.namespace_.empty() ? binding_namespace : std::string_view(s.namespace_);
    if (ns.empty()) return false;
    std::string_view key = ServiceAccountKey(user.name);
    return key.size() == ns.size() + 1 + s.name.size() && StartsWith(key, ns) && key[ns.size()] == ':' &&
           key.substr(ns.size() + 1) == s.name;
  }
  return false;
}

std::shared_ptr<const RbacPolicy> RbacPolicy::Empty() { return Build({}, {}, {}, {}); }

void RbacPolicy::AddToIndex(SubjectIndex& index, const BindingData& b, uint32_t i) {
  auto add = [i](Index& idx, std::string key) {
    auto& v = idx[std::move(key)];
    if (v.empty() || v.back() != i) v.push_back(i);
  };
  for (const auto& s : b.subjects) {
    if (s.kind == "User") {
      add(index.users, s.name);
    } else if (s.kind == "Group") {
      add(index.groups, s.name);
    } else if (s.kind == "ServiceAccount") {
      const std::string& ns = s.namespace_.empty() ? b.namespace_ : s.namespace_;
      if (!ns.empty()) add(index.service_accounts, ns + ":" + s.name);
    }
  }
}

std::shared_ptr<const RbacPolicy> RbacPolicy::Build(std::vector<RoleData> roles, std::vector<RoleData> cluster_roles,
                                                    std::vector<BindingData> role_bindings,
                                                    std::vector<BindingData> cluster_role_bindings) {
  auto p = std::shared_ptr<RbacPolicy>(new RbacPolicy());
  for (auto& r : roles) {
    std::string key = r.namespace_ + "/" + r.name;
    p->roles_[std::move(key)] = std::make_shared<const RoleData>(std::move(r));
  }
  for (auto& r : cluster_roles) {
    std::string key = r.name;
    p->cluster_roles_[std::move(key)] = std::make_shared<const RoleData>(std::move(r));
  }
  auto resolve = [&p](BindingData b) {
    ResolvedBinding rb;
    const RoleRef& ref = b.role_ref;
    if (ref.kind == "Role") {
      auto it = p->roles_.find(b.namespace_ + "/" + ref.name);
      if (it != p->roles_.end() && !b.namespace_.empty()) {
        rb.role = it->second;
      } else {
        rb.error = NotFound("role", ref.name);
      }
    } else if (ref.kind == "ClusterRole") {
      auto it = p->cluster_roles_.find(ref.name);
      if (it != p->cluster_roles_.end()) {
        rb.role = it->second;
      } else {
        rb.error = NotFound("clusterrole", ref.name);
      }
    } else {
      rb.error = "unsupported role reference kind: " + GoQuote(ref.kind);
    }
    rb.binding = std::move(b);
    return rb;
  };
  std::sort(cluster_role_bindings.begin(), cluster_role_bindings.end(),
            [](const BindingData& a, const BindingData& b) { return a.name < b.name; });
  p->cluster_bindings_.reserve(cluster_role_bindings.size());
  for (auto& b : cluster_role_bindings) {
    b.namespace_.clear();
    p->cluster_bindings_.push_back(resolve(std::move(b)));
    AddToIndex(p->cluster_index_, p->cluster_bindings_.back().binding,
               static_cast<uint32_t>(p->cluster_bindings_.size() - 1));
  }
  std::sort(role_bindings.begin(), role_bindings.end(), [](const BindingData& a, const BindingData& b) {
    return a.namespace_ != b.namespace_ ? a.namespace_ < b.namespace_ : a.name < b.name;
  });
  p->role_bindings_.reserve(role_bindings.size());
  for (auto& b : role_bindings) {
    if (b.namespace_.empty()) continue;
    p->role_bindings_.push_back(resolve(std::move(b)));
    const auto& rb = p->role_bindings_.back().binding;
    AddToIndex(p->namespace_index_[rb.namespace_], rb, static_cast<uint32_t>(p->role_bindings_.size() - 1));
  }
  return p;
}

void RbacPolicy::Candidates(const SubjectIndex& index, const http::UserInfo& user, std::vector<uint32_t>& out) {
  int sources = 0;
  auto take = [&](const Index& idx, std::string_view key) {
    auto it = idx.find(key);
    if (it == idx.end()) return;
    out.insert(out.end(), it->second.begin(), it->second.end());
    ++sources;
  };
  take(index.users, user.name);
  for (const auto& g : user.groups) take(index.groups, g);
  std::string_view sa = ServiceAccountKey(user.name);
  if (!sa.empty()) take(index.service_accounts, sa);
  if (sources > 1) {
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
}

bool RbacPolicy::VisitBindings(const std::vector<ResolvedBinding>& bindings, const SubjectIndex& index,
                               const http::UserInfo& user, std::string_view binding_namespace,
                               const Visitor& visit) const {
  std::vector<uint32_t> candidates;
  candidates.reserve(8);
  Candidates(index, user, candidates);
  for (uint32_t i : candidates) {
    const ResolvedBinding& b = bindings[i];
    const Subject* subject = nullptr;
    for (const auto& s : b.binding.subjects) {
      if (SubjectAppliesTo(s, user, binding_namespace)) {
        subject = &s;
        break;
      }
    }
    if (!subject) continue;
    if (!b.role) {
      if (!visit(b, *subject, nullptr, &b.error)) return false;
      continue;
    }
    for (const auto& rule : b.role->rules) {
      if (!visit(b, *subject, &rule, nullptr)) return false;
    }
  }
  return true;
}

void RbacPolicy::VisitRulesFor(const http::UserInfo& user, std::string_view namespace_, const Visitor& visit) const {
  if (!VisitBindings(cluster_bindings_, cluster_index_, user, "", visit)) return;
  if (namespace_.empty()) return;
  auto it = namespace_index_.find(namespace_);
  if (it == namespace_index_.end()) return;
  VisitBindings(role_bindings_, it->second, user, namespace_, visit);
}

std::vector<PolicyRule> RbacPolicy::RulesFor(const http::UserInfo& user, std::string_view namespace_,
                                             std::vector<std::string>* errors) const {
  std::vector<PolicyRule> rules;
  VisitRulesFor(user, namespace_,
                [&](const ResolvedBinding&, const Subject&, const PolicyRule* rule, const std::string* error) {
                  if (rule) rules.push_back(*rule);
                  if (error && errors) errors->push_back(*error);
                  return true;
                });
  return rules;
}

const RoleData* RbacPolicy::FindRole(std::string_view namespace_, std::string_view name) const {
  std::string key;
  key.reserve(namespace_.size() + 1 + name.size());
  key.append(namespace_).append("/").append(name);
  auto it = roles_.find(key);
  return it == roles_.end() ? nullptr : it->second.get();
}

const RoleData* RbacPolicy::FindClusterRole(std::string_view name) const {
  auto it = cluster_roles_.find(name);
  return it == cluster_roles_.end() ? nullptr : it->second.get();
}

std::string RbacPolicy::Describe(const ResolvedBinding& b, const Subject& s) {
  const BindingData& d = b.binding;
  std::string subject;
  if (s.kind == "ServiceAccount") {
    const std::string& ns = s.namespace_.empty() ? d.namespace_ : s.namespace_;
    subject = s.kind + " " + GoQuote(s.name + "/" + ns);
  } else {
    subject = s.kind + " " + GoQuote(s.name);
  }
  if (d.namespace_.empty()) {
    return "ClusterRoleBinding " + GoQuote(d.name) + " of " + d.role_ref.kind + " " + GoQuote(d.role_ref.name) +
           " to " + subject;
  }
  return "RoleBinding " + GoQuote(d.name + "/" + d.namespace_) + " of " + d.role_ref.kind + " " +
         GoQuote(d.role_ref.name) + " to " + subject;
}

}  // namespace capstan::authz
