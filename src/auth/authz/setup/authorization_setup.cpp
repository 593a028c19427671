#include "auth/authz/setup/authorization_setup.h"

#include <algorithm>

#include "apimachinery/errors.h"
#include "auth/authz/abac_authorizer.h"
#include "auth/authz/setup/webhook_config.h"
#include "auth/authz/webhook_authorizer.h"
#include "server/http_client.h"
#include "auth/authz/setup/bootstrap_reconcile.h"
#include "auth/authz/setup/policy_informers.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::authz {

namespace am = capstan::apimachinery;

StatusOr<std::unique_ptr<AuthorizationSetup>> AuthorizationSetup::Create(AuthorizationOptions opts,
                                                                         const endpoints::ApiRegistry& registry) {
  std::unique_ptr<AuthorizationSetup> s(new AuthorizationSetup(std::move(opts), registry));
  std::vector<std::unique_ptr<Authorizer>> members;
  members.push_back(std::make_unique<PrivilegedGroupAuthorizer>());
  for (const auto& m : s->opts_.modes) {
    if (m == "AlwaysAllow") {
      members.push_back(std::make_unique<AlwaysAllow>());
    } else if (m == "AlwaysDeny") {
      members.push_back(std::make_unique<AlwaysDeny>());
    } else if (m == "RBAC") {
      auto r = std::make_unique<RbacAuthorizer>();
      s->rbac_ = r.get();
      members.push_back(std::move(r));
    } else if (m == "ABAC") {
      if (s->opts_.policy_file.empty()) {
        return Status(400, "BadRequest", "authorization-mode ABAC's authorization policy file not passed");
      }
      auto policies = AbacAuthorizer::Load(s->opts_.policy_file);
      if (!policies.ok()) return policies.status();
      members.push_back(std::make_unique<AbacAuthorizer>(std::move(*policies)));
    } else if (m == "Webhook") {
      if (s->opts_.webhook_config_file.empty()) {
        return Status(400, "BadRequest", "authorization-mode Webhook's authorization config file not passed");
      }
      auto target = LoadWebhookKubeconfig(s->opts_.webhook_config_file);
      if (!target.ok()) return target.status();
      if (s->opts_.webhook_version != "v1" && s->opts_.webhook_version != "v1beta1") {
        return Status(400, "BadRequest", "unsupported authorization webhook version " + GoQuote(s->opts_.webhook_version));
      }
      if (!s->http_) s->http_ = std::make_unique<server::HttpClientEngine>();
      auto client = s->http_->NewClient(target->tls);
      if (!client.ok()) return client.status();
      WebhookAuthzConfig wc;
      wc.server = target->server;
      wc.bearer_token = target->bearer_token;
      wc.version = s->opts_.webhook_version;
      wc.authorized_ttl = s->opts_.webhook_authorized_ttl;
      wc.unauthorized_ttl = s->opts_.webhook_unauthorized_ttl;
      members.push_back(std::make_unique<WebhookAuthorizer>(std::move(wc), std::move(*client)));
    } else if (m == "Node") {
      auto n = std::make_unique<NodeAuthorizer>();
      s->node_ = n.get();
      members.push_back(std::move(n));
    } else {
      return Status(400, "BadRequest", "authorization-mode " + GoQuote(m) + " is not supported by this Capstan build yet");
    }
  }
  bool abac = std::find(s->opts_.modes.begin(), s->opts_.modes.end(), "ABAC") != s->opts_.modes.end();
  if (!abac && !s->opts_.policy_file.empty()) {
    return Status(400, "BadRequest", "cannot specify --authorization-policy-file without mode ABAC");
  }
  s->union_ = std::make_unique<UnionAuthorizer>(std::move(members));
  if (s->rbac_ || s->node_) s->informers_ = std::make_unique<PolicyInformers>(registry, s->rbac_, s->node_);
  return s;
}

AuthorizationSetup::~AuthorizationSetup() { Stop(); }

Status AuthorizationSetup::Start() {
  if (rbac_) {
    auto report = ReconcileBootstrapPolicy(registry_);
    if (!report.ok()) return report.status();
    LogInfo("bootstrap RBAC policy reconciled", {{"created", report->created},
                                                 {"updated", report->updated},
                                                 {"recreated", report->recreated}});
  }
  if (informers_) {
    informers_->Start();
    if (!informers_->WaitForSync(std::chrono::seconds(60))) {
      return Status(500, "InternalError", "authorization informers did not sync within 60s");
    }
  }
  return Status();
}

void AuthorizationSetup::Stop() {
  if (informers_) informers_->Stop();
}

namespace {

Attributes ResourceAttributes(const UserInfo& user, const std::string& verb, const std::string& resource,
                              const std::string& ns, const std::string& name) {
  Attributes a;
  a.user = user;
  a.verb = verb;
  a.resource_request = true;
  a.api_group = kRbacGroup;
  a.api_version = "*";
  a.resource = resource;
  a.namespace_ = ns;
  a.name = name;
  return a;
}

}  // namespace

