// storage/etcd3/endpoint_pool.h: one gRPC channel per etcd member (--etcd-servers), and which of them
// the next request goes to.
//
// Requests go to the preferred member while its connection is up. A request picks the first member,
// starting from the preferred one, whose channel is connected; when none is, it goes to the preferred
// one (its channel then tries to reconnect). A transport failure moves the preference to the next
// member, so clients fail over within one request's retry. Each channel reconnects by itself with a
// short backoff (EtcdOptions::min/max_reconnect_backoff) and keeps its TCP connection to itself (no
// subchannel sharing with other clients, as each kube etcd client has its own connections).
//
// TLS: https:// endpoints (and bare host:port ones when a TLS file is given) use the CA bundle and
// the client certificate and key from the options; the files are read once, at Create.
//
// Thread-safety: Pick and MarkFailed may be called from any thread.
#pragma once

#include <grpcpp/channel.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "apimachinery/status.h"
#include "storage/etcd3/etcd3_options.h"
#include "storage/etcd3/proto/etcd_rpc.grpc.pb.h"

namespace capstan::storage::etcd3 {

struct Endpoint {
  std::string url;     // as given on the command line
  std::string target;  // the gRPC target (host:port or unix:path)
  bool tls = false;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<etcdserverpb::KV::Stub> kv;
  std::unique_ptr<etcdserverpb::Watch::Stub> watch;
  std::unique_ptr<etcdserverpb::Lease::Stub> lease;
  std::unique_ptr<etcdserverpb::Maintenance::Stub> maintenance;
};

// The gRPC target and TLS choice for one --etcd-servers entry; kInvalidArgument if it is not one.
struct ParsedEndpoint {
  std::string target;
  bool tls = false;
};
StatusOr<ParsedEndpoint> ParseEndpoint(const std::string& url, bool tls_files_given);

class EndpointPool {
 public:
  static StatusOr<std::unique_ptr<EndpointPool>> Create(const EtcdOptions& options);

  Endpoint& Pick();
  void MarkFailed(const Endpoint& ep);
  size_t size() const { return endpoints_.size(); }
  Endpoint& at(size_t i) { return *endpoints_[i]; }
  // Waits (blocking) until some member's channel is connected, or the deadline passes.
  bool WaitForConnected(std::chrono::system_clock::time_point deadline);

 private:
  std::vector<std::unique_ptr<Endpoint>> endpoints_;
  std::atomic<size_t> preferred_{0};
};

}  // namespace capstan::storage::etcd3
