#include "controllers/controller.h"

#include <algorithm>

#include "util/log.h"

namespace capstan::controllers {

ControllerContext::ControllerContext(ApiClient& client, RunScope& scope, WorkQueueMetrics* queue_metrics,
                                     const Clock& clock)
    : client_(client), scope_(scope), queue_metrics_(queue_metrics), clock_(clock) {}

ControllerContext::~ControllerContext() = default;

void ControllerContext::FillKind(InformerOptions& opts) const {
  if (!opts.kind.empty()) return;
  auto snap = client_.Snapshot();
  if (const auto* e = snap->FindResource(opts.gvr.group, opts.gvr.version, opts.gvr.resource, "")) {
    opts.api_version = e->info.ApiVersion();
    opts.kind = e->info.kind;
  }
}

Informer& ControllerContext::SharedInformer(InformerOptions opts) {
  FillKind(opts);
  std::string key = opts.gvr.String() + "|" + opts.namespace_ + "|" + opts.field_selector + "|" +
                    opts.label_selector + "|" + (opts.metadata_only ? "m" : "f");
  auto it = shared_.find(key);
  if (it != shared_.end()) {
    ++shared_users_[it->second.get()].second;
    return *it->second;
  }
  auto inf = std::make_unique<Informer>(client_, scope_, std::move(opts));
  Informer& ref = *inf;
  shared_users_[&ref] = {key, 1};
  shared_.emplace(std::move(key), std::move(inf));
  if (started_) ref.Run();
  return ref;
}

void ControllerContext::Release(Informer& informer) {
  auto u = shared_users_.find(&informer);
  if (u == shared_users_.end() || --u->second.second > 0) return;
  auto it = shared_.find(u->second.first);
  shared_users_.erase(u);
  if (it == shared_.end()) return;
  // Stopped now, destroyed with the context (its loop may still be finishing).
  it->second->Stop();
  retired_.push_back(std::move(it->second));
  shared_.erase(it);
}

void ControllerContext::StartInformers() {
  started_ = true;
  for (auto& [key, inf] : shared_) inf->Run();
}

WorkQueue& ControllerContext::NewQueue(std::string name, std::unique_ptr<RateLimiter> limiter) {
  WorkQueueConfig c;
  c.name = std::move(name);
  c.limiter = std::move(limiter);
  c.metrics = queue_metrics_;
  c.clock = &clock_;
  queues_.push_back(std::make_unique<WorkQueue>(std::move(c)));
  return *queues_.back();
}

void ControllerContext::Shutdown() {
  for (auto& q : queues_) q->ShutDown();
  for (auto& [key, inf] : shared_) inf->Stop();
  for (auto& inf : retired_) inf->Stop();
}

void ControllerContext::UpdateQueueMetrics() {
  for (auto& q : queues_) q->UpdateUnfinishedWorkMetrics();
}

namespace {

Task<void> Worker(WorkQueue& queue, WorkerOptions opts, std::function<Task<SyncResult>(const std::string&)> sync) {
  for (;;) {
    std::optional<std::string> key = co_await queue.Get();
    if (!key) co_return;
    SyncResult r = co_await sync(*key);
    if (!r.retry) {
      queue.Forget(*key);
    } else if (opts.max_retries > 0 && queue.NumRequeues(*key) >= opts.max_retries) {
      LogWarn("dropping item out of the queue", {{"controller", opts.controller},
                                                 {"key", *key},
                                                 {"retries", queue.NumRequeues(*key)},
                                                 {"error", r.status.message()}});
      queue.Forget(*key);
    } else {
      if (!r.quiet) {
        LogWarn("sync failed, will retry", {{"controller", opts.controller}, {"key", *key}, {"error", r.status.message()}});
      }
      queue.AddRateLimited(*key);
    }
    queue.Done(*key);
  }
}

}  // namespace

void RunWorkers(ControllerContext& ctx, WorkQueue& queue, WorkerOptions opts,
                std::function<Task<SyncResult>(const std::string& key)> sync) {
  for (int i = 0; i < std::max(1, opts.workers); ++i) ctx.scope().Spawn(Worker(queue, opts, sync));
}

}  // namespace capstan::controllers
