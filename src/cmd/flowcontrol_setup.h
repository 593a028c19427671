// cmd/flowcontrol_setup.h: API Priority and Fairness for the running server (kube's APF config
// controller beside the filter).
//
// Owns the flowcontrol::Controller the filter chain dispatches with, sized by
// --max-requests-inflight + --max-mutating-requests-inflight, and one thread with its own event
// loop on which:
//  - two informers (list and watch through the REST storages, so from the watch cache) follow the
//    FlowSchemas and PriorityLevelConfigurations; once both have listed, every change re-digests the
//    whole configuration at once (Controller::Apply), so a new or changed object acts as soon as
//    the watch cache has it;
//  - each FlowSchema's Dangling status condition is kept as kube's controller keeps it
//    (Found/NotFound and kube's messages), written through flowschemas/status;
//  - every second the LIST seat estimate's object counts are refreshed from the watch caches, and
//    every 10 seconds the borrowing between levels is adjusted.
// Also serves /debug/api_priority_and_fairness/dump_priority_levels, dump_queues and dump_requests.
// Thread-safety: Start/Stop from the main thread; the controller is safe from any thread.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "endpoints/api_registry.h"
#include "flowcontrol/controller.h"
#include "server/router.h"
#include "storage/cacher/cacher_factory.h"
#include "util/executor.h"
#include "util/metrics.h"

namespace capstan::controllers {
class ApiClient;
class Informer;
class RunScope;
}  // namespace capstan::controllers

namespace capstan::cmd {

class ApfSetup {
 public:
  // `caches` may be null (no watch cache: list seats fall back to 1, no watch counts).
  ApfSetup(const endpoints::ApiRegistry& apis, storage::CacherFactory* caches, MetricsRegistry& metrics,
           int server_concurrency_limit);
  ~ApfSetup();
  ApfSetup(const ApfSetup&) = delete;
  ApfSetup& operator=(const ApfSetup&) = delete;

  flowcontrol::Controller& controller() { return *controller_; }
  void InstallDebugRoutes(server::Router& router);
  void Start();
  void Stop();

 private:
  struct Counts {
    std::map<std::string, int64_t> objects;  // "<resource>.<group>" → stored objects
  };
  void Loop();
  void ScheduleSync();
  void Sync();
  Task<void> Ticker();
  Task<void> UpdateDangling(std::string name, bool found, std::string level);
  void RefreshCounts();

  const endpoints::ApiRegistry& apis_;
  storage::CacherFactory* caches_;
  std::unique_ptr<flowcontrol::Metrics> metrics_;
  std::shared_ptr<flowcontrol::Controller> controller_;

  std::mutex counts_mu_;
  std::shared_ptr<const Counts> counts_;  // guarded by counts_mu_; replaced whole

  // Loop-thread state.
  std::shared_ptr<LocalLoop> loop_;
  std::thread thread_;
  std::unique_ptr<controllers::ApiClient> client_;
  std::unique_ptr<controllers::RunScope> scope_;
  std::unique_ptr<controllers::Informer> levels_;
  std::unique_ptr<controllers::Informer> schemas_;
  bool sync_pending_ = false;
  bool stopping_ = false;
  std::atomic<bool> started_{false};
};

}  // namespace capstan::cmd
