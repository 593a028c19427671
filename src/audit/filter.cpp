#include "audit/filter.h"

#include <boost/json.hpp>
#include <cctype>

#include "apimachinery/json_parse.h"
#include "apimachinery/yaml.h"
#include "server/http/request_info.h"
#include "util/strings.h"

namespace capstan::audit {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

constexpr size_t kMaxUserAgent = 1024;

// Wraps the request's writer: records the response code (and the body when asked), adds the
// admission warnings as Warning headers, and passes what later filters set in extra_headers on.
class AuditResponseWriter : public http::ResponseWriter {
 public:
  AuditResponseWriter(http::ResponseWriter* inner, RequestScope* scope, bool capture_all, size_t max_capture,
                      std::function<void(int)> on_start)
      : inner_(inner), scope_(scope), capture_all_(capture_all), max_capture_(max_capture),
        on_start_(std::move(on_start)) {}

  Task<bool> Respond(http::HttpResponse resp) override {
    Prepare(resp.status, resp.headers);
    if (capture_all_ || resp.status >= 300 || IsStatusBody(resp.body)) Capture(resp.body);
    co_return co_await inner_->Respond(std::move(resp));
  }
  Task<bool> StartStream(int status, http::Headers headers) override {
    Prepare(status, headers);
    streamed_ = true;
    co_return co_await inner_->StartStream(status, std::move(headers));
  }
  Task<bool> WriteChunk(std::string data) override {
    if (capture_all_) Capture(data);
    co_return co_await inner_->WriteChunk(std::move(data));
  }
  Task<bool> EndStream() override { co_return co_await inner_->EndStream(); }
  bool started() const override { return inner_->started(); }
  int status() const override { return status_ ? status_ : inner_->status(); }

  int recorded_status() const { return status_; }
  const std::string& body() const { return body_; }
  bool body_complete() const { return !overflow_; }
  const std::string& content_type() const { return content_type_; }

 private:
  static bool IsStatusBody(const std::string& b) {
    return b.size() < 64 * 1024 && b.find("\"kind\":\"Status\"") != std::string::npos;
  }
  void Capture(const std::string& data) {
    if (overflow_) return;
    if (body_.size() + data.size() > max_capture_) {
      overflow_ = true;
      body_.clear();
      return;
    }
    body_ += data;
  }
  void Prepare(int status, http::Headers& headers) {
    if (status_ == 0) {
      status_ = status;
      content_type_ = std::string(headers.Get("Content-Type"));
      if (on_start_) on_start_(status);
    }
    for (const auto& f : extra_headers_.fields()) inner_->extra_headers().Add(f.name, f.value);
    extra_headers_ = http::Headers();
    if (!scope_) return;
    for (const auto& w : scope_->warnings()) {
      std::string escaped;
      for (char c : w) {
        if (c == '"' || c == '\\') escaped.push_back('\\');
        escaped.push_back(c);
      }
      std::string value = "299 - \"" + escaped + "\"";
      bool seen = false;
      for (auto v : headers.GetAll("Warning")) seen = seen || v == value;
      if (!seen) headers.Add("Warning", value);
    }
  }

