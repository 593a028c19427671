#include "aggregator/aggregator.h"

#include <boost/json.hpp>
#include <cstdlib>
#include <set>

#include "aggregator/json_helpers.h"
#include "endpoints/discovery.h"
#include "registry/rest.h"
#include "server/http/upstream.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::aggregator {

namespace json = boost::json;
namespace am = capstan::apimachinery;
using namespace detail;

Aggregator::Aggregator(const endpoints::ApiRegistry& apis, AggregatorOptions opts)
    : apis_(apis), opts_(std::move(opts)) {
  if (opts_.metrics) {
    unavailable_ = &opts_.metrics->NewGaugeVec(
        "aggregator_unavailable_apiservice",
        "Gauge of APIServices which are marked as unavailable broken down by APIService name.", {"name"});
    unavailable_total_ = &opts_.metrics->NewCounterVec(
        "aggregator_unavailable_apiservice_total",
        "Counter of APIServices which are marked as unavailable broken down by APIService name and reason.",
        {"name", "reason"});
  }
}

Aggregator::~Aggregator() { Stop(); }

void Aggregator::Start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] {
    auto last_full = std::chrono::steady_clock::now() - opts_.resync;
    while (true) {
      auto now = std::chrono::steady_clock::now();
      bool force = now - last_full >= opts_.resync;
      if (force) last_full = now;
      try {
        SyncWait(SyncAll(force));
      } catch (const std::exception& e) {  // a bug must not take the server down with this thread
        LogError("aggregator: availability pass failed", {{"error", e.what()}});
      }
      std::unique_lock lock(loop_mu_);
      loop_cv_.wait_for(lock, opts_.poll, [this] { return stop_; });
      if (stop_) return;
    }
  });
}

