// api/apiextensions/crd_controller.h: the control loop behind CRDs (kube's apiextensions naming,
// establishing and finalizer controllers and the custom resource handler's serving), in process.
//
// Each pass lists the CRDs and, for each:
//   - names: accepts spec.names that no other CRD of the group has accepted (status.acceptedNames;
//     NamesAccepted True/NoConflicts or False/<Field>Conflict "\"x\" is already in use");
//   - serving: builds the custom resource storages (custom_resource.h) under the accepted names and
//     installs them into the ApiRegistry (routes, discovery, OpenAPI follow the snapshot); a CRD that
//     changed is re-installed, a CRD that is gone is removed;
//   - Established True/InitialNamesAccepted once served (written after the install, so a client that
//     waits for Established finds the resource served);
//   - deletion: with the customresourcecleanup finalizer and a deletionTimestamp, Terminating
//     True/InstanceDeletionInProgress, every custom resource deleted, Terminating
//     False/InstanceDeletionCompleted and the finalizer removed (the CRD then goes).
// Passes run on one background thread: at once when a CRD is written through this server
// (CrdChangeSignal), otherwise every `resync`.
//
// Thread-safety: Start/Stop from one thread; ReconcileOnce (tests) must not run concurrently with a
// started loop.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "api/apiextensions/crd_signal.h"
#include "api/apiextensions/custom_resource.h"
#include "endpoints/api_registry.h"

namespace capstan::api::apiextensions {

class CrdController {
 public:
  struct Options {
    CustomResourceDeps deps;
    std::chrono::milliseconds resync{1000};
  };
  CrdController(endpoints::ApiRegistry& apis, std::shared_ptr<CrdChangeSignal> signal, Options opts);
  ~CrdController();
  CrdController(const CrdController&) = delete;
  CrdController& operator=(const CrdController&) = delete;

  void Start();
  void Stop();

  // One pass; returns whether it wrote anything (another pass may then have more to do).
  StatusOr<bool> ReconcileOnce();
  // Names of the CRDs currently served.
  std::vector<std::string> Served() const;

 private:
  struct ServedCrd {
    std::string key;  // uid, generation and accepted names: what the storages were built from
    std::string group, plural;
    std::vector<std::string> versions;
    std::string storage_version;  // served: instances are deleted through it (no conversion)
    std::shared_ptr<std::atomic<bool>> terminating;
  };
  void Loop();
  void Uninstall(const ServedCrd& s);
  StatusOr<bool> Finalize(const Object& crd);

  endpoints::ApiRegistry& apis_;
  std::shared_ptr<CrdChangeSignal> signal_;
  Options opts_;
  std::map<std::string, ServedCrd> served_;  // by CRD name; loop thread only
  std::thread thread_;
};

}  // namespace capstan::api::apiextensions