  http::ResponseWriter* inner_;
  RequestScope* scope_;
  bool capture_all_;
  size_t max_capture_;
  std::function<void(int)> on_start_;
  int status_ = 0;
  bool streamed_ = false;
  bool overflow_ = false;
  std::string body_;
  std::string content_type_;
};

am::Timestamp WallTimeOf(std::chrono::steady_clock::time_point t) {
  auto now_wall = std::chrono::system_clock::now();
  auto now_mono = std::chrono::steady_clock::now();
  if (t.time_since_epoch().count() == 0 || t > now_mono) return am::Timestamp::FromTimePoint(now_wall);
  return am::Timestamp::FromTimePoint(now_wall - std::chrono::duration_cast<std::chrono::system_clock::duration>(now_mono - t));
}

std::string MediaType(std::string_view ct) {
  std::string out(ct.substr(0, ct.find(';')));
  while (!out.empty() && out.back() == ' ') out.pop_back();
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<json::value> DecodeBody(const FilterConfig& cfg, std::string_view content_type, std::string_view body) {
  if (body.empty()) return std::nullopt;
  std::string mt = MediaType(content_type);
  if (mt == "application/yaml" || mt == "application/apply-patch+yaml") {
    auto y = am::YamlToJson(body);
    if (!y.ok()) return std::nullopt;
    return std::move(y->value);
  }
  if (mt.empty() || mt == "application/json" || mt.find("+json") != std::string::npos) {
    auto v = am::ParseJsonValue(body);
    if (!v.ok()) return std::nullopt;
    return std::move(*v);
  }
  if (cfg.decode) return cfg.decode(content_type, body);
  return std::nullopt;
}

void DropManagedFields(json::value& v) {
  if (!v.is_object()) return;
  json::object& o = v.as_object();
  if (auto* md = o.if_contains("metadata"); md && md->is_object()) md->as_object().erase("managedFields");
  if (auto* items = o.if_contains("items"); items && items->is_array()) {
    for (auto& it : items->as_array()) DropManagedFields(it);
  }
  if (auto* rows = o.if_contains("rows"); rows && rows->is_array()) {
    for (auto& r : rows->as_array()) {
      if (r.is_object()) {
        if (auto* obj = r.as_object().if_contains("object")) DropManagedFields(*obj);
      }
    }
  }
}

std::string StringOf(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

json::object ResponseStatusOf(int code, const std::optional<json::value>& body) {
  json::object st;
  st["metadata"] = json::object();
  if (body && body->is_object() && StringOf(body->as_object(), "kind") == "Status") {
    const json::object& b = body->as_object();
    for (const char* k : {"status", "message", "reason", "details"}) {
      if (const json::value* v = b.if_contains(k); v && !v->is_null()) st[k] = *v;
    }
    if (const json::value* c = b.if_contains("code"); c && c->is_number()) {
      st["code"] = *c;
      return st;
    }
  }
  st["code"] = code;
  return st;
}

struct Auditing {
  const FilterConfig& cfg;
  RequestAuditConfig rac;
  Event ev;

  bool Omitted(Stage s) const { return rac.omit_stages.count(s) > 0; }
  void Emit(Stage s) {
    if (Omitted(s) || !cfg.backend) return;
    auto copy = std::make_shared<Event>(ev);
    copy->stage = s;
    copy->stage_timestamp = am::Timestamp::Now();
    if (cfg.metrics) cfg.metrics->events.Inc();
    std::vector<EventPtr> batch;
    batch.push_back(std::move(copy));
    cfg.backend->ProcessEvents(std::move(batch));
  }
};

}  // namespace

RequestAttributes AttributesOf(const http::RequestContext& ctx) {
  RequestAttributes a;
  a.user = ctx.user ? &*ctx.user : nullptr;
  a.verb = ctx.info.verb;
  a.resource_request = ctx.info.is_resource_request;
  a.api_group = ctx.info.api_group;
  a.namespace_ = ctx.info.namespace_;
  a.resource = ctx.info.resource;
  a.subresource = ctx.info.subresource;
  a.name = ctx.info.name;
  a.path = ctx.info.path.empty() ? ctx.request.path : ctx.info.path;
  return a;
}

namespace {

// The fields every event of a request has, from what the request carries.
void FillRequestFields(Event& ev, const http::RequestContext& ctx) {
  ev.audit_id = ctx.audit_id;
  ev.request_uri = ctx.request.target;
  ev.verb = ctx.info.verb;
  if (ctx.user) ev.user = *ctx.user;
  ev.source_ips = SourceIps(ctx.request.headers.Get("X-Forwarded-For"), ctx.request.headers.Get("X-Real-Ip"),
                            ctx.request.remote_addr);
  ev.user_agent = std::string(ctx.request.headers.Get("User-Agent"));
  if (ev.user_agent.size() > kMaxUserAgent) ev.user_agent = ev.user_agent.substr(0, kMaxUserAgent) + "...TRUNCATED";
  if (ctx.info.is_resource_request) {
    ObjectReference ref;
    ref.resource = ctx.info.resource;
    ref.namespace_ = ctx.info.namespace_;
    ref.name = ctx.info.name;
    ref.api_group = ctx.info.api_group;
    ref.api_version = ctx.info.api_version;
    ref.subresource = ctx.info.subresource;
    ev.object_ref = ref;
  }
  ev.request_received = WallTimeOf(ctx.received);
}

bool HasBasicAuth(std::string_view auth) {
  constexpr std::string_view kPrefix = "basic ";
  if (auth.size() < kPrefix.size()) return false;
  for (size_t i = 0; i < kPrefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(auth[i])) != kPrefix[i]) return false;
  }
  std::string decoded;
  return Base64Decode(auth.substr(kPrefix.size()), decoded) && decoded.find(':') != std::string::npos;
}

}  // namespace

