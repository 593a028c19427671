#include "auth/authn/webhook_token.h"

#include <boost/json.hpp>

#include "util/log.h"
#include "util/strings.h"
#include "util/timer.h"

namespace capstan::authn {

namespace json = boost::json;

namespace {

bool Retriable(const StatusOr<http::ClientResponse>& r) {
  if (!r.ok()) return r.status().code() == 503 || r.status().code() == 504;  // transport failure or timeout
  int code = r->status;
  if (code == 429 || code == 504) return true;
  return code >= 500 && r->headers.Has("Retry-After");
}

std::vector<std::string> StringList(const json::value* v) {
  std::vector<std::string> out;
  if (!v || !v->is_array()) return out;
  for (const auto& x : v->get_array()) {
    if (x.is_string()) out.emplace_back(x.get_string());
  }
  return out;
}

}  // namespace

StatusOr<std::unique_ptr<WebhookTokenAuthenticator>> WebhookTokenAuthenticator::Create(WebhookTokenConfig config,
                                                                                       http::HttpClientFactory& factory) {
  if (config.version != "v1" && config.version != "v1beta1") {
    return Status(500, "InternalError", "unsupported authentication webhook version " + GoQuote(config.version) +
                                            ", supported versions are \"v1\", \"v1beta1\"");
  }
  if (!http::ParseHttpUrl(config.client.server)) {
    return Status(500, "InternalError", "invalid authentication webhook server URL " + GoQuote(config.client.server));
  }
  auto client = factory.NewClient(config.client.tls);
  if (!client.ok()) return Status(500, "InternalError", "authentication webhook: " + client.status().message());
  std::unique_ptr<WebhookTokenAuthenticator> a(new WebhookTokenAuthenticator());
  a->config_ = std::move(config);
  a->client_ = std::move(*client);
  return a;
}

Task<AuthResult> WebhookTokenAuthenticator::AuthenticateToken(const std::string& token, const Audiences& audiences) {
  json::object review;
  review["apiVersion"] = "authentication.k8s.io/" + config_.version;
  review["kind"] = "TokenReview";
  review["metadata"] = json::object{{"creationTimestamp", nullptr}};
  json::object spec;
  spec["token"] = token;
  if (!audiences.empty()) {
    json::array a;
    for (const auto& x : audiences) a.emplace_back(x);
    spec["audiences"] = std::move(a);
  }
  review["spec"] = std::move(spec);
  review["status"] = json::object{{"user", json::object()}};
  std::string body = json::serialize(review);

  StatusOr<http::ClientResponse> resp = Status(503, "ServiceUnavailable", "");
  auto backoff = config_.initial_backoff;
  for (int attempt = 0; attempt < config_.attempts; ++attempt) {
    if (attempt > 0) {
      co_await SleepFor(backoff);
      backoff = std::chrono::milliseconds(backoff.count() * 3 / 2);
    }
    http::ClientRequest req = http::JsonPost(config_.client.server, body, config_.client.bearer_token);
    req.timeout = config_.request_timeout;
    req.max_response_bytes = 1 << 20;
    requests_.fetch_add(1, std::memory_order_relaxed);
    resp = co_await client_->Do(std::move(req));
    if (!Retriable(resp)) break;
  }
  if (!resp.ok()) {
    LogError("Failed to make webhook authenticator request", {{"error", resp.status().message()}});
    co_return AuthError(resp.status().message());
  }
  if (resp->status < 200 || resp->status > 299) {
    std::string msg = "the server responded with the status code " + std::to_string(resp->status) +
                      " but did not return more information";
    LogError("Failed to make webhook authenticator request", {{"error", msg}});
    co_return AuthError(msg);
  }
  json::error_code ec;
  json::value v = json::parse(resp->body, ec);
  if (ec || !v.is_object()) co_return AuthError("authentication webhook: the response is not a TokenReview");
  const json::object* status = nullptr;
  if (const auto* s = v.get_object().if_contains("status"); s && s->is_object()) status = &s->get_object();
  static const json::object kEmpty;
  const json::object& st = status ? *status : kEmpty;

  Audiences auds;
  if (!audiences.empty()) {
    Audiences got = StringList(st.if_contains("audiences"));
    if (got.empty()) got = config_.implicit_audiences;
    auds = IntersectAudiences(got, audiences);
    if (auds.empty()) co_return std::optional<Response>();
  }
  const auto* authenticated = st.if_contains("authenticated");
  if (!authenticated || !authenticated->is_bool() || !authenticated->get_bool()) {
    const auto* err = st.if_contains("error");
    if (err && err->is_string() && !err->get_string().empty()) co_return AuthError(std::string(err->get_string()));
    co_return std::optional<Response>();
  }
  Response r;
  r.audiences = std::move(auds);
  if (const auto* u = st.if_contains("user"); u && u->is_object()) {
    const auto& uo = u->get_object();
    if (const auto* n = uo.if_contains("username"); n && n->is_string()) r.user.name = std::string(n->get_string());
    if (const auto* id = uo.if_contains("uid"); id && id->is_string()) r.user.uid = std::string(id->get_string());
    r.user.groups = StringList(uo.if_contains("groups"));
    if (const auto* ex = uo.if_contains("extra"); ex && ex->is_object()) {
      for (const auto& [k, vals] : ex->get_object()) r.user.extra[std::string(k)] = StringList(&vals);
    }
  }
  co_return std::optional<Response>(std::move(r));
}

}  // namespace capstan::authn
