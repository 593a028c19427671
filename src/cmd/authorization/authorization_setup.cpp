#include "cmd/authorization/authorization_setup.h"

#include <algorithm>

#include "apimachinery/errors.h"
#include "auth/authz/abac_authorizer.h"
#include "cmd/authorization/webhook_config.h"
#include "auth/authz/webhook_authorizer.h"
#include "server/http_client.h"
#include "cmd/authorization/bootstrap_reconcile.h"
#include "cmd/authorization/policy_informers.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::authz {

namespace am = capstan::apimachinery;

namespace {

Status Bad(std::string msg) { return Status(400, "BadRequest", std::move(msg)); }

// kube's buildAuthorizationConfiguration, after its Validate of the legacy flags.
StatusOr<AuthorizationConfiguration> ConfigFromFlags(const AuthorizationOptions& o) {
  if (o.modes.empty()) return Bad("at least one authorization-mode must be passed");
  const std::set<std::string> modes(o.modes.begin(), o.modes.end());
  if (modes.size() != o.modes.size()) return Bad("modes should not be repeated in --authorization-mode");
  if (modes.count("ABAC") && o.policy_file.empty()) {
    return Bad("authorization-mode ABAC's authorization policy file not passed");
  }
  if (!modes.count("ABAC") && !o.policy_file.empty()) {
    return Bad("cannot specify --authorization-policy-file without mode ABAC");
  }
  if (modes.count("Webhook") && o.webhook_config_file.empty()) {
    return Bad("authorization-mode Webhook's authorization config file not passed");
  }
  if (modes.count("Webhook") && o.webhook_version != "v1" && o.webhook_version != "v1beta1") {
    return Bad("unsupported authorization webhook version " + GoQuote(o.webhook_version));
  }
  AuthorizationConfiguration c;
  for (const auto& m : o.modes) {
    AuthorizerConfig a;
    a.type = m;
    if (m == "Webhook") {
      a.name = "webhook";
      WebhookAuthorizerConfig w;
      w.authorized_ttl = o.webhook_authorized_ttl;
      w.unauthorized_ttl = o.webhook_unauthorized_ttl;
      w.timeout = std::chrono::seconds(30);
      w.failure_policy = "NoOpinion";
      w.subject_access_review_version = o.webhook_version;
      w.connection_type = "KubeConfigFile";
      w.kubeconfig_file = o.webhook_config_file;
      a.webhook = std::move(w);
    } else {
      a.name = AuthorizerNameForMode(m);
    }
    c.authorizers.push_back(std::move(a));
  }
  return c;
}

}  // namespace

StatusOr<std::unique_ptr<AuthorizationSetup>> AuthorizationSetup::Create(AuthorizationOptions opts,
                                                                         const endpoints::ApiRegistry& registry) {
  std::unique_ptr<AuthorizationSetup> s(new AuthorizationSetup(std::move(opts), registry));
  const AuthorizationOptions& o = s->opts_;
  AuthorizationConfiguration config;
  if (!o.config_file.empty()) {
    if (o.legacy_flags_set) {
      return Bad("--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* "
                 "flags are defined");
    }
    ASSIGN_OR_RETURN(s->config_data_, ReadAuthzFile(o.config_file));
    ASSIGN_OR_RETURN(config, LoadAuthorizationConfiguration(s->config_data_));
  } else {
    ASSIGN_OR_RETURN(config, ConfigFromFlags(o));
  }
  if (o.metrics) {
    s->metrics_ = std::make_unique<AuthorizerMetrics>(*o.metrics);
    if (!o.config_file.empty()) {
      s->reloads_ = std::make_unique<ConfigReloadMetrics>(
          *o.metrics, "authorization",
          "Total number of automatic reloads of authorization configuration split by status and apiserver identity.",
          "Timestamp of the last automatic reload of authorization configuration split by status and apiserver identity.",
          o.apiserver_id_hash);
    }
  }
  // The authorizers that keep state across reloads (kube's Config.New).
  for (const auto& a : config.authorizers) {
    if (a.type == "Webhook") continue;
    s->required_types_.insert(a.type);
    if (a.type == "Node" && !s->node_) {
      s->node_ = std::make_shared<NodeAuthorizer>();
    } else if (a.type == "RBAC" && !s->rbac_) {
      s->rbac_ = std::make_shared<RbacAuthorizer>();
    } else if (a.type == "ABAC" && !s->abac_) {
      if (o.policy_file.empty()) return Bad("authorization-mode ABAC's authorization policy file not passed");
      ASSIGN_OR_RETURN(auto policies, AbacAuthorizer::Load(o.policy_file));
      s->abac_ = std::make_shared<AbacAuthorizer>(std::move(policies));
    }
  }
  ASSIGN_OR_RETURN(auto chain, s->Build(config));
  s->chain_ = std::make_unique<ReloadableAuthorizer>(std::move(chain));
  s->config_ = std::move(config);
  if (s->rbac_ || s->node_) s->informers_ = std::make_unique<PolicyInformers>(registry, s->rbac_.get(), s->node_.get());
  return s;
}

