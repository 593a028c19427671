#include "controllers/controller_manager.h"

#include "controllers/clusterroleaggregation/aggregation_controller.h"

#include "controllers/bootstrap/token_cleaner.h"
#include "controllers/resource_quota_controller.h"
#include "controllers/rootcacert/publisher.h"
#include "controllers/serviceaccount/serviceaccounts_controller.h"
#include "controllers/serviceaccount/tokens_controller.h"
#include "controllers/volumeprotection/pv_protection_controller.h"
#include "controllers/volumeprotection/pvc_protection_controller.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::controllers {

struct ControllerManager::Run {
  Run(ApiClient& client, std::shared_ptr<Executor> executor, std::function<void()> on_idle,
      WorkQueueMetrics* metrics, const Clock& clock)
      : scope(std::move(executor), std::move(on_idle)), ctx(client, scope, metrics, clock) {}
  RunScope scope;
  ControllerContext ctx;
  std::vector<std::unique_ptr<Controller>> controllers;
};

ControllerManager::ControllerManager(const endpoints::ApiRegistry& registry, MetricsRegistry& metrics,
                                     ControllerManagerOptions opts, const Clock& clock)
    : opts_(std::move(opts)),
      clock_(clock),
      metrics_(metrics),
      queue_metrics_(std::make_unique<WorkQueueMetrics>(metrics)),
      client_(std::make_unique<ApiClient>(registry, ControllerManagerUser())) {}

ControllerManager::~ControllerManager() { Stop(); }

std::vector<std::string> ControllerManager::EnabledControllers() const {
  std::vector<std::string> out;
  for (auto name : ImplementedControllers()) {
    if (IsControllerEnabled(name, opts_.controllers)) out.emplace_back(name);
  }
  return out;
}

std::vector<std::unique_ptr<Controller>> ControllerManager::MakeControllers() const {
  std::vector<std::unique_ptr<Controller>> out;
  for (const auto& name : EnabledControllers()) {
    if (name == kNamespaceController) {
      out.push_back(std::make_unique<NamespaceController>(opts_.namespace_controller));
    } else if (name == kGarbageCollectorController) {
      out.push_back(std::make_unique<GarbageCollector>(opts_.garbage_collector));
    } else if (name == kServiceAccountController) {
      out.push_back(std::make_unique<ServiceAccountsController>());
    } else if (name == kRootCACertificatePublisherController) {
      RootCAPublisherOptions ro;
      ro.root_ca_pem = opts_.root_ca_pem;
      out.push_back(std::make_unique<RootCAPublisher>(std::move(ro)));
    } else if (name == kServiceAccountTokenController) {
      if (!opts_.sign_legacy_token) continue;
      TokensControllerOptions to;
      to.sign = opts_.sign_legacy_token;
      to.root_ca_pem = opts_.root_ca_pem;
      out.push_back(std::make_unique<TokensController>(std::move(to)));
    } else if (name == kTokenCleanerController) {
      out.push_back(std::make_unique<TokenCleaner>());
    } else if (name == kClusterRoleAggregationController) {
      out.push_back(std::make_unique<ClusterRoleAggregationController>());
    } else if (name == kResourceQuotaController) {
      out.push_back(std::make_unique<ResourceQuotaController>());
    } else if (name == kPvcProtectionController) {
      out.push_back(std::make_unique<PvcProtectionController>());
    } else if (name == kPvProtectionController) {
      out.push_back(std::make_unique<PvProtectionController>());
    }
  }
  return out;
}

Status ControllerManager::Start() {
  if (started_) return Status();
  RETURN_IF_ERROR(ValidateControllerSelection(opts_.controllers));
  auto enabled = EnabledControllers();
  if (enabled.empty()) {
    LogInfo("no controllers enabled");
    return Status();
  }
  started_ = true;
  loop_ = std::make_shared<LocalLoop>();
  thread_ = std::thread([this] { Loop(); });
  LogInfo("controllers starting", {{"controllers", Join(enabled, ",")},
                                   {"leaderElect", opts_.leader_election.enabled}});
  return Status();
}

void ControllerManager::Loop() {
  ExecutorScope scope(loop_);
  base_scope_ = std::make_unique<RunScope>(loop_, [this] {
    base_idle_ = true;
    MaybeFinish();
  });
  elector_ = std::make_unique<LeaderElector>(
      *client_, *base_scope_, opts_.leader_election, clock_, &metrics_,
      [this] {
        leader_ = true;
        if (run_) {
          restart_pending_ = true;  // the previous run is still draining
        } else {
          StartRun();
        }
      },
      [this] {
        leader_ = false;
        restart_pending_ = false;
        StopRun();
      });
  base_scope_->Spawn(elector_->Run());
  base_scope_->Spawn(MetricsTicker());
  loop_->Run();
  elector_.reset();
  base_scope_.reset();
}

void ControllerManager::StartRun() {
  if (stopping_) return;
  run_ = std::make_unique<Run>(*client_, loop_, [this] { OnRunIdle(); }, queue_metrics_.get(), clock_);
  run_stopping_ = false;
  run_->controllers = MakeControllers();
  for (auto& c : run_->controllers) c->Start(run_->ctx);
  run_->ctx.StartInformers();
  runs_++;
}

void ControllerManager::StopRun() {
  if (!run_ || run_stopping_) return;
  run_stopping_ = true;
  run_->ctx.Shutdown();
  run_->scope.Stop();
}

void ControllerManager::OnRunIdle() {
  run_.reset();
  run_stopping_ = false;
  if (stopping_) {
    base_scope_->Stop();
    MaybeFinish();
  } else if (restart_pending_) {
    restart_pending_ = false;
    StartRun();
  }
}

void ControllerManager::MaybeFinish() {
  // The loop ends only when neither the elector nor a run has a coroutine left.
  if (stopping_ && base_idle_ && !run_) loop_->Stop();
}

Task<void> ControllerManager::MetricsTicker() {
  while (co_await base_scope_->Sleep(std::chrono::milliseconds(500))) {
    if (run_) run_->ctx.UpdateQueueMetrics();
  }
}

void ControllerManager::Stop() {
  if (!started_) return;
  started_ = false;
  loop_->Post([this] {
    stopping_ = true;
    if (run_) {
      StopRun();
    } else {
      base_scope_->Stop();
    }
  });
  thread_.join();
  leader_ = false;
  LogInfo("controllers stopped");
}

}  // namespace capstan::controllers