std::string FailedAuthenticationMessage(const http::HttpRequest& request) {
  std::vector<std::string> methods;
  const std::string_view raw = request.headers.Get("Authorization");
  if (HasBasicAuth(raw)) methods.emplace_back("basic");
  const std::string auth(TrimSpace(raw));
  const auto space = auth.find(' ');
  if (space != std::string::npos && ToLower(auth.substr(0, space)) == "bearer") methods.emplace_back("bearer");
  if (auto token = request.query.Get("access_token"); token && !TrimSpace(*token).empty()) {
    methods.emplace_back("access_token");
  }
  if (!request.peer_certs_der.empty()) methods.emplace_back("x509");
  if (methods.empty()) return "Authentication failed, no credentials provided";
  return "Authentication failed, attempted: " + Join(methods, ", ");
}

http::Handler WithFailedAuthenticationAudit(http::Handler failed, FilterConfig cfg) {
  if (!cfg.policy || !cfg.backend) return failed;
  return [failed = std::move(failed), cfg = std::move(cfg)](http::RequestContext& ctx) -> Task<void> {
    RequestAuditConfig rac = cfg.policy->Evaluate(AttributesOf(ctx));
    if (cfg.metrics) cfg.metrics->levels.With({std::string(LevelName(rac.level))})->Inc();
    if (rac.level == Level::kNone) {
      co_await failed(ctx);
      co_return;
    }
    Auditing au{cfg, rac, {}};
    au.ev.level = rac.level;
    FillRequestFields(au.ev, ctx);
    const std::string message = FailedAuthenticationMessage(ctx.request);
    http::ResponseWriter* inner = ctx.writer;
    AuditResponseWriter w(inner, nullptr, false, 0, [&au, &message](int code) {
      json::object st;
      st["metadata"] = json::object();
      st["message"] = message;
      st["code"] = code;
      au.ev.response_status = st;
      au.Emit(Stage::kResponseStarted);
    });
    ctx.writer = &w;
    co_await failed(ctx);
    ctx.writer = inner;
  };
}

