// aggregator/aggregator.h: serving APIServices backed by a service (kube-aggregator's role inside
// kube-apiserver), first version.
//
// Handle() sees every request under /apis before the local API handler:
//   - /apis: the group list (legacy APIGroupList or aggregated APIGroupDiscoveryList) with the local
//     groups and the groups of available remote APIServices, ordered by groupPriorityMinimum and
//     versionPriority as kube orders them; a remote version's aggregated entry comes from the last
//     discovery document fetched from its server (marked Stale when the last fetch failed);
//   - /apis/<group> for a group only remote APIServices serve: its APIGroup, built locally;
//   - /apis/<group>/<version>[/...] for a group/version the local registry does not serve and whose
//     APIService has spec.service: proxied over HTTPS to an endpoint of the service (resolved as the
//     admission webhooks resolve services), the server verified with spec.caBundle for the name
//     <service>.<namespace>.svc (or not, with insecureSkipTLSVerify), presenting the front-proxy
//     client certificate and the caller's identity as X-Remote-User / X-Remote-Group /
//     X-Remote-Extra-*; the client's Authorization and impersonation headers are dropped. An APIService
//     that is not Available, or whose service has no endpoint, answers kube's 503 "service unavailable".
//   Anything else returns false (the local handler answers).
// The availability loop (Start/Stop) sets each remote APIService's Available condition as kube's
// available controller does (Passed, ServiceNotFound, ServicePortError, EndpointsNotFound,
// MissingEndpoints, FailedDiscoveryCheck), probing GET /apis/<group>/<version> on its server: fully
// every `resync`, and within `poll` when an APIService, its Service or its Endpoints change. Each full
// pass also publishes the extension-apiserver-authentication ConfigMap (aggregator/authentication_info.h).
//
// A watch is passed on as it arrives (server/http/upstream.h); other responses are read whole first.
// /apis lists the aggregator's own group (apiregistration.k8s.io) first, as kube does; a local group
// without an APIService (a CRD's) ranks as kube's CRD registration (1000/100).
// Not yet: merging the remote servers' OpenAPI documents, proxying upgrade requests (SPDY/WebSocket),
// remote versions of a group that is also served locally (only the local versions are listed).
// Thread-safety: Handle may run on any I/O thread concurrently; the loop runs on its own thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "aggregator/api_service_info.h"
#include "aggregator/authentication_info.h"
#include "endpoints/api_registry.h"
#include "server/http/http_client.h"
#include "server/http/request_context.h"
#include "util/metrics.h"

namespace capstan::aggregator {

// Where to connect for a service port: "host:port" of an endpoint, or an error.
using ServiceResolver =
    std::function<Task<StatusOr<std::string>>(const std::string& ns, const std::string& name, int port)>;

struct AggregatorOptions {
  http::HttpClientFactory* http = nullptr;
  ServiceResolver resolve_service;
  std::string proxy_client_cert_pem, proxy_client_key_pem;  // the front-proxy client certificate
  std::chrono::milliseconds resync{30000};                  // kube: every 30 s
  std::chrono::milliseconds poll{1000};                     // change detection
  std::chrono::seconds probe_timeout{5};
  // Published as kube-system/extension-apiserver-authentication on every full pass (when set).
  std::optional<AuthenticationInfo> authentication_info;
  // aggregator_unavailable_apiservice{name} and aggregator_unavailable_apiservice_total{name,reason}.
  MetricsRegistry* metrics = nullptr;
};

class Aggregator {
 public:
  Aggregator(const endpoints::ApiRegistry& apis, AggregatorOptions opts);
  ~Aggregator();
  Aggregator(const Aggregator&) = delete;
  Aggregator& operator=(const Aggregator&) = delete;

  // True when the request was answered here.
  Task<bool> Handle(http::RequestContext& ctx);

  void Start();
  void Stop();
  // One availability pass over every remote APIService (the loop's body; tests call it directly).
  Task<void> SyncAll(bool force);

 private:
  struct Discovery {
    boost::json::object resource_list;
    bool stale = false;
    bool have = false;
  };
  struct ProbeResult {
    std::string status;  // "True" / "False"
    std::string reason, message;
  };

  Task<std::vector<ApiServiceInfo>> ListApiServices();
  Task<std::optional<ApiServiceInfo>> GetApiService(const std::string& name);
  Task<void> Proxy(http::RequestContext& ctx, const ApiServiceInfo& svc);
  Task<void> ServeGroupList(http::RequestContext& ctx, const std::string& agg_version);
  Task<bool> ServeGroup(http::RequestContext& ctx, const std::string& group);
  Task<ProbeResult> Check(const ApiServiceInfo& svc);
  Task<void> WriteCondition(const std::string& name, const ProbeResult& r);
  Task<std::string> Fingerprint(const ApiServiceInfo& svc);
  StatusOr<http::HttpClient*> ClientFor(const ApiServiceInfo& svc);
  Discovery DiscoveryOf(const std::string& name);

  const endpoints::ApiRegistry& apis_;
  AggregatorOptions opts_;

  std::mutex mu_;
  std::map<std::tuple<std::string, std::string, bool>, std::unique_ptr<http::HttpClient>> clients_;  // guarded
  std::map<std::string, Discovery> discovery_;                                                     // guarded
  std::map<std::string, std::string> fingerprints_;  // loop thread only
  GaugeVec* unavailable_ = nullptr;
  CounterVec* unavailable_total_ = nullptr;

  std::mutex loop_mu_;
  std::condition_variable loop_cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace capstan::aggregator
