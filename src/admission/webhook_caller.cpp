#include "admission/webhook_caller.h"

#include <boost/json.hpp>
#include <chrono>

#include "admission/match_conditions.h"
#include "apimachinery/errors.h"
#include "apimachinery/json_parse.h"
#include "apimachinery/json_write.h"
#include "apimachinery/names.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/status_json.h"
#include "util/log.h"

namespace capstan::admission {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

CallOutcome CallError(const Webhook& w, const std::string& reason) {
  CallOutcome o;
  o.kind = CallOutcome::kCallError;
  o.status = Status(500, "InternalError", "failed calling webhook \"" + w.name + "\": " + reason);
  return o;
}

}  // namespace

std::string HttpErrorText(const http::ClientResponse& r) {
  auto v = am::ParseJsonValue(r.body);
  if (v.ok()) {
    if (auto st = am::StatusFromJson(*v); st && !st->ok() && !st->message().empty()) return st->message();
  }
  if (r.status == 500 || r.status == 502 || r.status == 503 || r.status == 504) {
    std::string body = r.body.size() > 200 ? r.body.substr(0, 200) : r.body;
    if (!body.empty()) {
      return "an error on the server (\"" + body + "\") has prevented the request from succeeding";
    }
  }
  return "the server responded with the status code " + std::to_string(r.status) +
         " but did not return more information";
}

Status CallErrorToStatus(const Status& call_error) { return am::NewInternalError(call_error.message()); }

WebhookCaller::WebhookCaller(WebhookCallerDeps deps) : deps_(std::move(deps)) {
  if (deps_.metrics) {
    durations_ = &deps_.metrics->NewHistogramVec(
        "apiserver_admission_webhook_admission_duration_seconds",
        "Admission webhook latency histogram in seconds, identified by name and broken out for each operation and "
        "API resource and type (validate or admit).",
        {"name", "type", "operation", "rejected"}, {0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25});
    rejections_ = &deps_.metrics->NewCounterVec(
        "apiserver_admission_webhook_rejection_count",
        "Admission webhook rejection count, identified by name and broken out for each admission type (validating or "
        "admit) and operation.",
        {"name", "type", "operation", "error_type", "rejection_code"});
    fail_open_ = &deps_.metrics->NewCounterVec(
        "apiserver_admission_webhook_fail_open_count",
        "Admission webhook fail open count, identified by name and broken out for each admission type (validating or "
        "mutating).",
        {"name", "type"});
    exclusions_ = &deps_.metrics->NewCounterVec(
        "apiserver_admission_match_condition_exclusions_total",
        "Admission match condition evaluation exclusions count, identified by name of resource containing the match "
        "condition and broken out for each kind containing matchConditions (webhook or policy), operation and "
        "admission type (validate or admit).",
        {"name", "kind", "type", "operation"});
  }
}

void WebhookCaller::CountFailOpen(const Webhook& w) const {
  if (fail_open_) fail_open_->With({w.name, w.mutating ? "admit" : "validating"})->Inc();
}

Task<StatusOr<bool>> WebhookCaller::ShouldCall(const Webhook& w, const Attributes& a) const {
  if (!a.resource) co_return false;
  if (!RulesMatch(w, MatchRequestFor(a))) co_return false;
  if (w.object_selector && !w.object_selector->Empty()) {
    bool match = (a.object && a.operation != "DELETE" && w.object_selector->Matches(LabelsOf(a.object))) ||
                 (a.old_object && w.object_selector->Matches(LabelsOf(a.old_object)));
    if (!match) co_return false;
  }
  if (w.namespace_selector && !w.namespace_selector->Empty()) {
    if (a.resource->resource == "namespaces" && a.subresource.empty()) {
      const registry::Object* obj = a.operation == "DELETE" ? a.old_object : a.object;
      co_return w.namespace_selector->Matches(LabelsOf(obj));
    }
    if (!a.resource->namespaced) co_return true;
    if (deps_.namespace_lookup) {
      auto ns = co_await deps_.namespace_lookup(a.namespace_);
      if (!ns.ok()) co_return am::NewInternalError(ns.status().message());
      if (!w.namespace_selector->Matches(LabelsOf(&*ns))) co_return false;
    }
  }
  if (w.match_conditions && !w.match_conditions->empty()) {
    cel::AdmissionActivation act(AdmissionValuesFor(a));
    auto m = w.match_conditions->Match(act, w.failure_policy != "Ignore");
    if (!m.error.empty()) {
      LogWarn("failed evaluating match conditions, failing closed", {{"webhook", w.name}, {"error", m.error}});
      co_return ForbiddenFor(a, m.error);
    }
    if (!m.matches) {
      if (exclusions_) exclusions_->With({w.name, "webhook", w.mutating ? "admit" : "validating", a.operation})->Inc();
      co_return false;
    }
  }
  co_return true;
}

