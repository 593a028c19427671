#include "storage/etcd3/health_check.h"

#include "util/log.h"
#include "util/strings.h"

namespace capstan::storage::etcd3 {

struct EtcdHealth::CheckState {
  std::chrono::milliseconds timeout{2000};
  std::mutex mu;
  std::chrono::steady_clock::time_point last_sent;  // guarded by mu
  bool sent_any = false;                            // guarded by mu
  std::chrono::steady_clock::time_point result_at;  // guarded by mu: when the stored result's probe was sent
  Status last;                                      // guarded by mu
};

EtcdHealth::EtcdHealth(EtcdOptions options, std::chrono::milliseconds retry)
    : options_(std::move(options)), retry_(retry) {
  client_error_ = Status(500, "InternalError", "etcd client connection not yet established");
  thread_ = std::thread([this] { Run(); });
}

EtcdHealth::~EtcdHealth() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    client_error_ = Status(500, "InternalError", "server is shutting down");
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::shared_ptr<Etcd3Backend> c;
  {
    std::lock_guard lock(mu_);
    c = std::move(client_);
  }
}

void EtcdHealth::Run() {
  for (;;) {
    {
      std::lock_guard lock(mu_);
      if (stopping_) return;
    }
    Status err;
    auto made = OpenEtcd3Backend(options_);
    if (made.ok()) {
      std::shared_ptr<Etcd3Backend> b(std::move(*made));
      err = b->WaitForConnected(retry_);
      if (err.ok()) {
        std::lock_guard lock(mu_);
        if (stopping_) return;
        client_ = std::move(b);
        client_error_ = Status();
        cv_.notify_all();
        LogInfo("etcd health client connected", {{"endpoints", Join(options_.endpoints, ",")}});
        return;
      }
    } else {
      err = made.TakeStatus();
    }
    std::unique_lock lock(mu_);
    client_error_ = Status(500, "InternalError", err.message());
    cv_.notify_all();
    cv_.wait_for(lock, retry_, [&] { return stopping_; });
  }
}

std::shared_ptr<Etcd3Backend> EtcdHealth::Client(Status* error) const {
  std::lock_guard lock(mu_);
  if (!client_) *error = client_error_;
  return client_;
}

Status EtcdHealth::WaitForClient(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, timeout, [&] { return client_ != nullptr || stopping_; });
  if (client_) return Status();
  return client_error_;
}

std::function<Task<Status>()> EtcdHealth::MakeCheck(std::chrono::milliseconds timeout) {
  auto state = std::make_shared<CheckState>();
  state->timeout = timeout;
  state->last = Status(500, "InternalError", "etcd client connection not yet established");
  return [this, state]() -> Task<Status> { return RunCheck(state); };
}

Task<Status> EtcdHealth::RunCheck(std::shared_ptr<CheckState> state) {
  Status error;
  auto client = Client(&error);
  if (!client) co_return error;
  auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(state->mu);
    if (state->sent_any && now - state->last_sent < state->timeout / 2) co_return state->last;
    state->sent_any = true;
    state->last_sent = now;
  }
  Status st = co_await client->Probe(state->timeout);
  if (!st.ok()) st = Status(500, "InternalError", "error getting data from etcd: " + st.message());
  std::lock_guard lock(state->mu);
  if (now >= state->result_at) {
    state->result_at = now;
    state->last = st;
  }
  co_return st;
}

}  // namespace capstan::storage::etcd3