StatusOr<std::shared_ptr<Authorizer>> AuthorizationSetup::Build(const AuthorizationConfiguration& config) {
  if (config.authorizers.empty()) return Bad("at least one authorization mode must be passed");
  const AuthorizerMetrics* metrics = metrics_.get();
  std::vector<std::shared_ptr<Authorizer>> members;
  members.push_back(std::make_shared<PrivilegedGroupAuthorizer>());
  for (const auto& a : config.authorizers) {
    std::shared_ptr<Authorizer> member;
    auto not_at_start = [&] {
      return Bad("authorizer type " + a.type + " is not allowed if it was not enabled at initial server startup");
    };
    if (a.type == "AlwaysAllow") {
      member = std::make_shared<AlwaysAllow>();
    } else if (a.type == "AlwaysDeny") {
      member = std::make_shared<AlwaysDeny>();
    } else if (a.type == "RBAC") {
      if (!rbac_) return not_at_start();
      member = rbac_;
    } else if (a.type == "Node") {
      if (!node_) return not_at_start();
      member = node_;
    } else if (a.type == "ABAC") {
      if (!abac_) return not_at_start();
      member = abac_;
    } else if (a.type == "Webhook" && a.webhook) {
      const WebhookAuthorizerConfig& w = *a.webhook;
      if (w.connection_type != "KubeConfigFile" || !w.kubeconfig_file) {
        return Bad("authorizer " + GoQuote(a.name) + ": connectionInfo type " + w.connection_type +
                   " is not supported by kube-apiserver (use KubeConfigFile)");
      }
      ASSIGN_OR_RETURN(auto target, LoadWebhookKubeconfig(*w.kubeconfig_file));
      if (!http_) http_ = std::make_unique<server::HttpClientEngine>();
      ASSIGN_OR_RETURN(auto client, http_->NewClient(target.tls));
      auto compiled = WebhookMatchConditions::Compile(w.match_conditions, FieldPath());
      if (!compiled.errors.empty()) return Bad(AggregateMessage(compiled.errors));
      WebhookAuthzConfig wc;
      wc.name = a.name;
      wc.server = target.server;
      wc.bearer_token = target.bearer_token;
      wc.version = w.subject_access_review_version;
      wc.authorized_ttl = std::chrono::duration_cast<std::chrono::milliseconds>(w.authorized_ttl);
      wc.unauthorized_ttl = std::chrono::duration_cast<std::chrono::milliseconds>(w.unauthorized_ttl);
      wc.request_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(w.timeout);
      wc.decision_on_error = w.failure_policy == "Deny" ? Decision::kDeny : Decision::kNoOpinion;
      wc.match_conditions = std::move(compiled.conditions);
      wc.metrics = metrics;
      member = std::make_shared<WebhookAuthorizer>(std::move(wc), std::move(client));
    } else {
      return Bad("unknown authorization mode " + a.type + " specified");
    }
    members.push_back(std::make_shared<InstrumentedAuthorizer>(a.type, a.name, std::move(member), metrics));
  }
  return std::shared_ptr<Authorizer>(std::make_shared<UnionAuthorizer>(std::move(members)));
}

void AuthorizationSetup::RecordReload(const char* status) {
  if (reloads_) reloads_->Record(status);
}

// kube's reloadableAuthorizerResolver.checkFile.
AuthorizationSetup::ReloadOutcome AuthorizationSetup::CheckConfigFile() {
  std::lock_guard lock(config_mu_);
  auto fail = [&](const Status& st) {
    LogError("reloading authorization config", {{"path", opts_.config_file}, {"error", st.message()}});
    RecordReload("failure");
    return ReloadOutcome::kFailed;
  };
  auto data = ReadAuthzFile(opts_.config_file);
  if (!data.ok()) return fail(data.status());
  if (*data == config_data_) return ReloadOutcome::kUnchanged;
  LogInfo("found new authorization config data", {{"path", opts_.config_file}});
  config_data_ = std::move(*data);
  auto config = LoadAuthorizationConfiguration(config_data_, required_types_);
  if (!config.ok()) return fail(config.status());
  if (*config == config_) return ReloadOutcome::kUnchanged;
  auto built = Build(*config);
  if (!built.ok()) return fail(built.status());
  config_ = std::move(*config);
  chain_->Store(std::move(*built));
  LogInfo("reloaded authz config", {{"path", opts_.config_file}});
  RecordReload("success");
  return ReloadOutcome::kReloaded;
}

void AuthorizationSetup::ScheduleReload() {
  std::lock_guard lock(timer_mu_);
  if (reload_stopped_) return;
  reload_timer_ = RunAfter(opts_.reload_interval, [this] {
    CheckConfigFile();
    ScheduleReload();
  });
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
  if (!opts_.config_file.empty()) {
    RecordReload("success");  // kube's runReload records the configuration read at start
    ScheduleReload();
  }
  return Status();
}

void AuthorizationSetup::Stop() {
  std::shared_ptr<TimerHandle> t;
  {
    std::lock_guard lock(timer_mu_);
    reload_stopped_ = true;
    t = std::move(reload_timer_);
  }
  if (t) t->Cancel();
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
    Result r = co_await chain_->Authorize(ResourceAttributes(*user, "escalate", resource, attrs.namespace_, attrs.name));
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
  Result r = co_await chain_->Authorize(ResourceAttributes(*user, "bind", role_resource, attrs.namespace_, ref.name));
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
    Result r = co_await chain_->Authorize(a);
    api::authorization::ReviewDecision d;
    d.allowed = r.decision == Decision::kAllow;
    d.denied = r.decision == Decision::kDeny;
    d.reason = r.reason;
    d.evaluation_error = r.error;
    co_return d;
  };
  o.rules = [this](const UserInfo& user, const std::string& ns) {
    RulesResult r = chain_->RulesFor(user, ns);
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
