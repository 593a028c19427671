#include "controllers/namespace/namespace_controller.h"

#include "apimachinery/object_meta.h"
#include "controllers/selection.h"
#include "util/log.h"

namespace capstan::controllers {

namespace am = capstan::apimachinery;

namespace {

// kube's nsControllerRateLimiter: retry at least every minute, 10 qps overall.
std::unique_ptr<RateLimiter> NamespaceRateLimiter(const Clock& clock) {
  std::vector<std::unique_ptr<RateLimiter>> v;
  v.push_back(std::make_unique<ItemExponentialFailureRateLimiter>(std::chrono::milliseconds(5), std::chrono::seconds(60)));
  v.push_back(std::make_unique<BucketRateLimiter>(10, 100, clock));
  return std::make_unique<MaxOfRateLimiter>(std::move(v));
}

}  // namespace

std::string_view NamespaceController::Name() const { return kNamespaceController; }

void NamespaceController::Start(ControllerContext& ctx) {
  deleter_ = std::make_unique<NamespacedContentDeleter>(ctx.client(), ctx.clock());
  queue_ = &ctx.NewQueue("namespace", NamespaceRateLimiter(ctx.clock()));
  InformerOptions io;
  io.gvr = {"", "v1", "namespaces"};
  namespaces_ = &ctx.SharedInformer(io);
  namespaces_->AddHandler(EventHandler{
      [this](const Object& ns) { Enqueue(ns); },
      [this](const Object&, const Object& ns) { Enqueue(ns); },
      nullptr,
  });
  ctx.scope().Spawn(Run(ctx));
}

void NamespaceController::Enqueue(const Object& ns) {
  // Only namespaces being deleted have work.
  if (!am::GetDeletionTimestamp(ns)) return;
  queue_->AddAfter(std::string(am::GetName(ns)), opts_.deletion_delay);
}

Task<void> NamespaceController::Run(ControllerContext& ctx) {
  if (!co_await namespaces_->WaitForSync()) co_return;
  LogInfo("Starting controller", {{"controller", std::string(kNamespaceController)}});
  WorkerOptions wo;
  wo.controller = std::string(kNamespaceController);
  wo.workers = opts_.workers;
  RunWorkers(ctx, *queue_, wo, [this](const std::string& key) { return Sync(key); });
  ctx.scope().Spawn(Resync(ctx));
}

Task<void> NamespaceController::Resync(ControllerContext& ctx) {
  while (co_await ctx.scope().Sleep(opts_.resync_period)) {
    namespaces_->ForEach([this](const Object& ns) { Enqueue(ns); });
  }
}

Task<SyncResult> NamespaceController::Sync(const std::string& name) {
  auto outcome = co_await deleter_->Delete(name);
  if (!outcome.status.ok()) {
    co_return SyncResult::Retry(Status(outcome.status.code(), outcome.status.reason(),
                                       "deletion of namespace " + name + " failed: " + outcome.status.message()));
  }
  if (outcome.estimate > 0) {
    // Content held by finalizers: look again in about half the estimate.
    int64_t wait = outcome.estimate / 2 + 1;
    LogDebug("content remaining in namespace", {{"namespace", name}, {"waitSeconds", wait}});
    queue_->AddAfter(name, std::chrono::seconds(wait));
  }
  co_return SyncResult::Ok();
}

}  // namespace capstan::controllers
