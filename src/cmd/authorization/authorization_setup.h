// cmd/authorization/authorization_setup.h: everything authorization needs, built once by cmd/: the
// authorizer chain (system:masters first, then the AuthorizationConfiguration's authorizers in order:
// from --authorization-config, or built from --authorization-mode and --authorization-webhook-* as
// kube builds it), the RBAC and Node authorizers' informers, the bootstrap policy reconciliation,
// the escalation guard of the RBAC API and the deciders behind the authorization.k8s.io reviews.
//
// With --authorization-config the file is checked every reload_interval (kube: fsnotify, and a
// minute's poll): a changed file that loads, validates and builds replaces the chain at once (new
// requests use it; Node, RBAC and ABAC keep their state, webhooks are rebuilt); one that does not is
// logged and the chain in effect stays. Outcomes are kube's
// apiserver_authorization_config_controller_automatic_reloads_total{status, apiserver_id_hash} and
// ..._automatic_reload_last_timestamp_seconds; a reload may not drop a non-webhook type the server
// started with.
//
// Lifecycle: Create (flags checked, files read) → the API is installed with RbacOptions() and
// ReviewOptions() → Start() after the API is served (reconciles the bootstrap policy when RBAC is
// on, starts the informers and waits for their first lists, starts the reload checks) → Stop()
// before the API goes away.
// Thread-safety: authorizer() and the options' callbacks from any thread; CheckConfigFile from any
// thread (serialized); the rest from the main thread.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "api/authorization/authorization.h"
#include "api/rbac/rbac.h"
#include "auth/authz/authorization_config.h"
#include "auth/authz/authorizer.h"
#include "auth/authz/authorizer_metrics.h"
#include "auth/authz/node_authorizer.h"
#include "auth/authz/rbac_authorizer.h"
#include "cmd/authorization/policy_informers.h"
#include "endpoints/api_registry.h"
#include "server/http/http_client.h"
#include "util/metrics.h"
#include "util/timer.h"

namespace capstan::authz {



struct AuthorizationOptions {
  std::vector<std::string> modes = {"Node", "RBAC"};  // --authorization-mode
  std::string policy_file;                            // --authorization-policy-file (ABAC)
  std::string webhook_config_file;                    // --authorization-webhook-config-file
  std::string webhook_version = "v1beta1";            // --authorization-webhook-version
  std::chrono::milliseconds webhook_authorized_ttl{5 * 60 * 1000};
  std::chrono::milliseconds webhook_unauthorized_ttl{30 * 1000};
  // --authorization-config; excludes the mode and webhook flags (legacy_flags_set: one was given).
  std::string config_file;
  bool legacy_flags_set = false;
  std::chrono::milliseconds reload_interval{1000};
  MetricsRegistry* metrics = nullptr;  // null: no metrics
  std::string apiserver_id_hash;       // the reload metrics' label ("sha256:<hex>")
};

// Forwards to the authorizer in effect; a reload swaps it while requests keep the one they started with.
class ReloadableAuthorizer : public Authorizer {
 public:
  explicit ReloadableAuthorizer(std::shared_ptr<Authorizer> initial) : current_(std::move(initial)) {}
  Task<Result> Authorize(const Attributes& a) override {
    std::shared_ptr<Authorizer> cur = Load();
    co_return co_await cur->Authorize(a);
  }
  RulesResult RulesFor(const http::UserInfo& user, const std::string& namespace_) const override {
    return Load()->RulesFor(user, namespace_);
  }
  void Store(std::shared_ptr<Authorizer> next) {
    std::lock_guard lock(mu_);
    current_ = std::move(next);
  }

 private:
  std::shared_ptr<Authorizer> Load() const {
    std::lock_guard lock(mu_);
    return current_;
  }
  mutable std::mutex mu_;
  std::shared_ptr<Authorizer> current_;
};

class AuthorizationSetup {
 public:
  static StatusOr<std::unique_ptr<AuthorizationSetup>> Create(AuthorizationOptions opts,
                                                              const endpoints::ApiRegistry& registry);
  ~AuthorizationSetup();

  Authorizer& authorizer() { return *chain_; }
  RbacAuthorizer* rbac() { return rbac_.get(); }
  NodeAuthorizer* node() { return node_.get(); }

  api::rbac::RbacApiOptions RbacOptions();
  api::authorization::AuthorizationApiOptions ReviewOptions();

  Status Start();
  void Stop();

  enum class ReloadOutcome { kUnchanged, kReloaded, kFailed };
  // One check of --authorization-config now (the periodic check calls it).
  ReloadOutcome CheckConfigFile();

 private:
  AuthorizationSetup(AuthorizationOptions opts, const endpoints::ApiRegistry& registry)
      : opts_(std::move(opts)), registry_(registry) {}
  Task<Status> Guard(const registry::AdmissionAttributes& attrs);
  // kube's newForConfig: the union of the configuration's authorizers.
  StatusOr<std::shared_ptr<Authorizer>> Build(const AuthorizationConfiguration& config);
  void RecordReload(const char* status);
  void ScheduleReload();

  AuthorizationOptions opts_;
  const endpoints::ApiRegistry& registry_;
  std::unique_ptr<AuthorizerMetrics> metrics_;
  std::unique_ptr<ConfigReloadMetrics> reloads_;
  std::shared_ptr<RbacAuthorizer> rbac_;
  std::shared_ptr<NodeAuthorizer> node_;
  std::shared_ptr<Authorizer> abac_;
  std::unique_ptr<ReloadableAuthorizer> chain_;
  std::set<std::string> required_types_;  // non-webhook types every reload keeps
  std::unique_ptr<PolicyInformers> informers_;
  std::unique_ptr<http::HttpClientFactory> http_;  // the webhooks' client engine

  std::mutex config_mu_;  // one check at a time; guards the two below
  AuthorizationConfiguration config_;
  std::string config_data_;  // the file's bytes config_ was read from
  std::mutex timer_mu_;
  std::shared_ptr<TimerHandle> reload_timer_;  // guarded by timer_mu_
  bool reload_stopped_ = false;               // guarded by timer_mu_
};

}  // namespace capstan::authz
