// controllers/controller_manager.h: runs Capstan's control loops in process, as
// kube-controller-manager would beside kube-apiserver.
//
// Start() starts one dedicated thread with its own event loop (so the loops never run on, or block,
// the server's I/O threads); on it the leader elector campaigns for the Lease and, while this
// process leads, one "run" of the selected controllers executes: their shared informers, work
// queues and workers. Losing the lease ends the run (queues shut down, informers stop, workers
// return); winning it again starts a new run that recomputes everything from the API. Stop() ends
// the run, waits for its coroutines, releases the lease and joins the thread.
//
// The loops act through an ApiClient over the endpoints ApiRegistry (every served resource,
// including custom resources installed later) as the user system:kube-controller-manager.
// Work-queue and leader-election metrics go to the MetricsRegistry passed in.
//
// Thread-safety: Start and Stop from one thread (the main thread); IsLeader from any.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "controllers/api_client.h"
#include "controllers/garbagecollector/garbage_collector.h"
#include "controllers/leader_elector.h"
#include "controllers/namespace/namespace_controller.h"
#include "controllers/selection.h"
#include "endpoints/api_registry.h"
#include "util/clock.h"
#include "util/metrics.h"

namespace capstan::controllers {

struct ControllerManagerOptions {
  std::vector<std::string> controllers = DefaultControllerSelection();
  LeaderElectionOptions leader_election;
  // The cluster CA published as kube-root-ca.crt (PEM).
  std::string root_ca_pem;
  NamespaceControllerOptions namespace_controller;
  GarbageCollectorOptions garbage_collector;
  // Signs legacy tokens for the serviceaccount-token-controller (namespace, account name, account
  // uid, secret name); unset: that controller does not run.
  std::function<StatusOr<std::string>(const std::string&, const std::string&, const std::string&, const std::string&)>
      sign_legacy_token;
};

class ControllerManager {
 public:
  ControllerManager(const endpoints::ApiRegistry& registry, MetricsRegistry& metrics, ControllerManagerOptions opts,
                    const Clock& clock = RealClock::Get());
  ~ControllerManager();
  ControllerManager(const ControllerManager&) = delete;
  ControllerManager& operator=(const ControllerManager&) = delete;

  // The controllers that will run (canonical names), from the selection and what Capstan has.
  std::vector<std::string> EnabledControllers() const;

  Status Start();
  void Stop();
  bool IsLeader() const { return leader_.load(); }
  // Runs that started so far (1 after the first lease acquisition).
  int runs() const { return runs_.load(); }

 private:
  struct Run;
  void Loop();
  void StartRun();
  void StopRun();
  void OnRunIdle();
  void MaybeFinish();
  Task<void> MetricsTicker();
  std::vector<std::unique_ptr<Controller>> MakeControllers() const;

  ControllerManagerOptions opts_;
  const Clock& clock_;
  MetricsRegistry& metrics_;
  std::unique_ptr<WorkQueueMetrics> queue_metrics_;
  std::unique_ptr<ApiClient> client_;
  std::shared_ptr<LocalLoop> loop_;
  std::thread thread_;
  bool started_ = false;

  // Loop-thread state.
  std::unique_ptr<RunScope> base_scope_;
  std::unique_ptr<LeaderElector> elector_;
  std::unique_ptr<Run> run_;
  bool run_stopping_ = false;
  bool restart_pending_ = false;
  bool stopping_ = false;
  bool base_idle_ = false;

  std::atomic<bool> leader_{false};
  std::atomic<int> runs_{0};
};

}  // namespace capstan::controllers
