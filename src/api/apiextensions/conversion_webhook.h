// api/apiextensions/conversion_webhook.h: the client of a CRD's conversion webhook (conversion
// strategy Webhook), as kube's apiextensions webhook converter.
//
// The webhook is spec.conversion.webhook.clientConfig: a `url`, or a `service` reference
// {namespace, name, path, port (443)} that the ServiceResolver turns into an address (the service's
// endpoints, as the admission webhooks resolve theirs) while the certificate must name
// <name>.<namespace>.svc; `caBundle` is the CA to trust (none: the system roots). A conversion posts
// one ConversionReview (apiextensions.k8s.io/v1, or v1beta1 when conversionReviewVersions names that
// first) holding the objects that are not yet in the desired version, with a fresh uid and a 30 s
// timeout (`?timeout=30s`, as kube's REST client), and checks the answer as kube does: the review's
// kind and version (v1), the response's uid (v1), result.status Success, as many objects as were sent,
// each in the desired group/version with the original kind, the same name, namespace and uid. The
// converted object keeps the original metadata except labels and annotations, which the webhook may
// change (validated). Every failure is a 500 whose message is kube's
// ("conversion webhook for <group>/<version>, Kind=<kind> failed: ...").
//
// Thread-safety: immutable after construction except the lazily made HTTP client (guarded); Convert
// may run concurrently from any thread.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "admission/webhook_caller.h"
#include "registry/rest.h"
#include "server/http/http_client.h"
#include "util/metrics.h"

namespace capstan::api::apiextensions {

using registry::Object;

struct ConversionWebhookConfig {
  std::string crd_name;
  std::string url;  // clientConfig.url
  std::string service_namespace, service_name, service_path;
  int service_port = 443;
  std::string ca_pem;                        // caBundle, decoded
  std::vector<std::string> review_versions;  // conversionReviewVersions, in preference order
  std::string invalid;                       // why the configuration cannot be used (empty: usable)
};

// spec.conversion.webhook of a CRD (apiextensions.k8s.io/v1).
ConversionWebhookConfig ParseConversionWebhook(const Object& crd);

// kube's conversion webhook metrics, registered once per server:
// apiserver_conversion_webhook_request_total and apiserver_conversion_webhook_duration_seconds
// {result, failure_type}, apiserver_crd_conversion_webhook_duration_seconds {crd_name, from_version,
// to_version, succeeded}.
struct ConversionWebhookMetrics {
  CounterVec* requests = nullptr;
  HistogramVec* latency = nullptr;
  HistogramVec* crd_latency = nullptr;
  static std::shared_ptr<ConversionWebhookMetrics> Register(MetricsRegistry& registry);
  // One conversion: failure_type empty on success.
  void Observe(const std::string& crd, const std::string& from_version, const std::string& to_version,
               const std::string& failure_type, double seconds) const;
};

// What calling conversion webhooks needs from the server.
struct ConversionWebhookDeps {
  http::HttpClientFactory* http = nullptr;
  admission::ServiceResolver resolve_service;  // none: service references cannot be resolved
  std::chrono::milliseconds timeout{30000};    // kube's REST client default for webhooks
  std::shared_ptr<const ConversionWebhookMetrics> metrics;  // none: not recorded
};

class ConversionWebhook {
 public:
  ConversionWebhook(ConversionWebhookConfig config, ConversionWebhookDeps deps);

  // One object to `desired_api_version` ("group/version"); an object already there is returned as
  // it is, without a call.
  Task<StatusOr<Object>> Convert(Object obj, const std::string& desired_api_version) const;
  // The items of a list in one review (only those not in the desired version are sent); the errors
  // name the list's index as kube's list conversion does.
  Task<StatusOr<std::vector<Object>>> ConvertList(std::vector<Object> items, const std::string& desired_api_version) const;

  const ConversionWebhookConfig& config() const { return config_; }

 private:
  // Posts the review of `objects` and returns the converted objects (count checked); `gvk` names the
  // input in error messages.
  Task<StatusOr<Object>> ConvertOne(Object obj, const std::string& desired, std::string* failure) const;
  Task<StatusOr<std::vector<Object>>> ConvertMany(std::vector<Object> items, const std::string& desired,
                                                  std::string* failure) const;
  // `failure_type` gets kube's metric label of a failure.
  Task<StatusOr<std::vector<Object>>> Post(const std::vector<const Object*>& objects, const std::string& desired,
                                           const std::string& gvk, std::string* failure_type) const;
  void Observe(const Object& from, const std::string& desired, const std::string& failure_type,
               std::chrono::steady_clock::time_point start) const;
  StatusOr<http::HttpClient*> Client(const std::string& server_name) const;

  ConversionWebhookConfig config_;
  ConversionWebhookDeps deps_;
  mutable std::mutex mu_;
  mutable std::unique_ptr<http::HttpClient> client_;  // guarded by mu_
};

// Checks the body of a webhook's answer to a review of `expected` objects sent as
// `review_version` ("v1" or "v1beta1") with `uid`, and returns the converted objects (not yet
// checked one by one); errors are 500s with kube's messages, naming `gvk`, and set `failure_type`
// (when given) to kube's metric label.
StatusOr<std::vector<Object>> ParseConversionResponse(std::string_view body, const std::string& review_version,
                                                     const std::string& uid, size_t expected, const std::string& gvk,
                                                     std::string* failure_type = nullptr);

// Checks a converted object against its original (kind, name, namespace, uid) and gives it the
// original's metadata with the converted labels and annotations (validated): kube's
// validateConvertedObject + restoreObjectMeta. The error texts are kube's, without the prefix.
Status CheckConvertedObject(const Object& original, Object& converted, bool* metadata_error);

}  // namespace capstan::api::apiextensions
