#include "endpoints/connect_proxy.h"

#include "endpoints/proxy_html.h"

#include <algorithm>
#include <limits>

#include "apimachinery/errors.h"
#include "endpoints/stream_translator.h"
#include "endpoints/stream_tunnel.h"
#include "endpoints/upgrade_proxy.h"
#include "endpoints/websocket_stream.h"
#include "server/http/paced_stream.h"
#include "server/http/upstream.h"
#include "server/http/websocket.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::endpoints {

namespace am = capstan::apimachinery;

namespace {

using registry::ConnectLocation;
using registry::ConnectTransport;

// kube reads at most this much of an upstream error body (GenericHttpResponseChecker).
constexpr size_t kMaxErrorBody = 50000;
// Streams and proxied exchanges are long-running: bounded only by the client going away.
constexpr std::chrono::hours kStreamLimit{24};

// Go's path.Clean.
std::string CleanPath(std::string_view p) {
  if (p.empty()) return ".";
  bool rooted = p.front() == '/';
  std::vector<std::string> out;
  for (const auto& seg : Split(p, '/')) {
    if (seg.empty() || seg == ".") continue;
    if (seg == "..") {
      if (!out.empty() && out.back() != "..") {
        out.pop_back();
      } else if (!rooted) {
        out.push_back("..");
      }
      continue;
    }
    out.push_back(seg);
  }
  std::string joined = Join(out, "/");
  if (rooted) return "/" + joined;
  return joined.empty() ? "." : joined;
}

// Go's path.Join of two elements.
std::string JoinPath(std::string_view a, std::string_view b) {
  if (a.empty() && b.empty()) return "";
  if (a.empty()) return CleanPath(b);
  if (b.empty()) return CleanPath(a);
  return CleanPath(std::string(a) + "/" + std::string(b));
}

bool IsCorsHeader(std::string_view name) {
  return EqualsIgnoreCase(name, "Access-Control-Allow-Credentials") || EqualsIgnoreCase(name, "Access-Control-Allow-Headers") ||
         EqualsIgnoreCase(name, "Access-Control-Allow-Methods") || EqualsIgnoreCase(name, "Access-Control-Allow-Origin");
}

// kube's LocationStreamer (pods/log) as the endpoints' StreamObject writes it.
Task<void> Stream(Scope& s, const ConnectLocation& loc, http::StreamingHttpClient& client, std::chrono::milliseconds head) {
  http::ClientRequest req;
  req.method = "GET";
  req.url = loc.base + EscapeUrlPath(loc.path);
  if (std::string q = EncodeQuery(loc.query); !q.empty()) req.url += "?" + q;
  req.timeout = kStreamLimit;
  req.head_timeout = head;
  req.max_response_bytes = std::numeric_limits<size_t>::max() / 2;
  const StreamProxyMetrics& metrics = s.limits().connect->stream_metrics();
  metrics.PodLogs(loc.transport == registry::ConnectTransport::kKubeletInsecure);
  auto up = co_await http::UpstreamStream::Open(client, req);
  if (!up.ok()) {
    // kube's LocationStreamer counts an error naming x509 as a failed verification.
    if (up.status().message().find("x509:") != std::string::npos) metrics.PodLogsTlsFailure();
    // Not an API status in kube: a 500 with the transport's text and no reason.
    co_await s.WriteStatus(Status(500, "", up.status().message()));
    co_return;
  }
  int code = (*up)->head().status;
  if (code >= 300 && code < 400 && code != 304 && code != 305 && code != 306 && (*up)->head().headers.Has("Location")) {
    std::string target((*up)->head().headers.Get("Location"));
    if (target.starts_with("/")) target = loc.base + target;
    co_await s.WriteStatus(Status(500, "", "Get " + GoQuote(target) + ": redirects forbidden"));
    co_return;
  }
  if (code < 200 || code > 206) {
    std::string body = co_await (*up)->ReadUpTo(kMaxErrorBody);
    if (code == 500) {
      co_await s.WriteStatus(am::NewInternalError(body));
    } else if (code == 400) {
      co_await s.WriteStatus(am::NewBadRequest(body));
    } else {
      co_await s.WriteStatus(am::NewGenericServerResponse(code, loc.resource, loc.name, body));
    }
    co_return;
  }
  if (http::websocket::IsUpgradeRequest(s.http().request)) {
    co_await StreamAsWebSocket(s, **up);
    co_return;
  }
  http::Headers headers;
  headers.Set("Content-Type", loc.content_type);
  Status end = co_await http::RelayBody(s.http(), **up, 200, std::move(headers));
  if (!end.ok()) LogInfo("stream from the kubelet ended", {{"url", req.url}, {"error", end.message()}});
}

// Whether kube's proxy transport rewrites this response: text/html in an encoding it reads.
bool IsRewritableHtml(const http::Headers& headers) {
  std::string_view type = headers.Get("Content-Type");
  type = TrimSpace(type.substr(0, type.find(';')));
  if (type != "text/html") return false;
  std::string_view encoding = headers.Get("Content-Encoding");
  return encoding.empty() || encoding == "gzip" || encoding == "deflate";
}

// Reads the whole page, rewrites its links and answers it with its new length.
Task<void> RelayRewrittenHtml(Scope& s, http::UpstreamStream& up, http::Headers headers,
                              const std::function<std::string(std::string_view)>& rewrite) {
  constexpr size_t kMaxPage = 64 << 20;
  std::string body = co_await up.ReadUpTo(kMaxPage + 1);
  const std::string encoding(headers.Get("Content-Encoding"));
  Status failed = up.end();
  if (failed.ok() && body.size() > kMaxPage) failed = Status(502, "InternalError", "the page is too large to rewrite");
  std::string page;
  if (failed.ok() && !encoding.empty()) {
    auto decoded = DecodeContent(body, encoding, kMaxPage);
    if (decoded.ok()) {
      page = std::move(*decoded);
    } else {
      failed = decoded.status();
    }
  } else {
    page = std::move(body);
  }
  if (!failed.ok()) {
    LogError("Failed to rewrite URLs", {{"error", failed.message()}});
    co_await s.WriteStatus(am::NewInternalError(failed.message()));
    co_return;
  }
  std::string rewritten = RewriteHtmlLinks(page, rewrite);
  http::HttpResponse resp;
  resp.status = up.head().status;
  headers.Remove("Content-Length");
  resp.headers = std::move(headers);
  resp.body = encoding.empty() ? std::move(rewritten) : EncodeContent(rewritten, encoding);
  co_await s.http().writer->Respond(std::move(resp));
}

// kube's UpgradeAwareHandler for a request that is not an upgrade.
Task<void> Proxy(Scope& s, const ConnectLocation& loc, http::StreamingHttpClient& client, std::chrono::milliseconds head) {
  const http::HttpRequest& in = s.http().request;
  std::string path = loc.path;
  if (!path.ends_with("/") && in.path.ends_with("/")) path += "/";
  if (path.empty() && (in.method == "GET" || in.method == "HEAD")) {
    http::HttpResponse redirect;
    redirect.status = 301;
    redirect.headers.Set("Location", in.path + "/" + (in.raw_query.empty() ? "" : "?" + in.raw_query));
    co_await s.http().writer->Respond(std::move(redirect));
    co_return;
  }
  // The part of the request's path before the proxied path: where the backend's paths live for the client.
  std::string suffix = path;
  if (in.path.ends_with("/") && !suffix.ends_with("/")) suffix += "/";
  std::string prepend = in.path.ends_with(suffix) ? in.path.substr(0, in.path.size() - suffix.size()) : in.path;
  std::string escaped = EscapeUrlPath(path);

  http::ClientRequest req;
  req.method = in.method;
  req.url = loc.base + escaped + (in.raw_query.empty() ? "" : "?" + in.raw_query);
  for (const auto& f : in.headers.fields()) {
    if (!http::IsHopByHop(f.name)) req.headers.Add(f.name, f.value);
  }
  if (std::string xff = http::ForwardedFor(in.headers.Get("X-Forwarded-For"), in.remote_addr); !xff.empty()) {
    req.headers.Set("X-Forwarded-For", xff);
  }
  std::string forwarded_uri = JoinPath(prepend, escaped);
  if (path.ends_with("/")) forwarded_uri += "/";
  req.headers.Set("X-Forwarded-Uri", forwarded_uri);
  req.body = in.body;
  req.timeout = kStreamLimit;
  req.head_timeout = head;
  req.max_response_bytes = std::numeric_limits<size_t>::max() / 2;
  auto up = co_await http::UpstreamStream::Open(client, std::move(req));
  if (!up.ok()) {
    co_await s.WriteStatus(am::NewServiceUnavailable("error trying to reach service: " + RoundTripError(up.status())));
    co_return;
  }
  const auto backend = http::ParseHttpUrl(loc.base + "/");
  const std::string backend_host = backend ? backend->HostHeader() : "";
  const std::string request_host(in.headers.Get("Host"));
  http::Headers headers;
  bool redirect = false;
  for (const auto& f : (*up)->head().headers.fields()) {
    if (http::IsHopByHop(f.name) || IsCorsHeader(f.name)) continue;
    if (EqualsIgnoreCase(f.name, "Location") && backend) {
      headers.Add(f.name, RewriteProxyRedirect(f.value, backend_host, request_host, prepend));
      redirect = true;
      continue;
    }
    headers.Add(f.name, f.value);
  }
  // kube's proxy transport: an HTML page (not a redirect) gets its links under the proxy path.
  if (!redirect && backend && IsRewritableHtml(headers)) {
    co_await RelayRewrittenHtml(s, **up, std::move(headers), [&](std::string_view url) {
      return RewriteProxyRedirect(url, backend_host, request_host, prepend);
    });
    co_return;
  }
  Status end = co_await http::RelayBody(s.http(), **up, (*up)->head().status, std::move(headers));
  if (!end.ok()) LogInfo("proxied response ended", {{"url", loc.base + escaped}, {"error", end.message()}});
}

}  // namespace

