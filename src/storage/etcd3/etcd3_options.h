// storage/etcd3/etcd3_options.h: how the etcd3 backend reaches its cluster (kube-apiserver's --etcd-*
// flags) and how patient it is.
//
// Keys: the backend stores keys exactly as it is given them. Capstan's registry already builds keys
// under --etcd-prefix (/registry/<resource>/<namespace>/<name>, as kube-apiserver writes them), so the
// backend adds no prefix of its own and a Capstan cluster's keys in etcd are byte-for-byte kube's.
// Plain values; copy freely.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace capstan {
class MetricsRegistry;
}

namespace capstan::storage::etcd3 {

struct EtcdOptions {
  // --etcd-servers: "http://host:port", "https://host:port", "unix:///path" or "host:port" (TLS when
  // any of the TLS files is given). Requests go to one member at a time and fail over to the next.
  std::vector<std::string> endpoints;
  std::string ca_file;    // --etcd-cafile: CA bundle that signs the etcd servers' certificates
  std::string cert_file;  // --etcd-certfile: client certificate presented to etcd
  std::string key_file;   // --etcd-keyfile: its private key

  // Deadline of each unary request; a request that etcd does not answer in time fails kUnavailable.
  std::chrono::milliseconds request_timeout{15000};
  // gRPC keepalive pings on idle connections (kube's etcd client: 30s / 10s).
  std::chrono::milliseconds keepalive_time{30000};
  std::chrono::milliseconds keepalive_timeout{10000};
  // Reconnect backoff bounds after a member goes away.
  std::chrono::milliseconds min_reconnect_backoff{100};
  std::chrono::milliseconds max_reconnect_backoff{1000};
  // Watch streams that break are re-created from the next undelivered revision with this backoff.
  std::chrono::milliseconds watch_retry_min{100};
  std::chrono::milliseconds watch_retry_max{2000};

  // The key read by Check() (kube's probe reads <prefix>/health).
  std::string health_key = "/registry/health";

  MetricsRegistry* metrics = nullptr;  // optional: etcd_request_duration_seconds
};

}  // namespace capstan::storage::etcd3
