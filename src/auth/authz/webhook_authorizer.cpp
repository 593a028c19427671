#include "auth/authz/webhook_authorizer.h"

#include <boost/json.hpp>

#include "util/strings.h"
#include "util/timer.h"

namespace capstan::authz {

namespace json = boost::json;

std::string WebhookAuthorizer::ReviewBody(const Attributes& a, const std::string& version) {
  json::object spec;
  if (a.resource_request) {
    json::object ra;
    if (!a.namespace_.empty()) ra["namespace"] = a.namespace_;
    if (!a.verb.empty()) ra["verb"] = a.verb;
    if (!a.api_group.empty()) ra["group"] = a.api_group;
    if (!a.api_version.empty()) ra["version"] = a.api_version;
    if (!a.resource.empty()) ra["resource"] = a.resource;
    if (!a.subresource.empty()) ra["subresource"] = a.subresource;
    if (!a.name.empty()) ra["name"] = a.name;
    AddSelectorAttributes(a, ra);
    spec["resourceAttributes"] = std::move(ra);
  } else {
    json::object nra;
    if (!a.path.empty()) nra["path"] = a.path;
    if (!a.verb.empty()) nra["verb"] = a.verb;
    spec["nonResourceAttributes"] = std::move(nra);
  }
  if (!a.user.name.empty()) spec["user"] = a.user.name;
  if (!a.user.groups.empty()) {
    json::array g;
    for (const auto& x : a.user.groups) g.emplace_back(x);
    spec[version == "v1beta1" ? "group" : "groups"] = std::move(g);
  }
  if (!a.user.uid.empty()) spec["uid"] = a.user.uid;
  if (!a.user.extra.empty()) {
    json::object extra;
    for (const auto& [k, vals] : a.user.extra) {
      json::array arr;
      for (const auto& v : vals) arr.emplace_back(v);
      extra[k] = std::move(arr);
    }
    spec["extra"] = std::move(extra);
  }
  json::object review;
  review["apiVersion"] = "authorization.k8s.io/" + version;
  review["kind"] = "SubjectAccessReview";
  review["metadata"] = json::object{{"creationTimestamp", nullptr}};
  review["spec"] = std::move(spec);
  review["status"] = json::object{{"allowed", false}};
  return json::serialize(review);
}

namespace {

// kube's metricsResult of one round trip.
std::string CallResult(const Status& st) {
  const std::string& m = st.message();
  if (m.find("timeout") != std::string::npos || m.find("timed out") != std::string::npos || st.code() == 504) {
    return "timeout";
  }
  return "error";
}

}  // namespace

Task<Result> WebhookAuthorizer::Authorize(const Attributes& a) {
  const AuthorizerMetrics* m = config_.metrics;
  if (config_.match_conditions) {
    auto start = std::chrono::steady_clock::now();
    auto outcome = config_.match_conditions->Match(a);
    if (m) {
      m->match_seconds.With({"Webhook", config_.name})
          ->Observe(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      if (!outcome.error.empty()) m->match_errors.With({"Webhook", config_.name})->Inc();
      if (!outcome.matches && outcome.error.empty()) m->match_exclusions.With({"Webhook", config_.name})->Inc();
    }
    if (!outcome.error.empty()) co_return Result{config_.decision_on_error, "", outcome.error};
    if (!outcome.matches) co_return Result{};
  }
  std::string body = ReviewBody(a, config_.version);
  auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(mu_);
    auto it = cache_.find(body);
    if (it != cache_.end()) {
      if (it->second.expires > now) co_return it->second.result;
      cache_.erase(it);
    }
  }
  std::string error;
  std::string result;
  // kube's WithExponentialBackoff with DefaultAuthWebhookRetryBackoff (500 ms, x1.5, 5 attempts),
  // retrying what DefaultShouldRetry retries: a timeout, 429, 500, 504, and a 5xx with Retry-After.
  auto backoff = config_.initial_backoff;
  for (int attempt = 0; attempt < config_.attempts; ++attempt) {
    if (attempt > 0) {
      co_await SleepFor(backoff);
      backoff = backoff * 3 / 2;
    }
    http::ClientRequest req = http::JsonPost(config_.server, body, config_.bearer_token, "application/json");
    req.timeout = config_.request_timeout;
    calls_++;
    auto start = std::chrono::steady_clock::now();
    auto resp = co_await client_->Do(std::move(req));
    if (!resp.ok()) {
      result = CallResult(resp.status());
    } else {
      result = resp->status == 504 ? "timeout" : resp->status >= 200 && resp->status <= 299 ? "success" : "error";
    }
    if (m) {
      m->webhook_evaluations.With({config_.name, result})->Inc();
      m->webhook_duration.With({config_.name, result})
          ->Observe(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    if (!resp.ok()) {
      error = resp.status().message();
      if (result == "timeout") continue;
      break;  // connection refused or reset before an answer: not retried, as kube's
    }
    if (resp->status == 429 || resp->status == 500 || resp->status == 504 ||
        (resp->status > 500 && resp->headers.Has("Retry-After"))) {
      error = "the server responded with the status code " + std::to_string(resp->status);
      continue;
    }
    if (resp->status < 200 || resp->status > 299) {
      error = "the server responded with the status code " + std::to_string(resp->status);
      break;
    }
    boost::system::error_code ec;
    json::value v = json::parse(resp->body, ec);
    if (ec || !v.is_object()) {
      error = "the webhook's answer is not a SubjectAccessReview";
      break;
    }
    Result r;
    const auto* st = v.get_object().if_contains("status");
    if (st && st->is_object()) {
      const auto& so = st->get_object();
      bool allowed = so.contains("allowed") && so.at("allowed").is_bool() && so.at("allowed").get_bool();
      bool denied = so.contains("denied") && so.at("denied").is_bool() && so.at("denied").get_bool();
      r.decision = denied ? Decision::kDeny : allowed ? Decision::kAllow : Decision::kNoOpinion;
      if (const auto* reason = so.if_contains("reason"); reason && reason->is_string()) r.reason = reason->get_string();
      if (const auto* ev = so.if_contains("evaluationError"); ev && ev->is_string()) r.error = ev->get_string();
      if (allowed && denied) r.error = "webhook subject access review returned both allow and deny response";
    }
    std::lock_guard lock(mu_);
    cache_[body] = Cached{r, std::chrono::steady_clock::now() +
                                 (r.decision == Decision::kAllow ? config_.authorized_ttl : config_.unauthorized_ttl)};
    co_return r;
  }
  if (m && config_.decision_on_error == Decision::kNoOpinion) m->webhook_fail_open.With({config_.name, result})->Inc();
  co_return Result{config_.decision_on_error, "", error};
}

}  // namespace capstan::authz
