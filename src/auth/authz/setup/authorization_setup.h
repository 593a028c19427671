// auth/authz/setup/authorization_setup.h: everything --authorization-mode needs, built once by cmd/:
// the authorizer union (system:masters first, then the modes in flag order), the RBAC and Node
// authorizers' informers, the bootstrap policy reconciliation, the escalation guard of the RBAC
// API and the deciders behind the authorization.k8s.io reviews.
//
// Lifecycle: Create (flags checked, files read) → the API is installed with RbacOptions() and
// ReviewOptions() → Start() after the API is served (reconciles the bootstrap policy when RBAC is
// on, starts the informers and waits for their first lists) → Stop() before the API goes away.
// Thread-safety: authorizer() and the options' callbacks from any thread; the rest from the main
// thread.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "api/authorization/authorization.h"
#include "api/rbac/rbac.h"
#include "auth/authz/authorizer.h"
#include "auth/authz/node_authorizer.h"
#include "auth/authz/rbac_authorizer.h"
#include "auth/authz/setup/policy_informers.h"
#include "endpoints/api_registry.h"
#include "server/http/http_client.h"

namespace capstan::authz {



struct AuthorizationOptions {
  std::vector<std::string> modes = {"Node", "RBAC"};  // --authorization-mode
  std::string policy_file;                            // --authorization-policy-file (ABAC)
  std::string webhook_config_file;                    // --authorization-webhook-config-file
  std::string webhook_version = "v1beta1";            // --authorization-webhook-version
  std::chrono::milliseconds webhook_authorized_ttl{5 * 60 * 1000};
  std::chrono::milliseconds webhook_unauthorized_ttl{30 * 1000};
};

class AuthorizationSetup {
 public:
  static StatusOr<std::unique_ptr<AuthorizationSetup>> Create(AuthorizationOptions opts,
                                                              const endpoints::ApiRegistry& registry);
  ~AuthorizationSetup();

  Authorizer& authorizer() { return *union_; }
  RbacAuthorizer* rbac() { return rbac_; }
  NodeAuthorizer* node() { return node_; }

  api::rbac::RbacApiOptions RbacOptions();
  api::authorization::AuthorizationApiOptions ReviewOptions();

  Status Start();
  void Stop();

 private:
  AuthorizationSetup(AuthorizationOptions opts, const endpoints::ApiRegistry& registry)
      : opts_(std::move(opts)), registry_(registry) {}
  Task<Status> Guard(const registry::AdmissionAttributes& attrs);

  AuthorizationOptions opts_;
  const endpoints::ApiRegistry& registry_;
  std::unique_ptr<Authorizer> union_;
  RbacAuthorizer* rbac_ = nullptr;  // owned by union_
  NodeAuthorizer* node_ = nullptr;  // owned by union_
  std::unique_ptr<PolicyInformers> informers_;
  std::unique_ptr<http::HttpClientFactory> http_;  // the Webhook mode's client engine
};

}  // namespace capstan::authz