StatusOr<http::HttpClient*> WebhookCaller::ClientFor(const std::string& ca_pem, const std::string& server_name) {
  std::lock_guard lock(mu_);
  auto key = std::make_pair(ca_pem, server_name);
  auto it = clients_.find(key);
  if (it != clients_.end()) return it->second.get();
  if (!deps_.http) return Status(500, "InternalError", "no HTTP client for admission webhooks");
  http::ClientTlsConfig tls;
  tls.ca_pem = ca_pem;
  tls.server_name = server_name;
  auto c = deps_.http->NewClient(tls);
  if (!c.ok()) return c.status();
  http::HttpClient* raw = c->get();
  clients_.emplace(key, std::move(*c));
  return raw;
}

Task<CallOutcome> WebhookCaller::Call(const Webhook& w, const Attributes& a, const registry::Object* object) {
  if (!w.invalid.empty()) co_return CallError(w, "could not get REST client: " + w.invalid);
  if (a.dry_run) {
    if (!w.side_effects) {
      CallOutcome o = CallError(w, "Webhook SideEffects is nil");
      o.status = am::NewBadRequest("Webhook SideEffects is nil");
      o.kind = CallOutcome::kRejected;
      co_return o;
    }
    if (*w.side_effects != "None" && *w.side_effects != "NoneOnDryRun") {
      CallOutcome o;
      o.kind = CallOutcome::kRejected;
      o.status = am::NewBadRequest("admission webhook \"" + w.name + "\" does not support dry run");
      co_return o;
    }
  }
  std::string url = w.url;
  std::string server_name;
  if (!w.service_name.empty()) {
    server_name = w.service_name + "." + w.service_namespace + ".svc";
    if (!deps_.resolve_service) co_return CallError(w, "failed to call webhook: service resolution is not available");
    auto target = co_await deps_.resolve_service(w.service_namespace, w.service_name, w.service_port);
    if (!target.ok()) co_return CallError(w, "failed to call webhook: " + target.status().message());
    url = "https://" + *target + w.service_path;
  }
  url += (url.find('?') == std::string::npos ? "?" : "&") + std::string("timeout=") + std::to_string(w.timeout_seconds) + "s";
  auto client = ClientFor(w.ca_pem, server_name);
  if (!client.ok()) co_return CallError(w, "could not get REST client: " + client.status().message());

  std::string uid = am::NewUid();
  http::ClientRequest req;
  req.method = "POST";
  req.url = url;
  req.headers.Set("Content-Type", "application/json");
  req.headers.Set("Accept", "application/json, */*");
  req.body = am::ToJson(MakeReview(a, uid, object));
  req.timeout = std::chrono::seconds(w.timeout_seconds);
  auto start = std::chrono::steady_clock::now();
  auto resp = co_await (*client)->Do(std::move(req));
  CallOutcome out;
  if (!resp.ok()) {
    out = CallError(w, "failed to call webhook: " + resp.status().message());
  } else if (resp->status < 200 || resp->status > 299) {
    out = CallError(w, "failed to call webhook: " + HttpErrorText(*resp));
  } else {
    auto review = VerifyResponse(uid, w.mutating, resp->body);
    if (!review.ok()) {
      out = CallError(w, "received invalid webhook response: " + review.status().message());
    } else {
      out.review = std::move(*review);
      if (RequestScope* scope = a.scope) {
        for (const auto& [k, v] : out.review.audit_annotations) scope->AddAnnotation(w.name + "/" + k, v);
        for (const auto& warning : out.review.warnings) scope->AddWarning(warning);
      }
      if (out.review.allowed) {
        out.kind = CallOutcome::kAllowed;
      } else {
        out.kind = CallOutcome::kRejected;
        out.status = DeniedStatus(w.name, out.review.result);
      }
    }
  }
  std::string type = w.mutating ? "admit" : "validating";
  auto elapsed = std::chrono::steady_clock::now() - start;
  if (RequestScope* scope = a.scope) scope->AddSliExcludedLatency(elapsed);
  double secs = std::chrono::duration<double>(elapsed).count();
  bool rejected = out.kind == CallOutcome::kRejected || (out.kind == CallOutcome::kCallError && w.failure_policy != "Ignore");
  if (durations_) durations_->With({w.name, type, a.operation, rejected ? "true" : "false"})->Observe(secs);
  if (rejections_ && rejected) {
    std::string error_type = out.kind == CallOutcome::kRejected ? "no_error" : "calling_webhook_error";
    rejections_->With({w.name, type, a.operation, error_type, std::to_string(out.status.code())})->Inc();
  }
  if (out.kind == CallOutcome::kCallError) {
    LogWarn("failed calling webhook", {{"webhook", w.name}, {"error", out.status.message()}});
  }
  co_return out;
}

}  // namespace capstan::admission