http::Handler WithAuditEvents(http::Handler next, FilterConfig cfg) {
  return [next = std::move(next), cfg = std::move(cfg)](http::RequestContext& ctx) -> Task<void> {
    RequestScope scope;
    const void* key = ctx.user ? static_cast<const void*>(&*ctx.user) : nullptr;
    if (cfg.scopes && key) cfg.scopes->Register(key, &scope);
    struct Unregister {
      RequestScopes* scopes;
      const void* key;
      ~Unregister() {
        if (scopes && key) scopes->Unregister(key);
      }
    } unregister{cfg.scopes, key};

    RequestAuditConfig rac;
    if (cfg.policy && cfg.backend) rac = cfg.policy->Evaluate(AttributesOf(ctx));
    if (cfg.metrics && cfg.policy && cfg.backend) cfg.metrics->levels.With({std::string(LevelName(rac.level))})->Inc();
    if (rac.level == Level::kNone) {
      http::ResponseWriter* inner = ctx.writer;
      AuditResponseWriter w(inner, &scope, false, 0, nullptr);
      ctx.writer = &w;
      co_await next(ctx);
      ctx.writer = inner;
      co_return;
    }

    Auditing au{cfg, rac, {}};
    Event& ev = au.ev;
    ev.level = rac.level;
    FillRequestFields(ev, ctx);
    au.Emit(Stage::kRequestReceived);

    const bool long_running = http::IsLongRunning(ctx.info);
    http::ResponseWriter* inner = ctx.writer;
    AuditResponseWriter w(inner, &scope, rac.level >= Level::kRequestResponse, cfg.max_response_capture_bytes,
                          [&au, long_running](int code) {
                            if (!long_running) return;
                            json::object st;
                            st["metadata"] = json::object();
                            st["code"] = code;
                            au.ev.response_status = st;
                            au.Emit(Stage::kResponseStarted);
                          });
    ctx.writer = &w;
    bool panicked = false;
    std::string panic_text;
    std::exception_ptr panic;
    try {
      co_await next(ctx);
    } catch (const std::exception& e) {
      panicked = true;
      panic_text = e.what();
      panic = std::current_exception();
    } catch (...) {
      panicked = true;
      panic_text = "unknown exception";
      panic = std::current_exception();
    }
    ctx.writer = inner;

    if (ctx.impersonator) {
      ev.user = *ctx.impersonator;
      ev.impersonated_user = ctx.user ? std::optional<UserInfo>(*ctx.user) : std::nullopt;
    }
    if (!ctx.authorization_decision.empty()) {
      ev.annotations["authorization.k8s.io/decision"] = ctx.authorization_decision;
      ev.annotations["authorization.k8s.io/reason"] = ctx.authorization_reason;
    }
    for (const auto& [k, a] : scope.annotations()) {
      if (rac.level >= a.level) ev.annotations[k] = a.value;
    }

    // The request body: names the object for create/update; recorded at Request level and above.
    const std::string& verb = ctx.info.verb;
    if (ctx.info.is_resource_request && (verb == "create" || verb == "update" || verb == "patch") &&
        !ctx.request.body.empty()) {
      auto body = DecodeBody(cfg, ctx.request.headers.Get("Content-Type"), ctx.request.body);
      if (body && verb != "patch" && body->is_object() && ev.object_ref) {
        if (const auto* md = body->as_object().if_contains("metadata"); md && md->is_object()) {
          const json::object& m = md->as_object();
          if (ev.object_ref->namespace_.empty()) ev.object_ref->namespace_ = StringOf(m, "namespace");
          if (ev.object_ref->name.empty()) ev.object_ref->name = StringOf(m, "name");
          if (ev.object_ref->uid.empty()) ev.object_ref->uid = StringOf(m, "uid");
          if (ev.object_ref->resource_version.empty()) ev.object_ref->resource_version = StringOf(m, "resourceVersion");
        }
      }
      if (body && rac.level >= Level::kRequest) {
        if (rac.omit_managed_fields) DropManagedFields(*body);
        ev.request_object = std::move(*body);
      }
    }

    if (panicked) {
      json::object st;
      st["metadata"] = json::object();
      st["status"] = "Failure";
      st["message"] = "APIServer panic'd: " + panic_text;
      st["reason"] = "InternalError";
      st["code"] = 500;
      ev.response_status = st;
      au.Emit(Stage::kPanic);
      std::rethrow_exception(panic);
    }

    int code = w.recorded_status() ? w.recorded_status() : inner->status();
    std::optional<json::value> response;
    if (!w.body().empty() && w.body_complete()) response = DecodeBody(cfg, w.content_type(), w.body());
    if (code == 0) {
      json::object st;
      st["metadata"] = json::object();
      st["status"] = "Success";
      st["message"] = "Connection closed early";
      st["code"] = 200;
      ev.response_status = st;
    } else {
      ev.response_status = ResponseStatusOf(code, response);
    }
    if (rac.level >= Level::kRequestResponse && response && !long_running) {
      if (rac.omit_managed_fields) DropManagedFields(*response);
      ev.response_object = std::move(*response);
    }
    au.Emit(Stage::kResponseComplete);
  };
}

}  // namespace capstan::audit