Task<Status> AuthorizationSetup::Guard(const registry::AdmissionAttributes& attrs) {
  if (!rbac_ || !attrs.resource || !attrs.object) co_return Status();
  const UserInfo* user = attrs.user;
  // kube's EscalationAllowed: system:masters may grant anything.
  if (user && user->InGroup(kSystemPrivilegedGroup)) co_return Status();
  const std::string& resource = attrs.resource->resource;
  const am::GroupResource gr{kRbacGroup, resource};
  std::string name = attrs.name;
  const registry::Object& obj = *attrs.object;
  if (name.empty()) {
    if (const auto* md = obj.if_contains("metadata"); md && md->is_object()) {
      if (const auto* n = md->get_object().if_contains("name"); n && n->is_string()) name = n->get_string();
    }
  }
  if (!user) co_return am::NewForbidden(gr, name, "no user on context");
  auto policy = rbac_->policy();
  const bool is_role = resource == "roles" || resource == "clusterroles";
  if (is_role) {
    std::vector<PolicyRule> rules = PolicyRulesFromJson(obj.if_contains("rules"));
    bool aggregated = false;
    if (const auto* agg = obj.if_contains("aggregationRule"); agg && agg->is_object()) aggregated = true;
    if (attrs.old_object) {
      std::vector<PolicyRule> old_rules = PolicyRulesFromJson(attrs.old_object->if_contains("rules"));
      const auto* agg_new = obj.if_contains("aggregationRule");
      const auto* agg_old = attrs.old_object->if_contains("aggregationRule");
      bool same_agg = (!agg_new && !agg_old) || (agg_new && agg_old && *agg_new == *agg_old);
      if (old_rules == rules && same_agg) co_return Status();
    }
    // kube's RoleEscalationAuthorized: the escalate verb on the role.
    Result r = co_await union_->Authorize(ResourceAttributes(*user, "escalate", resource, attrs.namespace_, attrs.name));
    if (r.decision == Decision::kAllow) co_return Status();
    if (aggregated && resource == "clusterroles") rules.clear();  // the controller fills them in
    std::string err = ConfirmNoEscalation(*policy, *user, attrs.namespace_, rules);
    if (!err.empty()) co_return am::NewForbidden(gr, name, err);
    if (aggregated && resource == "clusterroles") {
      std::vector<PolicyRule> full = {PolicyRule{{"*"}, {"*"}, {"*"}, {}, {}}, PolicyRule{{"*"}, {}, {}, {}, {"*"}}};
      if (!ConfirmNoEscalation(*policy, *user, attrs.namespace_, full).empty()) {
        co_return am::NewForbidden(gr, name, "must have cluster-admin privileges to use the aggregationRule");
      }
    }
    co_return Status();
  }
  // Bindings.
  const auto* ref_v = obj.if_contains("roleRef");
  RoleRef ref = RoleRefFromJson(ref_v && ref_v->is_object() ? &ref_v->get_object() : nullptr);
  if (attrs.old_object) {
    const auto* old_ref_v = attrs.old_object->if_contains("roleRef");
    RoleRef old_ref = RoleRefFromJson(old_ref_v && old_ref_v->is_object() ? &old_ref_v->get_object() : nullptr);
    if (old_ref.name == ref.name && old_ref.kind == ref.kind) co_return Status();
  }
  // kube's BindingAuthorized: the bind verb on the referenced role.
  std::string role_resource = ref.kind == "Role" ? "roles" : "clusterroles";
  Result r = co_await union_->Authorize(ResourceAttributes(*user, "bind", role_resource, attrs.namespace_, ref.name));
  if (r.decision == Decision::kAllow) co_return Status();
  const RoleData* role = nullptr;
  if (ref.kind == "Role") {
    role = policy->FindRole(attrs.namespace_, ref.name);
    if (!role) co_return am::NewNotFound({kRbacGroup, "roles"}, ref.name);
  } else if (ref.kind == "ClusterRole") {
    role = policy->FindClusterRole(ref.name);
    if (!role) co_return am::NewNotFound({kRbacGroup, "clusterroles"}, ref.name);
  } else {
    co_return Status();  // validation refuses it
  }
  std::string err = ConfirmNoEscalation(*policy, *user, attrs.namespace_, role->rules);
  if (!err.empty()) co_return am::NewForbidden(gr, name, err);
  co_return Status();
}

api::rbac::RbacApiOptions AuthorizationSetup::RbacOptions() {
  api::rbac::RbacApiOptions o;
  o.guard = [this](const registry::AdmissionAttributes& attrs) { return Guard(attrs); };
  return o;
}

api::authorization::AuthorizationApiOptions AuthorizationSetup::ReviewOptions() {
  api::authorization::AuthorizationApiOptions o;
  o.review = [this](const api::authorization::ReviewAttributes& ra) -> Task<api::authorization::ReviewDecision> {
    Attributes a;
    a.user = ra.user;
    a.verb = ra.verb;
    a.resource_request = ra.resource_request;
    a.namespace_ = ra.namespace_;
    a.api_group = ra.group;
    a.api_version = ra.version;
    a.resource = ra.resource;
    a.subresource = ra.subresource;
    a.name = ra.name;
    a.path = ra.path;
    Result r = co_await union_->Authorize(a);
    api::authorization::ReviewDecision d;
    d.allowed = r.decision == Decision::kAllow;
    d.denied = r.decision == Decision::kDeny;
    d.reason = r.reason;
    d.evaluation_error = r.error;
    co_return d;
  };
  o.rules = [this](const UserInfo& user, const std::string& ns) {
    RulesResult r = union_->RulesFor(user, ns);
    api::authorization::RulesDecision d;
    for (auto& x : r.resource_rules) d.resource_rules.push_back({x.verbs, x.api_groups, x.resources, x.resource_names});
    for (auto& x : r.non_resource_rules) d.non_resource_rules.push_back({x.verbs, x.non_resource_urls});
    d.incomplete = r.incomplete;
    d.evaluation_error = r.error;
    return d;
  };
  return o;
}

}  // namespace capstan::authz