std::string RoundTripError(const Status& st) {
  const std::string& m = st.message();
  size_t q = m.find(" \"");
  if (q != std::string::npos && q < 8) {
    size_t end = m.find("\": ", q + 2);
    if (end != std::string::npos) return m.substr(end + 3);
  }
  return m;
}

std::string EncodeQuery(std::vector<std::pair<std::string, std::string>> query) {
  std::stable_sort(query.begin(), query.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  for (const auto& [k, v] : query) {
    if (!out.empty()) out += "&";
    out += PercentEncode(k) + "=" + PercentEncode(v);
  }
  return out;
}

bool IsUpgradeRequest(const http::HttpRequest& req) { return req.headers.HasToken("Connection", "upgrade"); }

StreamProxyMetrics::StreamProxyMetrics(MetricsRegistry* registry) {
  if (!registry) return;
  translator_ = &registry->NewCounterVec("apiserver_stream_translator_requests_total",
                                         "Total number of requests that were handled by the StreamTranslatorProxy, which "
                                         "processes streaming RemoteCommand/V5",
                                         {"code"});
  tunnel_ = &registry->NewCounterVec("apiserver_stream_tunnel_requests_total",
                                     "Total number of requests that were handled by the StreamTunnelProxy, which processes "
                                     "streaming PortForward/V2",
                                     {"code"});
  pod_logs_usage_ = &registry->NewCounterVec(
      "kube_apiserver_pod_logs_insecure_backend_total",
      "Total number of requests for pods/logs sliced by usage type: enforce_tls, skip_tls_allowed, skip_tls_denied", {"usage"});
  pod_logs_tls_failures_ = &registry->NewCounter("kube_apiserver_pod_logs_backend_tls_failure_total",
                                                 "Total number of requests for pods/logs that failed due to kubelet server TLS "
                                                 "verification");
}

void StreamProxyMetrics::PodLogs(bool skip_tls_verify) const {
  if (pod_logs_usage_) pod_logs_usage_->With({skip_tls_verify ? "skip_tls_allowed" : "enforce_tls"})->Inc();
}

void StreamProxyMetrics::PodLogsTlsFailure() const {
  if (pod_logs_tls_failures_) pod_logs_tls_failures_->Inc();
}

void StreamProxyMetrics::Translated(int code) const {
  if (translator_) translator_->With({std::to_string(code)})->Inc();
}

void StreamProxyMetrics::Tunnelled(int code) const {
  if (tunnel_) tunnel_->With({std::to_string(code)})->Inc();
}

std::unique_ptr<http::ByteStream> ConnectClients::Paced(std::unique_ptr<http::ByteStream> backend) const {
  if (config_.max_bytes_per_sec <= 0 || !backend) return backend;
  return std::make_unique<http::PacedStream>(std::move(backend), config_.max_bytes_per_sec);
}

StatusOr<http::HttpClient*> ConnectClients::Base(ConnectTransport t) {
  std::lock_guard lock(mu_);
  auto it = clients_.find(t);
  if (it == clients_.end()) {
    http::ClientTlsConfig tls;
    if (t != ConnectTransport::kProxy) {
      tls = config_.kubelet;
      // kube verifies the kubelet's certificate only against a configured CA.
      if (tls.ca_pem.empty() || t == ConnectTransport::kKubeletInsecure) {
        tls.ca_pem.clear();
        tls.insecure_skip_verify = true;
      }
    } else {
      tls.insecure_skip_verify = true;
    }
    auto c = factory_.NewClient(tls);
    if (!c.ok()) return c.status();
    it = clients_.emplace(t, std::move(*c)).first;
  }
  return it->second.get();
}

StatusOr<http::StreamingHttpClient*> ConnectClients::Client(ConnectTransport t) {
  auto base = Base(t);
  if (!base.ok()) return base.status();
  auto* streaming = dynamic_cast<http::StreamingHttpClient*>(*base);
  if (!streaming) return Status(500, "InternalError", "the HTTP client cannot stream");
  return streaming;
}

StatusOr<http::UpgradingHttpClient*> ConnectClients::UpgradingClient(ConnectTransport t) {
  auto base = Base(t);
  if (!base.ok()) return base.status();
  auto* upgrading = dynamic_cast<http::UpgradingHttpClient*>(*base);
  if (!upgrading) return Status(500, "InternalError", "the HTTP client cannot upgrade connections");
  return upgrading;
}

std::chrono::milliseconds ConnectClients::HeadTimeout(ConnectTransport t) const {
  return t == ConnectTransport::kProxy ? config_.proxy_timeout : config_.kubelet_timeout;
}

std::string RewriteProxyRedirect(std::string_view location, std::string_view backend_host, std::string_view request_host,
                                 const std::string& path_prepend) {
  // Split scheme://host from the rest.
  std::string_view rest = location;
  std::string_view scheme_host;
  std::string_view host;
  // scheme://host/... and the network-path reference //host/... (Go's url.Parse gives both a host).
  const size_t sep = location.starts_with("//") ? 0 : location.find("://");
  if (sep != std::string_view::npos && (sep == 0 || location.find('/') > sep)) {
    const size_t host_start = sep == 0 ? 2 : sep + 3;
    size_t end = location.find_first_of("/?#", host_start);
    host = location.substr(host_start, end == std::string_view::npos ? std::string_view::npos : end - host_start);
    scheme_host = location.substr(0, end == std::string_view::npos ? location.size() : end);
    rest = end == std::string_view::npos ? std::string_view() : location.substr(end);
  }
  bool different_host = !host.empty() && host != backend_host && host != request_host;
  bool relative = !rest.starts_with("/");
  if (different_host || relative) return std::string(location);
  size_t qpos = rest.find_first_of("?#");
  std::string_view p = rest.substr(0, qpos);
  std::string_view tail = qpos == std::string_view::npos ? std::string_view() : rest.substr(qpos);
  // The proxy's own scheme and host are unknown to a server, so kube drops them (a Location naming
  // the request's host keeps them).
  std::string head = !host.empty() && host == request_host ? std::string(scheme_host) : std::string();
  if (p.starts_with(path_prepend)) return head + std::string(p) + std::string(tail);
  std::string joined = JoinPath(path_prepend, p);
  if (p.ends_with("/") && !joined.ends_with("/")) joined += "/";
  return head + joined + std::string(tail);
}

Task<void> ServeConnectLocation(Scope& s, const ConnectLocation& loc, ConnectClients* clients) {
  if (!clients) {
    co_await s.WriteStatus(am::NewServiceUnavailable("no connection to kubelets or pods is configured"));
    co_return;
  }
  const bool upgrade = IsUpgradeRequest(s.http().request);
  if (loc.mode == ConnectLocation::Mode::kUpgrade && !upgrade) {
    co_await s.WriteStatus(am::NewBadRequest("Upgrade request required"));
    co_return;
  }
  if (upgrade && loc.mode != ConnectLocation::Mode::kStream) {
    auto client = clients->UpgradingClient(loc.transport);
    if (!client.ok()) {
      co_await s.WriteStatus(client.status());
      co_return;
    }
    const auto head = clients->HeadTimeout(loc.transport);
    const auto& req = s.http().request;
    if (loc.translation == ConnectLocation::Translation::kRemoteCommand && WantsStreamTranslation(req)) {
      co_await TranslateRemoteCommand(s, loc, **client, head);
    } else if (loc.translation == ConnectLocation::Translation::kPortForward && WantsTunnel(req)) {
      co_await TunnelPortForward(s, loc, **client, head);
    } else {
      co_await ProxyUpgrade(s, loc, **client, head);
    }
    co_return;
  }
  auto client = clients->Client(loc.transport);
  if (!client.ok()) {
    co_await s.WriteStatus(client.status());
    co_return;
  }
  if (loc.mode == ConnectLocation::Mode::kStream) {
    co_await Stream(s, loc, **client, clients->HeadTimeout(loc.transport));
  } else {
    co_await Proxy(s, loc, **client, clients->HeadTimeout(loc.transport));
  }
}

}  // namespace capstan::endpoints
