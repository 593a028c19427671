// api/core/kubernetes_service.h: the `default/kubernetes` Service and its Endpoints, kept current as
// kube-apiserver's bootstrap controller does with the lease endpoint reconciler: every interval this
// server refreshes its lease (<prefix>/masterleases/<ip>, an Endpoints object with a TTL), makes sure
// the Service exists (ClusterIP = the range's first address, port 443 "https" → the secure port) and
// its ports are right, and sets the Endpoints to the IPs of all live leases (several servers on one
// store each keep theirs). Stop() removes this server's lease and address. EndpointSlices
// (discovery.k8s.io) are written through a hook, set once that group is served.
//
// The controller writes through the registry (the resources' own validation applies). It runs on its
// own thread; ReconcileOnce may also be awaited directly (tests). Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "registry/rest.h"
#include "storage/object_store.h"
#include "util/task.h"

namespace capstan::api::core {

class KubernetesServiceController {
 public:
  struct Config {
    registry::Storage* services = nullptr;   // core/v1 services (Getter, Creater, Updater)
    registry::Storage* endpoints = nullptr;  // core/v1 endpoints (Getter, Creater, Updater)
    storage::ObjectStore* store = nullptr;   // for the leases
    std::string prefix = "/registry";
    std::string cluster_ip;                  // the service range's first address
    std::string public_ip;                   // this server's address in the Endpoints
    int port = 6443;                         // the secure port
    std::chrono::seconds interval{10};
    std::chrono::seconds lease_ttl{15};
    // --endpoint-reconciler-type=none: the Service is kept, its Endpoints are left alone.
    bool reconcile_endpoints = true;
    // Mirrors the kubernetes Endpoints into EndpointSlices; empty until discovery.k8s.io is served.
    std::function<Task<Status>(const registry::Object& endpoints)> endpoint_slices;
  };

  explicit KubernetesServiceController(Config c) : c_(std::move(c)) {}
  ~KubernetesServiceController() { Stop(); }
  KubernetesServiceController(const KubernetesServiceController&) = delete;
  KubernetesServiceController& operator=(const KubernetesServiceController&) = delete;

  // One pass: lease, Service, Endpoints.
  Task<Status> ReconcileOnce();
  // Removes this server's lease and its address from the Endpoints.
  Task<Status> RemoveSelf();

  // Runs ReconcileOnce every interval on a thread until Stop (which also calls RemoveSelf).
  void Start();
  void Stop();

  // kube's choice of the address other components reach this server on: the given address, the bind
  // address when it is a specific non-loopback one, else the address of the default route's interface.
  static std::string ChoosePublicIp(const std::string& advertise_address, const std::string& bind_address);

 private:
  Task<Status> EnsureService();
  Task<Status> ReconcileEndpoints(bool remove_self);
  Task<Status> RefreshLease();

  Config c_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;  // GUARDED_BY(mu_)
  std::thread thread_;
};

}  // namespace capstan::api::core
