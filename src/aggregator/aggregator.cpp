#include "aggregator/aggregator.h"

#include <boost/json.hpp>
#include <set>

#include "apimachinery/errors.h"
#include "apimachinery/json_parse.h"
#include "apimachinery/json_write.h"
#include "apimachinery/time_util.h"
#include "endpoints/discovery.h"
#include "registry/rest.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::aggregator {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

constexpr const char* kGroup = "apiregistration.k8s.io";

std::string Str(const json::object& o, std::string_view k) {
  const json::value* v = o.if_contains(k);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}
const json::object* Obj(const json::object& o, std::string_view k) {
  const json::value* v = o.if_contains(k);
  return v && v->is_object() ? &v->as_object() : nullptr;
}
const json::array* Arr(const json::object& o, std::string_view k) {
  const json::value* v = o.if_contains(k);
  return v && v->is_array() ? &v->as_array() : nullptr;
}
std::string ResourceVersionOf(const json::object& o) {
  const json::object* md = Obj(o, "metadata");
  return md ? Str(*md, "resourceVersion") : std::string();
}

// Go's http.Error: text/plain with a newline, as kube's proxy answers when it cannot proxy.
Task<void> HttpError(http::RequestContext& ctx, const std::string& text, int code) {
  http::HttpResponse resp;
  resp.status = code;
  resp.headers.Set("Content-Type", "text/plain; charset=utf-8");
  resp.headers.Set("X-Content-Type-Options", "nosniff");
  resp.body = text + "\n";
  co_await ctx.writer->Respond(std::move(resp));
}

Task<void> WriteJson(http::RequestContext& ctx, const json::object& o, const std::string& content_type) {
  http::HttpResponse resp;
  resp.headers.Set("Content-Type", content_type);
  resp.body = am::ToJson(o);
  resp.body.push_back('\n');
  co_await ctx.writer->Respond(std::move(resp));
}

std::string Quote(const std::string& s) { return "\"" + s + "\""; }

}  // namespace

Aggregator::Aggregator(const endpoints::ApiRegistry& apis, AggregatorOptions opts)
    : apis_(apis), opts_(std::move(opts)) {}

Aggregator::~Aggregator() { Stop(); }

