#include "storage/etcd3/etcd3_client.h"

#include <cstdio>

#include "util/log.h"

namespace capstan::storage::etcd3 {

bool ReliableProgressVersion(const std::string& version) {
  int major = 0, minor = 0, patch = 0;
  if (std::sscanf(version.c_str(), "%d.%d.%d", &major, &minor, &patch) != 3) return false;
  if (major != 3) return major > 3;
  if (minor == 4) return patch >= 31;
  if (minor == 5) return patch >= 13;
  return minor > 5;
}

StatusOr<std::shared_ptr<EtcdClient>> EtcdClient::Create(EtcdOptions options) {
  std::shared_ptr<EtcdClient> c(new EtcdClient(std::move(options)));
  auto pool = EndpointPool::Create(c->options_);
  if (!pool.ok()) return pool.TakeStatus();
  c->pool_ = std::move(*pool);
  c->thread_ = std::make_unique<CompletionThread>();
  return c;
}

EtcdClient::~EtcdClient() { Shutdown(); }

void EtcdClient::Shutdown() {
  std::call_once(shutdown_once_, [this] {
    tracker_.Close();
    tracker_.WaitIdle();
    thread_.reset();  // shuts the queue down once nothing is in flight
  });
}

void EtcdClient::ObserveRevision(int64_t rev) {
  int64_t cur = last_revision_.load();
  while (rev > cur && !last_revision_.compare_exchange_weak(cur, rev)) {
  }
}

std::string EtcdClient::server_version() const {
  std::lock_guard lock(version_mu_);
  return server_version_;
}

void EtcdClient::SetServerVersion(const std::string& version) {
  if (version.empty()) return;
  bool changed = false;
  {
    std::lock_guard lock(version_mu_);
    changed = server_version_ != version;
    server_version_ = version;
  }
  reliable_progress_ = ReliableProgressVersion(version);
  static std::atomic<bool> logged{false};  // once per process: every client would say the same
  if (changed && !reliable_progress_ && !logged.exchange(true)) {
    LogInfo("etcd answers watch progress requests ahead of queued events; on-demand progress is conservative",
            {{"version", version}});
  }
}

void EtcdClient::LearnVersion() {
  if (!server_version().empty() || version_pending_.exchange(true)) return;
  Endpoint& ep = pool_->Pick();
  auto prepare = [](Endpoint& e, grpc::ClientContext* ctx, const etcdserverpb::StatusRequest& r,
                    grpc::CompletionQueue* cq) { return e.maintenance->PrepareAsyncStatus(ctx, r, cq); };
  // The callback runs on the completion thread; `this` outlives it (Shutdown waits for every call).
  Start<etcdserverpb::StatusResponse>(ep, prepare, etcdserverpb::StatusRequest(), options_.request_timeout,
                                      [this](grpc::Status st, etcdserverpb::StatusResponse resp) {
                                        if (st.ok()) SetServerVersion(resp.version());
                                        version_pending_ = false;
                                      });
}

}  // namespace capstan::storage::etcd3
