// controllers/leader_elector.h: lease-based leader election for the control loops (client-go's
// leaderelection with a coordination.k8s.io/v1 Lease lock, as kube-controller-manager uses).
//
// The Lease (by default kube-system/capstan-controller-manager) records holderIdentity,
// leaseDurationSeconds, acquireTime, renewTime and leaseTransitions. A candidate tries every
// retry_period to create the Lease or, when its holder's record has not changed for
// lease_duration (as this candidate observed it), to take it over (leaseTransitions + 1). The
// leader renews every retry_period; if it cannot renew for renew_deadline it loses the lease and
// its loops stop; on Stop it releases the lease (empty holder, 1 s duration) so another replica
// takes over at once. Updates are compare-and-swap on resourceVersion, so two candidates never
// both win.
//
// Beside a real kube-controller-manager: Capstan's loops hold their own Lease (by default
// kube-system/capstan-controller-manager) and stand down while the Lease kube-controller-manager takes
// (defer_to, kube-system/kube-controller-manager) is live and held by someone else: a holder is set and
// its renewTime plus leaseDurationSeconds is still ahead. A leader that sees such a Lease stops its loops
// and releases its own Lease at its next retry; a candidate does not campaign. When the foreign Lease
// lapses (not renewed within its duration) or is released, the candidate campaigns again at its next
// retry, so the loops take over within one lease duration plus a retry period.
//
// sole_replica: nothing else can hold the lease (the embedded store belongs to this process), so an
// existing unexpired lease left by an earlier run of this process is taken over at once instead of
// after lease_duration: a single replica always leads immediately.
//
// Thread-safety: runs on the loop thread, inside a RunScope.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "controllers/api_client.h"
#include "controllers/run_scope.h"
#include "util/clock.h"
#include "util/metrics.h"

namespace capstan::controllers {

struct LeaderElectionOptions {
  bool enabled = true;
  std::chrono::milliseconds lease_duration{15000};
  std::chrono::milliseconds renew_deadline{10000};
  std::chrono::milliseconds retry_period{2000};
  std::string resource_namespace = "kube-system";
  std::string resource_name = "capstan-controller-manager";
  // The Lease a real kube-controller-manager holds; empty name: never stand down.
  std::string defer_to_namespace = "kube-system";
  std::string defer_to_name = "kube-controller-manager";
  std::string identity;  // empty: <hostname>_<uuid>
  bool sole_replica = false;
};

class LeaderElector {
 public:
  // on_started_leading runs when the lease is won; on_stopped_leading when it is lost (or at Stop).
  LeaderElector(ApiClient& client, RunScope& scope, LeaderElectionOptions opts, const Clock& clock,
                MetricsRegistry* metrics, std::function<void()> on_started_leading,
                std::function<void()> on_stopped_leading);

  // The election loop: acquire, lead (renewing) until the lease is lost, then try again; returns
  // when the scope stops (releasing the lease if held).
  Task<void> Run();
  bool is_leader() const { return leading_; }
  const std::string& identity() const { return opts_.identity; }

  // One attempt to acquire or renew (exposed for tests): true when this candidate holds the lease.
  Task<bool> TryAcquireOrRenew();
  Task<void> Release();
  // True while the defer_to Lease is held by someone else and renewed within its duration.
  Task<bool> ForeignLeaderLive();
  bool standing_down() const { return standing_down_; }

 private:
  std::string Now() const;
  void SetLeading(bool leading);

  ApiClient& client_;
  RunScope& scope_;
  LeaderElectionOptions opts_;
  const Clock& clock_;
  Gauge* master_status_ = nullptr;
  std::function<void()> on_started_;
  std::function<void()> on_stopped_;
  bool leading_ = false;
  bool standing_down_ = false;
  std::string foreign_holder_;  // the defer_to Lease's holder last logged
  // The holder record last seen and when this candidate saw it change.
  std::string observed_record_;
  std::chrono::steady_clock::time_point observed_time_;
};

// <hostname>_<uuid>, as kube-controller-manager names itself.
std::string DefaultLeaderIdentity();

}  // namespace capstan::controllers
