// auth/authn/webhook_token.h: bearer tokens judged by a remote service
// (--authentication-token-webhook-config-file, a kubeconfig naming the server, its CA and our client
// credentials; --authentication-token-webhook-version v1 or v1beta1). Each token not answered from
// the cache (--authentication-token-webhook-cache-ttl, built in build.cpp) is POSTed as an
// authentication.k8s.io TokenReview with the wanted audiences; the answer's status says whether it
// is authenticated and as whom.
//
// As kube: transport failures and 429/5xx answers with Retry-After (and 504) are retried with
// exponential backoff (500 ms, ×1.5, 5 attempts); a failure or a non-2xx answer is an error; an
// unauthenticated review is an error with its status.error when it has one, else no opinion. With
// wanted audiences, the review's status.audiences (or, if empty, the server's implicit audiences) must
// intersect them, else no opinion. Thread-safe.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "auth/authn/authenticator.h"
#include "server/http/http_client.h"

namespace capstan::authn {

struct WebhookClientConfig {
  std::string server;  // https URL from the kubeconfig's cluster
  http::ClientTlsConfig tls;
  std::string bearer_token;  // the kubeconfig user's token, if any
};

struct WebhookTokenConfig {
  WebhookClientConfig client;
  std::string version = "v1beta1";  // TokenReview version sent: v1 or v1beta1
  Audiences implicit_audiences;
  std::chrono::milliseconds request_timeout{30000};
  std::chrono::milliseconds initial_backoff{500};
  int attempts = 5;
};

class WebhookTokenAuthenticator : public TokenAuthenticator {
 public:
  static StatusOr<std::unique_ptr<WebhookTokenAuthenticator>> Create(WebhookTokenConfig config,
                                                                     http::HttpClientFactory& factory);
  Task<AuthResult> AuthenticateToken(const std::string& token, const Audiences& audiences) override;
  int64_t requests() const { return requests_.load(); }

 private:
  WebhookTokenConfig config_;
  std::unique_ptr<http::HttpClient> client_;
  std::atomic<int64_t> requests_{0};
};

}  // namespace capstan::authn
