// controllers/serviceaccount/tokens_controller.h: kube's serviceaccount-token-controller: Secrets of
// type kubernetes.io/service-account-token get a token, the cluster CA and the namespace, and go away
// with their service account.
//
// A Secret of that type names its account in the annotation kubernetes.io/service-account.name (and,
// once filled, kubernetes.io/service-account.uid). A sync of such a Secret reads the account live:
// when it does not exist, or its UID differs from the annotation, the Secret is deleted (with its UID
// as precondition); otherwise any of data["token"] (a legacy token: issuer kubernetes/serviceaccount,
// signed with the service-account key), data["ca.crt"] (when it differs from the cluster CA) and
// data["namespace"] that is missing is written, with both annotations, in one update. A deleted
// service account has its token Secrets deleted. Queues: "serviceaccount_tokens_service" and
// "serviceaccount_tokens_secret", kube's default rate limiter. Thread-safety: loop-thread only.
#pragma once

#include <functional>
#include <string>

#include "controllers/controller.h"

namespace capstan::controllers {

inline constexpr std::string_view kServiceAccountTokenSecretType = "kubernetes.io/service-account-token";

struct TokensControllerOptions {
  // Signs a legacy token for (namespace, service account name, service account uid, secret name).
  std::function<StatusOr<std::string>(const std::string&, const std::string&, const std::string&, const std::string&)>
      sign;
  std::string root_ca_pem;  // written as data["ca.crt"]; empty: none
  int workers = 5;
};

class TokensController : public Controller {
 public:
  explicit TokensController(TokensControllerOptions opts) : opts_(std::move(opts)) {}
  std::string_view Name() const override;
  void Start(ControllerContext& ctx) override;

 private:
  Task<void> Run(ControllerContext& ctx);
  Task<SyncResult> SyncSecret(const std::string& key);
  Task<SyncResult> SyncServiceAccount(const std::string& key);
  Task<SyncResult> DeleteSecret(const std::string& ns, const std::string& name, const std::string& uid);

  TokensControllerOptions opts_;
  ApiClient* client_ = nullptr;
  Informer* accounts_ = nullptr;
  Informer* secrets_ = nullptr;
  WorkQueue* account_queue_ = nullptr;
  WorkQueue* secret_queue_ = nullptr;
};

}  // namespace capstan::controllers
