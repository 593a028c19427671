#include "storage/etcd3/endpoint_pool.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/channel_arguments.h>

#include <climits>
#include <fstream>
#include <sstream>
#include <thread>

#include "util/strings.h"

namespace capstan::storage::etcd3 {
namespace {

Status ReadPem(const std::string& path, const char* flag, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Storage(StorageCode::kInvalidArgument, std::string("cannot read ") + flag + " " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  if (out->empty()) return Status::Storage(StorageCode::kInvalidArgument, std::string(flag) + " " + path + " is empty");
  return Status();
}

}  // namespace

StatusOr<ParsedEndpoint> ParseEndpoint(const std::string& url, bool tls_files_given) {
  ParsedEndpoint p;
  std::string rest;
  auto bad = [&](const std::string& why) {
    return Status::Storage(StorageCode::kInvalidArgument, "invalid etcd endpoint " + GoQuote(url) + ": " + why);
  };
  if (StartsWith(url, "http://")) {
    rest = url.substr(7);
  } else if (StartsWith(url, "https://")) {
    rest = url.substr(8);
    p.tls = true;
  } else if (StartsWith(url, "unix://") || StartsWith(url, "unixs://")) {
    bool s = StartsWith(url, "unixs://");
    std::string path = url.substr(s ? 8 : 7);
    if (path.empty()) return bad("no socket path");
    p.target = "unix:" + path;
    p.tls = s;
    return p;
  } else if (url.find("://") != std::string::npos) {
    return bad("unsupported scheme (http, https, unix)");
  } else {
    rest = url;
    p.tls = tls_files_given;
  }
  while (!rest.empty() && rest.back() == '/') rest.pop_back();
  if (rest.empty()) return bad("no host");
  if (rest.find('/') != std::string::npos) return bad("a path is not allowed");
  // host:port, [v6]:port; etcd's default client port when none is given.
  size_t colon = rest.rfind(':');
  bool has_port = colon != std::string::npos && (rest[0] != '[' || rest.find(']') < colon);
  if (!has_port) rest += ":2379";
  p.target = rest;
  return p;
}

StatusOr<std::unique_ptr<EndpointPool>> EndpointPool::Create(const EtcdOptions& o) {
  if (o.endpoints.empty()) return Status::Storage(StorageCode::kInvalidArgument, "no etcd endpoints given");
  const bool tls_files = !o.ca_file.empty() || !o.cert_file.empty() || !o.key_file.empty();
  if (o.cert_file.empty() != o.key_file.empty()) {
    return Status::Storage(StorageCode::kInvalidArgument,
                           "--etcd-certfile and --etcd-keyfile must be given together");
  }
  grpc::SslCredentialsOptions ssl;
  if (!o.ca_file.empty()) RETURN_IF_ERROR(ReadPem(o.ca_file, "--etcd-cafile", &ssl.pem_root_certs));
  if (!o.cert_file.empty()) RETURN_IF_ERROR(ReadPem(o.cert_file, "--etcd-certfile", &ssl.pem_cert_chain));
  if (!o.key_file.empty()) RETURN_IF_ERROR(ReadPem(o.key_file, "--etcd-keyfile", &ssl.pem_private_key));

  auto pool = std::make_unique<EndpointPool>();
  for (const auto& url : o.endpoints) {
    auto parsed = ParseEndpoint(url, tls_files);
    if (!parsed.ok()) return parsed.TakeStatus();
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, static_cast<int>(o.keepalive_time.count()));
    args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, static_cast<int>(o.keepalive_timeout.count()));
    args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, static_cast<int>(o.min_reconnect_backoff.count()));
    args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, static_cast<int>(o.min_reconnect_backoff.count()));
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, static_cast<int>(o.max_reconnect_backoff.count()));
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    args.SetMaxReceiveMessageSize(INT_MAX);
    args.SetMaxSendMessageSize(INT_MAX);
    std::shared_ptr<grpc::ChannelCredentials> creds =
        parsed->tls ? grpc::SslCredentials(ssl) : grpc::InsecureChannelCredentials();
    auto ep = std::make_unique<Endpoint>();
    ep->url = url;
    ep->target = parsed->target;
    ep->tls = parsed->tls;
    ep->channel = grpc::CreateCustomChannel(parsed->target, creds, args);
    ep->kv = etcdserverpb::KV::NewStub(ep->channel);
    ep->watch = etcdserverpb::Watch::NewStub(ep->channel);
    ep->lease = etcdserverpb::Lease::NewStub(ep->channel);
    ep->maintenance = etcdserverpb::Maintenance::NewStub(ep->channel);
    pool->endpoints_.push_back(std::move(ep));
  }
  return pool;
}

Endpoint& EndpointPool::Pick() {
  const size_t n = endpoints_.size();
  const size_t p = preferred_.load() % n;
  for (size_t i = 0; i < n; ++i) {
    Endpoint& ep = *endpoints_[(p + i) % n];
    if (ep.channel->GetState(true) == GRPC_CHANNEL_READY) return ep;
  }
  return *endpoints_[p];
}

void EndpointPool::MarkFailed(const Endpoint& ep) {
  const size_t n = endpoints_.size();
  for (size_t i = 0; i < n; ++i) {
    if (endpoints_[i].get() != &ep) continue;
    size_t expected = i;
    preferred_.compare_exchange_strong(expected, (i + 1) % n);
    return;
  }
}

bool EndpointPool::WaitForConnected(std::chrono::system_clock::time_point deadline) {
  for (;;) {
    for (auto& ep : endpoints_) {
      if (ep->channel->GetState(true) == GRPC_CHANNEL_READY) return true;
    }
    auto now = std::chrono::system_clock::now();
    if (now >= deadline) return false;
    // Wait on the preferred channel's state change, a little at a time so that every member is seen.
    auto step = std::min(deadline, now + std::chrono::milliseconds(100));
    Endpoint& ep = *endpoints_[preferred_.load() % endpoints_.size()];
    auto state = ep.channel->GetState(true);
    if (!ep.channel->WaitForStateChange(state, step)) continue;
  }
}

}  // namespace capstan::storage::etcd3
