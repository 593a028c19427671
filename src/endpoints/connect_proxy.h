// endpoints/connect_proxy.h: answers a Connecter's request from the server its ConnectLocation names
// (a kubelet for pods/log and nodes/proxy, a pod or a service endpoint for pods/proxy and
// services/proxy), as kube's LocationStreamer and UpgradeAwareHandler do:
//
// - kStream (pods/log): GET the location; a 2xx body streams to the client as a 200 with the
//   location's Content-Type; an upstream error status becomes an API Status (kube's
//   GenericHttpResponseChecker: 500 and 400 keep the upstream's text, others kube's generic texts
//   naming the resource); a redirect is refused; a transport error is a 500 with Go's error text.
// - kProxy (*/proxy): the client's method, headers (hop-by-hop ones dropped; X-Forwarded-For and
//   X-Forwarded-Uri added), query and body go to the location's path; the response (hop-by-hop and
//   CORS headers dropped, a same-host Location rewritten under the proxy path) streams back as it
//   arrives, except a text/html page (plain, gzip or deflate), which is read whole and answered with
//   its links rewritten under the proxy path (endpoints/proxy_html.h, as kube's proxy transport;
//   pages over 64 MiB are refused with a 500); GET or HEAD with an empty proxy path is kube's 301 to the path with a slash; a
//   transport error is kube's 503 "error trying to reach service: ...". An upgrade request goes to
//   endpoints/upgrade_proxy.h.
// - kUpgrade (exec, attach, portforward): only upgrade requests (else kube's 400 "Upgrade request
//   required"), relayed or translated by endpoints/upgrade_proxy.h.
//
// ConnectClients holds the HTTP clients of the three transports, made on first use from the
// kubelet client configuration (--kubelet-client-certificate/-key; --kubelet-certificate-authority,
// none: the kubelet's certificate is not verified, as kube does), and the stream proxies' metrics.
// Thread-safe.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>

#include "endpoints/scope.h"
#include "registry/rest.h"
#include "server/http/http_stream.h"
#include "util/metrics.h"

namespace capstan::endpoints {

struct ConnectClientsConfig {
  http::ClientTlsConfig kubelet;  // CA (empty: not verified), client certificate and key
  // --kubelet-timeout: dial, TLS handshake and the kubelet's response head must fit in it.
  std::chrono::milliseconds kubelet_timeout{5000};
  // Pods and services (kube's proxy transport: 30 s to dial, 10 s for the TLS handshake).
  std::chrono::milliseconds proxy_timeout{40000};
  // --max-connection-bytes-per-sec: each direction of an upgraded connection to a backend; 0 or
  // less: unlimited.
  int64_t max_bytes_per_sec = 0;
};

// kube's apiserver_stream_translator_requests_total and apiserver_stream_tunnel_requests_total
// (label code): the WebSocket exec and attach requests translated to SPDY, and the WebSocket
// port-forward requests tunnelled, by the HTTP status kube records for each outcome; and its pods/log
// families: kube_apiserver_pod_logs_insecure_backend_total (usage enforce_tls or skip_tls_allowed)
// and kube_apiserver_pod_logs_backend_tls_failure_total (the kubelet's certificate failed to verify).
class StreamProxyMetrics {
 public:
  explicit StreamProxyMetrics(MetricsRegistry* registry);  // null: nothing is recorded
  void Translated(int code) const;
  void Tunnelled(int code) const;
  void PodLogs(bool skip_tls_verify) const;
  void PodLogsTlsFailure() const;

 private:
  CounterVec* translator_ = nullptr;
  CounterVec* tunnel_ = nullptr;
  CounterVec* pod_logs_usage_ = nullptr;
  Counter* pod_logs_tls_failures_ = nullptr;
};

class ConnectClients {
 public:
  ConnectClients(http::HttpClientFactory& factory, ConnectClientsConfig config, MetricsRegistry* metrics = nullptr)
      : factory_(factory), config_(std::move(config)), stream_metrics_(metrics) {}
  // The client for a transport; an unusable TLS configuration is an error Status.
  StatusOr<http::StreamingHttpClient*> Client(registry::ConnectTransport t);
  StatusOr<http::UpgradingHttpClient*> UpgradingClient(registry::ConnectTransport t);
  std::chrono::milliseconds HeadTimeout(registry::ConnectTransport t) const;
  const StreamProxyMetrics& stream_metrics() const { return stream_metrics_; }
  // The backend's side of an upgraded connection, paced to max_bytes_per_sec when that is set.
  std::unique_ptr<http::ByteStream> Paced(std::unique_ptr<http::ByteStream> backend) const;

 private:
  StatusOr<http::HttpClient*> Base(registry::ConnectTransport t);
  http::HttpClientFactory& factory_;
  const ConnectClientsConfig config_;
  const StreamProxyMetrics stream_metrics_;
  std::mutex mu_;
  std::map<registry::ConnectTransport, std::unique_ptr<http::HttpClient>> clients_;  // GUARDED_BY(mu_)
};

// Whether the request asks for a connection upgrade (its Connection header has the token "upgrade",
// kube's httpstream.IsUpgradeRequest).
bool IsUpgradeRequest(const http::HttpRequest& req);

// The message of a client transport error without the client's `Get "url": ` prefix: what a Go
// RoundTripper (rather than http.Client) reports.
std::string RoundTripError(const Status& st);

// A query as Go's url.Values.Encode writes it: keys sorted (stable), percent-encoded.
std::string EncodeQuery(std::vector<std::pair<std::string, std::string>> query);

// Answers the request from `loc` (see above); clients null: a 503 Status.
Task<void> ServeConnectLocation(Scope& s, const registry::ConnectLocation& loc, ConnectClients* clients);

// The Location header kube's proxy transport sends on for a backend's redirect: unchanged when it
// names another host or a relative path, else under `path_prepend` (the proxy path of the request).
std::string RewriteProxyRedirect(std::string_view location, std::string_view backend_host,
                                 std::string_view request_host, const std::string& path_prepend);

}  // namespace capstan::endpoints
