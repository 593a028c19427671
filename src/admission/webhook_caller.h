// admission/webhook_caller.h: calls one admission webhook, as kube's webhook dispatchers' callHook.
//
// ShouldCall applies a webhook's rules, namespaceSelector (the namespace's labels, looked up; a
// Namespace's own labels; always true for other cluster-scoped resources) and objectSelector (the new
// or the old object's labels). Call posts an AdmissionReview over HTTPS (the webhook's caBundle, or
// the system roots; for a service reference the connection goes where the ServiceResolver says and
// the certificate must name <service>.<namespace>.svc), with the webhook's timeoutSeconds, and
// classifies the answer:
//   - kAllowed: allowed; the warnings and audit annotations (prefixed "<webhook>/") went to the
//     request's RequestScope (Attributes::scope);
//   - kRejected: refused, `status` is what the client gets ("admission webhook \"x\" denied the
//     request: ..."), whatever the failurePolicy (dry-run refusals too);
//   - kCallError: the call failed (transport, timeout, bad response, unusable configuration);
//     `status` carries kube's text "failed calling webhook \"x\": ..." and failurePolicy decides.
// Last, the webhook's matchConditions (match_conditions.h): any false skips the webhook; an evaluation
// error skips it under failurePolicy Ignore and, under Fail, is a 403 naming the object with kube's
// text ("... is forbidden: expression '...' resulted in error: ..."). HTTP clients are cached per (CA bundle, server name).
// Thread-safety: safe from any thread; calls run concurrently.
#pragma once

#include <functional>
#include <map>
#include <mutex>

#include "admission/admission_review.h"
#include "admission/namespace_lifecycle.h"
#include "admission/webhook_config.h"
#include "server/http/http_client.h"
#include "util/metrics.h"

namespace capstan::admission {

// Where to connect for a service reference: "host:port" (e.g. an endpoint address), or an error.
using ServiceResolver =
    std::function<Task<StatusOr<std::string>>(const std::string& ns, const std::string& name, int port)>;

struct WebhookCallerDeps {
  http::HttpClientFactory* http = nullptr;
  NamespaceLookup namespace_lookup;
  ServiceResolver resolve_service;  // none: service references fail to resolve
  MetricsRegistry* metrics = nullptr;
};

struct CallOutcome {
  enum Kind { kAllowed, kRejected, kCallError };
  Kind kind = kAllowed;
  Status status;
  ReviewResult review;
};

class WebhookCaller {
 public:
  explicit WebhookCaller(WebhookCallerDeps deps);

  // An error when the namespace lookup fails.
  Task<StatusOr<bool>> ShouldCall(const Webhook& w, const Attributes& a) const;
  Task<CallOutcome> Call(const Webhook& w, const Attributes& a, const registry::Object* object);

  // apiserver_admission_webhook_fail_open_count{name,type}.
  void CountFailOpen(const Webhook& w) const;

 private:
  StatusOr<http::HttpClient*> ClientFor(const std::string& ca_pem, const std::string& server_name);

  WebhookCallerDeps deps_;
  std::mutex mu_;
  std::map<std::pair<std::string, std::string>, std::unique_ptr<http::HttpClient>> clients_;  // guarded by mu_
  HistogramVec* durations_ = nullptr;  // apiserver_admission_webhook_admission_duration_seconds
  CounterVec* rejections_ = nullptr;   // apiserver_admission_webhook_rejection_count
  CounterVec* fail_open_ = nullptr;    // apiserver_admission_webhook_fail_open_count
  CounterVec* exclusions_ = nullptr;   // apiserver_admission_match_condition_exclusions_total
};

// The text Go's REST client gives for a non-2xx answer (the Status message it carries, else a
// generic text); shared with the CRD conversion webhook client.
std::string HttpErrorText(const http::ClientResponse& r);

// kube's text for a call that failed, as an InternalError (failurePolicy Fail).
Status CallErrorToStatus(const Status& call_error);

}  // namespace capstan::admission
