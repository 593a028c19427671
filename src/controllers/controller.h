// controllers/controller.h: what a control loop is and what it gets to run with.
//
// A Controller sets itself up in Start(ctx): it asks the context for shared informers (one
// list/watch per resource and selector, shared by every loop that asks), adds event handlers that
// put keys on its work queues, and spawns its workers in the run's scope. Workers take keys, look
// the current state up (level-triggered) and act through the ApiClient. A run ends when the scope
// stops: queues shut down, informers stop, workers return; the ControllerContext and the
// controllers are destroyed once every coroutine of the run has finished. A new run (after
// leadership is regained) starts from scratch, recomputing everything from the API.
//
// Thread-safety: everything here runs on the loop thread.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "controllers/api_client.h"
#include "controllers/informer.h"
#include "controllers/run_scope.h"
#include "controllers/work_queue.h"
#include "util/clock.h"

namespace capstan::controllers {

class ControllerContext {
 public:
  ControllerContext(ApiClient& client, RunScope& scope, WorkQueueMetrics* queue_metrics, const Clock& clock);
  ~ControllerContext();
  ControllerContext(const ControllerContext&) = delete;
  ControllerContext& operator=(const ControllerContext&) = delete;

  ApiClient& client() { return client_; }
  RunScope& scope() { return scope_; }
  const Clock& clock() const { return clock_; }

  // The shared informer for these options (created on first use; api_version/kind are filled in
  // from the served resource). Started by StartInformers() or, once the run is going, at once. Each
  // call counts one user; Release() gives one back, and the last one stops the informer (a later call
  // makes a new one). Controllers that hold theirs for the whole run never release.
  Informer& SharedInformer(InformerOptions opts);
  void Release(Informer& informer);
  void StartInformers();

  // A work queue of this run (shut down when the run stops).
  WorkQueue& NewQueue(std::string name, std::unique_ptr<RateLimiter> limiter = nullptr);

  // Stops the informers and shuts the queues down (the scope's Stop wakes the sleepers).
  void Shutdown();
  // Refreshes the queues' unfinished-work gauges.
  void UpdateQueueMetrics();

 private:
  void FillKind(InformerOptions& opts) const;

  ApiClient& client_;
  RunScope& scope_;
  WorkQueueMetrics* queue_metrics_;
  const Clock& clock_;
  bool started_ = false;
  std::map<std::string, std::unique_ptr<Informer>> shared_;
  std::map<const Informer*, std::pair<std::string, int>> shared_users_;  // informer → key, users
  std::vector<std::unique_ptr<Informer>> retired_;  // released shared informers, stopped
  std::vector<std::unique_ptr<WorkQueue>> queues_;
};

class Controller {
 public:
  virtual ~Controller() = default;
  virtual std::string_view Name() const = 0;
  virtual void Start(ControllerContext& ctx) = 0;
};

// What a worker's sync returns: done (the item's backoff is forgotten), or retry (rate-limited
// re-add, unless the item has failed max_retries times already).
struct SyncResult {
  static SyncResult Ok() { return {}; }
  static SyncResult Retry(Status why) { return {std::move(why), true, false}; }
  // Retry without logging (an expected wait, not a failure).
  static SyncResult QuietRetry() { return {Status(), true, true}; }
  Status status;
  bool retry = false;
  bool quiet = false;
};

struct WorkerOptions {
  std::string controller;  // for logs
  int workers = 1;
  int max_retries = 0;     // 0: retry forever
};

// Spawns `workers` coroutines that take keys from `queue`, run `sync` and apply kube's
// processNextWorkItem rules (Done always; Forget on success; AddRateLimited on error).
void RunWorkers(ControllerContext& ctx, WorkQueue& queue, WorkerOptions opts,
                std::function<Task<SyncResult>(const std::string& key)> sync);

}  // namespace capstan::controllers
