// The HTTP half of kube's WithAudit and WithFailedAuthenticationAudit: fills one request's audit
// event from the request and its response, at kube's stages, on top of audit/recorder.h.
#include <boost/json.hpp>
#include <cctype>

#include "apimachinery/json_parse.h"
#include "apimachinery/yaml.h"
#include "audit/recorder.h"
#include "server/filters/filters.h"
#include "server/http/forwarding_writer.h"
#include "server/http/responses.h"
#include "server/http/request_info.h"
#include "util/strings.h"

namespace capstan::server {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

constexpr size_t kMaxUserAgent = 1024;

// Records the response's code and content type, and its body when asked (always for errors and
// Status bodies); calls on_start once, when the response starts.
class AuditResponseWriter : public http::ForwardingWriter {
 public:
  AuditResponseWriter(http::ResponseWriter& inner, bool capture_all, size_t max_capture,
                      std::function<void(int)> on_start)
      : ForwardingWriter(inner), capture_all_(capture_all), max_capture_(max_capture), on_start_(std::move(on_start)) {}

  Task<bool> Respond(http::HttpResponse resp) override {
    capture_this_ = capture_all_ || resp.status >= 300 || IsStatusBody(resp.body);
    co_return co_await ForwardingWriter::Respond(std::move(resp));
  }
  int status() const override { return status_ ? status_ : ForwardingWriter::status(); }

  int recorded_status() const { return status_; }
  const std::string& body() const { return body_; }
  bool body_complete() const { return !overflow_; }
  const std::string& content_type() const { return content_type_; }

 private:
  static bool IsStatusBody(const std::string& b) {
    return b.size() < 64 * 1024 && b.find("\"kind\":\"Status\"") != std::string::npos;
  }
  void BeforeStart(int status, http::Headers& headers) override {
    status_ = status;
    content_type_ = std::string(headers.Get("Content-Type"));
    if (on_start_) on_start_(status);
  }
  void OnData(const std::string& data) override {
    if (!(capture_all_ || capture_this_) || overflow_) return;
    if (body_.size() + data.size() > max_capture_) {
      overflow_ = true;
      body_.clear();
      return;
    }
    body_ += data;
  }

