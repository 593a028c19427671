// api/core/component_status.h: componentstatuses (core/v1 ComponentStatus, short name cs), the
// deprecated, read-only view of the control plane's health that kube-apiserver computes on every
// request: one object per component, named as kube names them (scheduler, controller-manager,
// etcd-0, etcd-1, ...), each with one Healthy condition whose status (True/False/Unknown), message
// and error come from that component's probe. Nothing is stored; get and list only (no watch), and
// both carry kube's warning "v1 ComponentStatus is deprecated in v1.19+".
//
// The probes are handed in after the resource is installed (cmd/ knows the storage backend and the
// control loops only later): ComponentStatusSources holds them. Until they are set the list is
// empty and every get is "Component not found". kube's own probes and what Capstan answers:
//   scheduler           kube GETs https://127.0.0.1:10259/healthz; Capstan runs no scheduler, so it
//                       answers as kube does when that connection is refused (RefusedProbeMessage).
//   controller-manager  kube GETs https://127.0.0.1:10257/healthz; Capstan's control loops run in
//                       process: healthy ("ok") while this replica or another holds the leader
//                       Lease (LeaseHeld), else the refused-connection answer for port 10257.
//   etcd-N              kube probes each --etcd-servers endpoint alone: healthy "ok", else status
//                       False with the error. Capstan: each member's own health client (etcd-0 for
//                       the embedded store: the store's check).
//
// Thread-safety: ComponentStatusSources may be set and read from any thread; the storage is
// thread-safe; the free functions are pure.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "apimachinery/time_util.h"
#include "registry/rest_resource.h"
#include "util/task.h"

namespace capstan::api::core {

inline constexpr char kComponentStatusDeprecation[] = "v1 ComponentStatus is deprecated in v1.19+";
inline constexpr int kSchedulerHealthPort = 10259;
inline constexpr int kControllerManagerHealthPort = 10257;

// One probe's answer: the Healthy condition's status ("True", "False" or "Unknown"), message and error.
struct ComponentHealth {
  std::string status;
  std::string message;
  std::string error;
};

struct ComponentProbe {
  std::string name;
  std::function<Task<ComponentHealth>()> probe;
};

class ComponentStatusSources {
 public:
  void Set(std::vector<ComponentProbe> probes);
  std::vector<ComponentProbe> Get() const;

 private:
  mutable std::mutex mu_;
  std::vector<ComponentProbe> probes_;
};

// The v1 ComponentStatus kube returns for one component.
registry::Object ComponentStatusObject(const std::string& name, const ComponentHealth& health);

// kube's probe message when the component's https://127.0.0.1:<port>/healthz refuses the connection:
// Get "https://127.0.0.1:10259/healthz": dial tcp 127.0.0.1:10259: connect: connection refused
std::string RefusedProbeMessage(int port);
// The answer for that case: status False, that message, no error.
ComponentHealth RefusedProbe(int port);

// Whether a leader-election Lease has a holder whose renewTime plus leaseDurationSeconds is after `now`.
bool LeaseHeld(const registry::Object& lease, apimachinery::Timestamp now);

// The componentstatuses resource over `sources`.
std::vector<registry::RestResource> ComponentStatuses(const registry::GroupDeps& deps,
                                                      std::shared_ptr<ComponentStatusSources> sources);

}  // namespace capstan::api::core