void Aggregator::Stop() {
  {
    std::lock_guard lock(loop_mu_);
    stop_ = true;
  }
  loop_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Task<std::vector<ApiServiceInfo>> Aggregator::ListApiServices() {
  std::vector<ApiServiceInfo> out;
  auto snap = apis_.Snapshot();
  const auto* r = snap->FindResource(kGroup, "v1", "apiservices", "");
  if (!r || !r->lister) co_return out;
  registry::Context ctx;
  auto list = co_await r->lister->List(ctx, {});
  if (!list.ok()) co_return out;
  for (const auto& item : list->items) {
    if (auto info = ParseApiService(item)) out.push_back(std::move(*info));
  }
  co_return out;
}

Task<std::optional<ApiServiceInfo>> Aggregator::GetApiService(const std::string& name) {
  auto snap = apis_.Snapshot();
  const auto* r = snap->FindResource(kGroup, "v1", "apiservices", "");
  if (!r || !r->getter) co_return std::nullopt;
  registry::Context ctx;
  auto obj = co_await r->getter->Get(ctx, name, {});
  if (!obj.ok()) co_return std::nullopt;
  co_return ParseApiService(*obj);
}

StatusOr<http::HttpClient*> Aggregator::ClientFor(const ApiServiceInfo& svc) {
  std::string server_name = svc.service_name + "." + svc.service_namespace + ".svc";
  std::lock_guard lock(mu_);
  auto key = std::make_tuple(svc.ca_pem, server_name, svc.insecure_skip_tls_verify);
  auto it = clients_.find(key);
  if (it != clients_.end()) return it->second.get();
  if (!opts_.http) return Status(503, "ServiceUnavailable", "no HTTP client for aggregated APIs");
  http::ClientTlsConfig tls;
  tls.ca_pem = svc.ca_pem;
  tls.server_name = server_name;
  tls.insecure_skip_verify = svc.insecure_skip_tls_verify;
  tls.client_cert_pem = opts_.proxy_client_cert_pem;
  tls.client_key_pem = opts_.proxy_client_key_pem;
  auto c = opts_.http->NewClient(tls);
  if (!c.ok()) return c.status();
  http::HttpClient* raw = c->get();
  clients_.emplace(key, std::move(*c));
  return raw;
}

Aggregator::Discovery Aggregator::DiscoveryOf(const std::string& name) {
  std::lock_guard lock(mu_);
  auto it = discovery_.find(name);
  return it == discovery_.end() ? Discovery{} : it->second;
}

Task<bool> Aggregator::Handle(http::RequestContext& ctx) {
  std::string path = ctx.request.path;
  if (path != "/apis" && !path.starts_with("/apis/")) co_return false;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  std::vector<std::string> parts = Split(std::string_view(path).substr(1), '/');
  const bool read = ctx.request.method == "GET" || ctx.request.method == "HEAD";
  auto snap = apis_.Snapshot();
  if (parts.size() == 1) {
    if (!read) co_return false;
    co_await ServeGroupList(ctx, endpoints::AggregatedDiscoveryVersion(ctx.request.headers.Get("Accept")));
    co_return true;
  }
  const std::string& group = parts[1];
  for (const auto& g : snap->groups) {
    if (g.name == group && parts.size() == 2) co_return false;
  }
  if (parts.size() == 2) {
    if (!read) co_return false;
    co_return co_await ServeGroup(ctx, group);
  }
  const std::string& version = parts[2];
  if (snap->Find(group, version)) co_return false;
  auto svc = co_await GetApiService(version + "." + group);
  if (!svc || !svc->remote || svc->group != group || svc->version != version) co_return false;
  co_await Proxy(ctx, *svc);
  co_return true;
}

Task<void> Aggregator::Proxy(http::RequestContext& ctx, const ApiServiceInfo& svc) {
  if (!ctx.user) {
    co_await HttpError(ctx, "missing user", 500);
    co_return;
  }
  if (!svc.available || !opts_.resolve_service) {
    co_await HttpError(ctx, "service unavailable", 503);
    co_return;
  }
  auto target = co_await opts_.resolve_service(svc.service_namespace, svc.service_name, svc.port);
  if (!target.ok()) {
    LogWarn("aggregator: cannot resolve service", {{"apiservice", svc.name}, {"error", target.status().message()}});
    co_await HttpError(ctx, "service unavailable", 503);
    co_return;
  }
  auto client = ClientFor(svc);
  if (!client.ok()) {
    co_await HttpError(ctx, client.status().message(), 503);
    co_return;
  }
  http::ClientRequest req;
  req.method = ctx.request.method;
  std::string target_path = ctx.request.target.empty() ? ctx.request.path : ctx.request.target;
  req.url = "https://" + *target + target_path;
  req.headers = ctx.request.headers;
  std::string prior(ctx.request.headers.Get("X-Forwarded-For"));
  SetProxyHeaders(req.headers, *ctx.user);
  if (std::string xff = http::ForwardedFor(prior, ctx.request.remote_addr); !xff.empty()) req.headers.Set("X-Forwarded-For", xff);
  req.body = ctx.request.body;
  const bool watch = ctx.info.verb == "watch";
  // A watch lasts what the client asked (timeoutSeconds, plus a little for the server to end it), else
  // kube's default --min-request-timeout (1800 s); the upstream exchange is bounded by it.
  std::chrono::seconds watch_for(1800);
  if (auto t = ctx.request.query.Get("timeoutSeconds")) {
    char* end = nullptr;
    long v = std::strtol(t->c_str(), &end, 10);
    if (end && *end == '\0' && v > 0 && v < 24 * 3600) watch_for = std::chrono::seconds(v + 5);
  }
  req.timeout = watch ? std::chrono::milliseconds(watch_for) : std::chrono::milliseconds(60000);
  req.max_response_bytes = 256u * 1024 * 1024;
  if (auto* streaming = dynamic_cast<http::StreamingHttpClient*>(*client); watch && streaming) {
    // A watch goes on to the client as it arrives.
    auto up = co_await http::UpstreamStream::Open(*streaming, std::move(req));
    if (!up.ok()) {
      LogWarn("aggregator: error while proxying request", {{"apiservice", svc.name}, {"error", up.status().message()}});
      co_await HttpError(ctx, up.status().message(), 503);
      co_return;
    }
    http::Headers headers;
    for (const auto& f : (*up)->head().headers.fields()) {
      if (!http::IsHopByHop(f.name)) headers.Add(f.name, f.value);
    }
    Status end = co_await http::RelayBody(ctx, **up, (*up)->head().status, std::move(headers));
    if (!end.ok()) LogInfo("aggregator: proxied stream ended", {{"apiservice", svc.name}, {"error", end.message()}});
    co_return;
  }
  auto resp = co_await (*client)->Do(std::move(req));
  if (!resp.ok()) {
    LogWarn("aggregator: error while proxying request", {{"apiservice", svc.name}, {"error", resp.status().message()}});
    co_await HttpError(ctx, resp.status().message(), 503);
    co_return;
  }
  http::HttpResponse out;
  out.status = resp->status;
  for (const auto& f : resp->headers.fields()) {
    if (!http::IsHopByHop(f.name)) out.headers.Add(f.name, f.value);
  }
  out.body = std::move(resp->body);
  co_await ctx.writer->Respond(std::move(out));
}
}  // namespace capstan::aggregator