void Aggregator::Start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] {
    auto last_full = std::chrono::steady_clock::now() - opts_.resync;
    while (true) {
      auto now = std::chrono::steady_clock::now();
      bool force = now - last_full >= opts_.resync;
      if (force) last_full = now;
      SyncWait(SyncAll(force));
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
  SetProxyHeaders(req.headers, *ctx.user);
  req.body = ctx.request.body;
  const bool watch = ctx.info.verb == "watch";
  req.timeout = watch ? std::chrono::milliseconds(std::chrono::minutes(60)) : std::chrono::milliseconds(60000);
  req.max_response_bytes = 256u * 1024 * 1024;
  auto resp = co_await (*client)->Do(std::move(req));
  if (!resp.ok()) {
    LogWarn("aggregator: error while proxying request", {{"apiservice", svc.name}, {"error", resp.status().message()}});
    co_await HttpError(ctx, resp.status().message(), 503);
    co_return;
  }
  http::HttpResponse out;
  out.status = resp->status;
  for (const auto& f : resp->headers.fields()) {
    if (!IsHopByHop(f.name)) out.headers.Add(f.name, f.value);
  }
  out.body = std::move(resp->body);
  co_await ctx.writer->Respond(std::move(out));
}

Task<void> Aggregator::ServeGroupList(http::RequestContext& ctx, const std::string& agg_version) {
  auto snap = apis_.Snapshot();
  std::vector<ApiServiceInfo> services = co_await ListApiServices();
  const bool aggregated = !agg_version.empty();
  // Legacy discovery lists available APIServices only; aggregated discovery lists a remote version
  // whose document was fetched at least once (Stale when the last fetch failed).
  std::vector<ApiServiceInfo> listed;
  for (const auto& s : services) {
    if (s.group.empty()) continue;
    if (!s.remote || s.available) {
      listed.push_back(s);
    } else if (aggregated && DiscoveryOf(s.name).have) {
      listed.push_back(s);
    }
  }
  json::object doc = aggregated ? endpoints::AggregatedDiscoveryJson(*snap, false, agg_version)
                                : endpoints::ApiGroupListJson(*snap);
  const char* key = aggregated ? "items" : "groups";
  std::vector<std::string> local_order;
  std::map<std::string, json::value> local;
  if (const json::array* items = Arr(doc, key)) {
    for (const auto& it : *items) {
      if (!it.is_object()) continue;
      std::string name;
      if (aggregated) {
        if (const json::object* md = Obj(it.as_object(), "metadata")) name = Str(*md, "name");
      } else {
        name = Str(it.as_object(), "name");
      }
      local_order.push_back(name);
      local[name] = it;
    }
  }
  std::map<std::string, const ApiServiceInfo*> by_gv;
  for (const auto& s : listed) by_gv[s.group + "/" + s.version] = &s;
  json::array out;
  for (const auto& g : OrderGroups(listed)) {
    auto lit = local.find(g.group);
    if (lit != local.end()) {
      out.push_back(std::move(lit->second));
      local.erase(lit);
      continue;
    }
    json::array versions;
    for (const auto& v : g.versions) {
      const ApiServiceInfo* s = by_gv[g.group + "/" + v];
      if (!s || !s->remote) continue;
      if (aggregated) {
        Discovery d = DiscoveryOf(s->name);
        if (!d.have) {
          co_await Check(*s);
          d = DiscoveryOf(s->name);
        }
        if (!d.have) continue;
        versions.push_back(VersionDiscoveryFromResourceList(d.resource_list, g.group, v, d.stale));
      } else {
        versions.push_back(json::object{{"groupVersion", g.group + "/" + v}, {"version", v}});
      }
    }
    if (versions.empty()) continue;
    if (aggregated) {
      out.push_back(json::object{{"metadata", json::object{{"name", g.group}, {"creationTimestamp", nullptr}}},
                                 {"versions", std::move(versions)}});
    } else {
      json::value preferred = versions.front();
      out.push_back(json::object{{"name", g.group}, {"versions", std::move(versions)}, {"preferredVersion", preferred}});
    }
  }
  for (const auto& name : local_order) {
    auto lit = local.find(name);
    if (lit != local.end()) out.push_back(std::move(lit->second));
  }
  doc[key] = std::move(out);
  co_await WriteJson(ctx, doc,
                     aggregated ? "application/json;g=apidiscovery.k8s.io;v=" + agg_version + ";as=APIGroupDiscoveryList"
                                : "application/json");
}

Task<bool> Aggregator::ServeGroup(http::RequestContext& ctx, const std::string& group) {
  std::vector<ApiServiceInfo> services = co_await ListApiServices();
  std::vector<ApiServiceInfo> mine;
  for (const auto& s : services) {
    if (s.group == group && s.remote && s.available) mine.push_back(s);
  }
  if (mine.empty()) co_return false;
  auto order = OrderGroups(mine);
  json::array versions;
  for (const auto& v : order.front().versions) versions.push_back(json::object{{"groupVersion", group + "/" + v}, {"version", v}});
  json::value preferred = versions.front();
  json::object o{{"kind", "APIGroup"}, {"apiVersion", "v1"}, {"name", group}, {"versions", std::move(versions)},
                 {"preferredVersion", preferred}};
  co_await WriteJson(ctx, o, "application/json");
  co_return true;
}

Task<Aggregator::ProbeResult> Aggregator::Check(const ApiServiceInfo& svc) {
  auto mark_stale = [&] {
    std::lock_guard lock(mu_);
    auto it = discovery_.find(svc.name);
    if (it != discovery_.end()) it->second.stale = true;
  };
  auto fail = [&](std::string reason, std::string message) {
    mark_stale();
    return ProbeResult{"False", std::move(reason), std::move(message)};
  };
  auto snap = apis_.Snapshot();
  const auto* services = snap->FindResource("", "v1", "services", "");
  const auto* endpoints = snap->FindResource("", "v1", "endpoints", "");
  if (!services || !services->getter || !endpoints || !endpoints->getter) {
    co_return fail("ServiceAccessError", "services are not served");
  }
  registry::Context rctx;
  rctx.namespace_ = svc.service_namespace;
  auto service = co_await services->getter->Get(rctx, svc.service_name, {});
  if (!service.ok()) {
    if (am::IsNotFound(service.status())) {
      co_return fail("ServiceNotFound", "service/" + svc.service_name + " in " + Quote(svc.service_namespace) +
                                            " is not present");
    }
    co_return fail("ServiceAccessError", service.status().message());
  }
  const json::object* spec = Obj(*service, "spec");
  if (!spec || Str(*spec, "type") != "ExternalName") {
    std::string port_name;
    bool found = false;
    if (const json::array* ports = spec ? Arr(*spec, "ports") : nullptr) {
      for (const auto& p : *ports) {
        if (!p.is_object()) continue;
        const json::value* pv = p.as_object().if_contains("port");
        if (pv && pv->is_int64() && pv->as_int64() == svc.port) {
          port_name = Str(p.as_object(), "name");
          found = true;
          break;
        }
      }
    }
    if (!found) {
      co_return fail("ServicePortError", "service/" + svc.service_name + " in " + Quote(svc.service_namespace) +
                                             " is not listening on port " + std::to_string(svc.port));
    }
    auto eps = co_await endpoints->getter->Get(rctx, svc.service_name, {});
    if (!eps.ok()) {
      if (am::IsNotFound(eps.status())) {
        co_return fail("EndpointsNotFound", "cannot find endpoints for service/" + svc.service_name + " in " +
                                                Quote(svc.service_namespace));
      }
      co_return fail("EndpointsAccessError", eps.status().message());
    }
    bool active = false;
    if (const json::array* subsets = Arr(*eps, "subsets")) {
      for (const auto& sub : *subsets) {
        if (!sub.is_object()) continue;
        const json::array* addrs = Arr(sub.as_object(), "addresses");
        if (!addrs || addrs->empty()) continue;
        if (const json::array* ports = Arr(sub.as_object(), "ports")) {
          for (const auto& p : *ports) {
            if (p.is_object() && Str(p.as_object(), "name") == port_name) active = true;
          }
        }
      }
    }
    if (!active) {
      co_return fail("MissingEndpoints", "endpoints for service/" + svc.service_name + " in " +
                                             Quote(svc.service_namespace) + " have no addresses with port name " +
                                             Quote(port_name));
    }
  }
  if (!opts_.resolve_service) co_return fail("FailedDiscoveryCheck", "service resolution is not available");
  auto target = co_await opts_.resolve_service(svc.service_namespace, svc.service_name, svc.port);
  if (!target.ok()) co_return fail("FailedDiscoveryCheck", target.status().message());
  std::string url = "https://" + *target + "/apis/" + svc.group + "/" + svc.version;
  auto client = ClientFor(svc);
  if (!client.ok()) co_return fail("FailedDiscoveryCheck", "failing or missing response from " + url + ": " + client.status().message());
  http::ClientRequest req;
  req.url = url;
  req.headers.Set("Accept", "application/json");
  req.headers.Set("X-Remote-User", "system:kube-aggregator");
  req.headers.Set("X-Remote-Group", "system:masters");
  req.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(opts_.probe_timeout);
  auto resp = co_await (*client)->Do(std::move(req));
  if (!resp.ok()) co_return fail("FailedDiscoveryCheck", "failing or missing response from " + url + ": " + resp.status().message());
  if (resp->status < 200 || resp->status > 299) {
    co_return fail("FailedDiscoveryCheck", "failing or missing response from " + url + ": bad status from " + url +
                                               ": " + std::to_string(resp->status));
  }
  auto parsed = am::ParseJsonValue(resp->body);
  {
    std::lock_guard lock(mu_);
    Discovery& d = discovery_[svc.name];
    if (parsed.ok() && parsed->is_object()) {
      d.resource_list = parsed->as_object();
      d.have = true;
      d.stale = false;
    } else {
      d.stale = true;
    }
  }
  co_return ProbeResult{"True", "Passed", "all checks passed"};
}

Task<void> Aggregator::WriteCondition(const std::string& name, const ProbeResult& r) {
  auto snap = apis_.Snapshot();
  const auto* main = snap->FindResource(kGroup, "v1", "apiservices", "");
  const auto* status = snap->FindResource(kGroup, "v1", "apiservices", "status");
  if (!main || !main->getter || !status || !status->updater) co_return;
  registry::Context ctx;
  auto current = co_await main->getter->Get(ctx, name, {});
  if (!current.ok()) co_return;
  if (const json::object* st = Obj(*current, "status")) {
    if (const json::array* cs = Arr(*st, "conditions")) {
      for (const auto& c : *cs) {
        if (!c.is_object() || Str(c.as_object(), "type") != "Available") continue;
        const json::object& co = c.as_object();
        if (Str(co, "status") == r.status && Str(co, "reason") == r.reason && Str(co, "message") == r.message) co_return;
      }
    }
  }
  registry::Context uctx;
  uctx.subresource = "status";
  uctx.name = name;
  auto outcome = co_await status->updater->Update(
      uctx, name,
      [r](const registry::Object* cur) -> Task<StatusOr<registry::Object>> {
        if (!cur) co_return am::NewNotFound({kGroup, "apiservices"}, "");
        registry::Object obj = *cur;
        json::object& st = obj["status"].is_object() ? obj["status"].as_object() : (obj["status"] = json::object()).as_object();
        json::value& cv = st["conditions"];
        if (!cv.is_array()) cv = json::array();
        json::array& cs = cv.as_array();
        std::string now = am::FormatRfc3339(am::Timestamp::Now());
        json::object cond{{"type", "Available"}, {"status", r.status}, {"lastTransitionTime", now},
                          {"reason", r.reason}, {"message", r.message}};
        bool replaced = false;
        for (auto& c : cs) {
          if (!c.is_object() || Str(c.as_object(), "type") != "Available") continue;
          if (Str(c.as_object(), "status") == r.status) cond["lastTransitionTime"] = c.as_object()["lastTransitionTime"];
          c = cond;
          replaced = true;
        }
        if (!replaced) cs.push_back(cond);
        co_return obj;
      },
      {});
  if (!outcome.ok()) {
    LogWarn("aggregator: cannot update APIService status", {{"apiservice", name}, {"error", outcome.status().message()}});
  } else {
    LogInfo("aggregator: APIService availability", {{"apiservice", name}, {"status", r.status}, {"reason", r.reason}});
  }
}

Task<std::string> Aggregator::Fingerprint(const ApiServiceInfo& svc) {
  auto snap = apis_.Snapshot();
  std::string fp = svc.resource_version;
  registry::Context rctx;
  rctx.namespace_ = svc.service_namespace;
  for (const char* res : {"services", "endpoints"}) {
    const auto* r = snap->FindResource("", "v1", res, "");
    if (!r || !r->getter) continue;
    auto obj = co_await r->getter->Get(rctx, svc.service_name, {});
    fp += "/" + (obj.ok() ? ResourceVersionOf(*obj) : std::string("-"));
  }
  co_return fp;
}

Task<void> Aggregator::SyncAll(bool force) {
  std::vector<ApiServiceInfo> services = co_await ListApiServices();
  std::set<std::string> seen;
  for (const auto& svc : services) {
    if (!svc.remote) continue;
    seen.insert(svc.name);
    std::string fp = co_await Fingerprint(svc);
    auto it = fingerprints_.find(svc.name);
    if (!force && it != fingerprints_.end() && it->second == fp) continue;
    ProbeResult r = co_await Check(svc);
    co_await WriteCondition(svc.name, r);
    // The status write changed the APIService's resourceVersion: fingerprint what is stored now.
    auto now = co_await GetApiService(svc.name);
    fingerprints_[svc.name] = now ? co_await Fingerprint(*now) : fp;
  }
  for (auto it = fingerprints_.begin(); it != fingerprints_.end();) {
    it = seen.count(it->first) ? std::next(it) : fingerprints_.erase(it);
  }
  std::lock_guard lock(mu_);
  for (auto it = discovery_.begin(); it != discovery_.end();) {
    it = seen.count(it->first) ? std::next(it) : discovery_.erase(it);
  }
}

}  // namespace capstan::aggregator