  bool capture_all_;
  size_t max_capture_;
  std::function<void(int)> on_start_;
  bool capture_this_ = false;  // the whole response of Respond (errors, Status bodies)
  int status_ = 0;
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

std::optional<json::value> DecodeBody(const AuditConfig& cfg, std::string_view content_type, std::string_view body) {
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

std::string StringOf(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

// The fields every event of a request has, from what the request carries.
void FillRequestFields(audit::Event& ev, const http::RequestContext& ctx) {
  ev.audit_id = ctx.audit_id;
  ev.request_uri = ctx.request.target;
  ev.verb = ctx.info.verb;
  if (ctx.user) ev.user = *ctx.user;
  ev.source_ips = audit::SourceIps(ctx.request.headers.Get("X-Forwarded-For"), ctx.request.headers.Get("X-Real-Ip"),
                                   ctx.request.remote_addr);
  ev.user_agent = std::string(ctx.request.headers.Get("User-Agent"));
  if (ev.user_agent.size() > kMaxUserAgent) ev.user_agent = ev.user_agent.substr(0, kMaxUserAgent) + "...TRUNCATED";
  if (ctx.info.is_resource_request) {
    audit::ObjectReference ref;
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

// The request body: names the object for create/update; recorded at Request level and above.
void RecordRequestBody(audit::Recorder& rec, const AuditConfig& cfg, const http::RequestContext& ctx) {
  const std::string& verb = ctx.info.verb;
  if (!ctx.info.is_resource_request || (verb != "create" && verb != "update" && verb != "patch") ||
      ctx.request.body.empty()) {
    return;
  }
  audit::Event& ev = rec.event();
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
  if (body && rec.level() >= audit::Level::kRequest) {
    if (rec.config().omit_managed_fields) audit::DropManagedFields(*body);
    ev.request_object = std::move(*body);
  }
}

// responsewriters' sanitizer: kube escapes these in its plain-text errors.
std::string SanitizeHtml(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '&') {
      out += "&amp;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else {
      out.push_back(c);
    }
  }
  return out;
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

audit::RequestAttributes AuditAttributesOf(const http::RequestContext& ctx) {
  audit::RequestAttributes a;
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

Handler WithFailedAuthenticationAudit(Handler failed, AuditConfig cfg) {
  if (!cfg.sink.enabled()) return failed;
  return [failed = std::move(failed), cfg = std::move(cfg)](http::RequestContext& ctx) -> Task<void> {
    audit::Recorder rec(cfg.sink, cfg.sink.Evaluate(AuditAttributesOf(ctx)));
    if (rec.level() == audit::Level::kNone) {
      co_await failed(ctx);
      co_return;
    }
    FillRequestFields(rec.event(), ctx);
    const std::string message = FailedAuthenticationMessage(ctx.request);
    AuditResponseWriter w(*ctx.writer, false, 0, [&rec, &message](int code) {
      rec.event().response_status = audit::CodeStatus(code, message);
      rec.EmitNoWait(audit::Stage::kResponseStarted);
    });
    http::ScopedWriter installed(ctx, w);
    co_await failed(ctx);
  };
}

Handler WithAuditEvents(Handler next, AuditConfig cfg) {
  if (!cfg.sink.enabled()) return next;
  return [next = std::move(next), cfg = std::move(cfg)](http::RequestContext& ctx) -> Task<void> {
    audit::Recorder rec(cfg.sink, cfg.sink.Evaluate(AuditAttributesOf(ctx)));
    if (rec.level() == audit::Level::kNone) {
      co_await next(ctx);
      co_return;
    }
    audit::Event& ev = rec.event();
    FillRequestFields(ev, ctx);
    if (!co_await rec.Emit(audit::Stage::kRequestReceived)) {
      // blocking-strict: kube answers InternalError rather than serve a request it could not audit.
      if (cfg.sink.metrics) cfg.sink.metrics->rejected.Inc();
      co_await http::RespondText(
          ctx, SanitizeHtml("Internal Server Error: " + GoQuote(ctx.request.target) + ": failed to store audit event") + "\n",
          500);
      co_return;
    }

    const bool long_running = ctx.info.long_running;
    AuditResponseWriter w(*ctx.writer, rec.level() >= audit::Level::kRequestResponse, cfg.max_response_capture_bytes,
                          [&rec, long_running](int code) {
                            if (!long_running) return;
                            rec.event().response_status = audit::CodeStatus(code);
                            rec.EmitNoWait(audit::Stage::kResponseStarted);
                          });
    // kube records the Panic stage and lets the panic go on to the recovery filter: so does this.
    std::exception_ptr panic;
    {
      http::ScopedWriter installed(ctx, w);
      try {
        co_await next(ctx);
      } catch (...) {
        panic = std::current_exception();
      }
    }

    if (ctx.impersonator) {
      ev.user = *ctx.impersonator;
      ev.impersonated_user = ctx.user ? std::optional<UserInfo>(*ctx.user) : std::nullopt;
    }
    if (!ctx.authorization_decision.empty()) {
      ev.annotations["authorization.k8s.io/decision"] = ctx.authorization_decision;
      ev.annotations["authorization.k8s.io/reason"] = ctx.authorization_reason;
    }
    for (const auto& [k, a] : ctx.scope.annotations()) {
      if (rec.level() >= a.level) ev.annotations[k] = a.value;
    }
    RecordRequestBody(rec, cfg, ctx);

    if (panic) {
      std::string what = "unknown exception";
      try {
        std::rethrow_exception(panic);
      } catch (const std::exception& e) {
        what = e.what();
      } catch (...) {
      }
      ev.response_status = audit::PanicStatus(what);
      co_await rec.Emit(audit::Stage::kPanic);
      std::rethrow_exception(panic);
    }

    int code = w.status();
    std::optional<json::value> response;
    if (!w.body().empty() && w.body_complete()) response = DecodeBody(cfg, w.content_type(), w.body());
    ev.response_status = code == 0 ? audit::ConnectionClosedEarlyStatus() : audit::ResponseStatusOf(code, response);
    if (rec.level() >= audit::Level::kRequestResponse && response && !long_running) {
      if (rec.config().omit_managed_fields) audit::DropManagedFields(*response);
      ev.response_object = std::move(*response);
    }
    co_await rec.Emit(audit::Stage::kResponseComplete);
  };
}

}  // namespace capstan::server
