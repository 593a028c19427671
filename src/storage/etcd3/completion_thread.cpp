#include "storage/etcd3/completion_thread.h"

namespace capstan::storage::etcd3 {

void CallTracker::End(grpc::ClientContext* ctx) {
  std::lock_guard lock(mu_);
  live_.erase(ctx);
  if (live_.empty()) idle_.notify_all();
}

void CallTracker::Close() {
  std::lock_guard lock(mu_);
  closing_ = true;
  for (grpc::ClientContext* ctx : live_) ctx->TryCancel();
}

void CallTracker::WaitIdle() {
  std::unique_lock lock(mu_);
  idle_.wait(lock, [&] { return live_.empty(); });
}

bool CallTracker::closing() const {
  std::lock_guard lock(mu_);
  return closing_;
}

CompletionThread::CompletionThread() : thread_([this] { Run(); }) {}

CompletionThread::~CompletionThread() {
  cq_.Shutdown();
  if (thread_.joinable()) thread_.join();
}

void CompletionThread::Run() {
  void* tag = nullptr;
  bool ok = false;
  while (cq_.Next(&tag, &ok)) static_cast<CqOp*>(tag)->Proceed(ok);
}

}  // namespace capstan::storage::etcd3
