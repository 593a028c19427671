// admission/image_policy_webhook.h: kube's ImagePolicyWebhook admission plugin. A pod's images (its
// containers and init containers on CREATE and UPDATE, the ephemeral containers on
// pods/ephemeralcontainers) are sent to a webhook as an imagepolicy.k8s.io/v1alpha1 ImageReview, with
// the pod's annotations whose key contains ".image-policy.k8s.io/" and its namespace. A denial is a 403
// ("image policy webhook backend denied one or more images: <reason>"); the review's auditAnnotations
// become audit annotations "imagepolicywebhook.image-policy.k8s.io/<key>". Answers are cached by the
// review's spec (1024 entries) for allowTTL or denyTTL. A webhook that fails (after kube's retries of
// a reset connection, a 500, 504 or 429: 5 tries, backoff from retryBackoff growing 1.5x; a refused
// connection is not retried) denies the pod, unless defaultAllow: then
// the pod is admitted and annotated alpha.image-policy.k8s.io/failed-open=true (the audit annotation
// imagepolicywebhook.image-policy.k8s.io/failed-open too).
//
// Configuration (--admission-control-config-file), as kube's:
//   imagePolicy: {kubeConfigFile, allowTTL (s, default 300), denyTTL (s, default 30),
//                 retryBackoff (ms, default 500), defaultAllow}
// 0 takes the default, -1 disables a cache; other values must be within kube's bounds (TTLs 1 s to
// 30 min, backoff 1 ns to 5 min). Thread-safe.
#pragma once

#include <boost/json/value.hpp>
#include <chrono>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "admission/plugin.h"
#include "server/http/http_client.h"

namespace capstan::admission {

struct PluginDeps;

struct ImagePolicyConfig {
  std::string kubeconfig_file;
  std::chrono::nanoseconds allow_ttl = std::chrono::minutes(5);
  std::chrono::nanoseconds deny_ttl = std::chrono::seconds(30);
  std::chrono::nanoseconds retry_backoff = std::chrono::milliseconds(500);
  bool default_allow = false;
};

// Decodes and normalizes the plugin's configuration with kube's errors (none given: "no config specified").
StatusOr<ImagePolicyConfig> ParseImagePolicyConfig(const std::optional<boost::json::value>& config);

// The status of the webhook's ImageReview answer (allowed, reason, auditAnnotations); an error when
// the body is not a JSON object.
struct ImageReviewAnswer {
  bool allowed = false;
  std::string reason;
  std::vector<std::pair<std::string, std::string>> audit_annotations;
};
StatusOr<ImageReviewAnswer> ParseImageReviewAnswer(std::string_view body);

// Where a webhook kubeconfig points (its cluster's server and CA, the user's credentials).
struct WebhookEndpoint {
  std::string server;
  http::ClientTlsConfig tls;
  std::string bearer_token;
};

class ImagePolicyWebhook : public Plugin {
 public:
  ImagePolicyWebhook(const ImagePolicyConfig& config, WebhookEndpoint endpoint, std::unique_ptr<http::HttpClient> client);
  std::string Name() const override { return "ImagePolicyWebhook"; }
  bool Handles(const std::string& op) const override { return op == "CREATE" || op == "UPDATE"; }
  bool Validating() const override { return true; }
  Task<Status> Validate(const Attributes& a) override;

 private:
  using Answer = ImageReviewAnswer;
  // The webhook's answer to `review` (a serialized ImageReview), or the error after the retries.
  Task<StatusOr<Answer>> Ask(const std::string& review);
  std::optional<Answer> Cached(const std::string& key);
  void Cache(const std::string& key, const Answer& answer);

  const ImagePolicyConfig config_;
  const WebhookEndpoint endpoint_;
  std::unique_ptr<http::HttpClient> client_;
  std::mutex mu_;
  struct Entry {
    std::string key;
    Answer answer;
    std::chrono::steady_clock::time_point expires;
  };
  std::list<Entry> lru_;                                                   // guarded by mu_, newest first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;     // guarded by mu_
};

// The plugin from deps (its configuration, the kubeconfig loader and the HTTP client factory).
StatusOr<std::unique_ptr<Plugin>> NewImagePolicyWebhookPlugin(const PluginDeps& deps);

}  // namespace capstan::admission
