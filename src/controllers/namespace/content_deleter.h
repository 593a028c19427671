// controllers/namespace/content_deleter.h: empties a terminating namespace and finalizes it (kube's
// namespacedResourcesDeleter).
//
// Delete(ns): reads the namespace (gone, or not being deleted: nothing to do); makes sure its phase
// is Terminating; then, for every served namespaced resource that can be deleted (preferred
// versions, custom resources included), deletes the collection in the namespace with background
// propagation (or lists and deletes item by item where deletecollection is not served), lists what
// is left and counts it by resource and by finalizer. It writes the pass's conditions into the
// namespace's status. When content is left that finalizers hold (or pods still in their grace
// period) it returns an estimate in seconds; when everything is gone it removes the `kubernetes`
// finalizer through namespaces/<name>/finalize, and the namespace is deleted by the registry once
// no finalizer is left.
//
// Thread-safety: loop-thread only; one Delete per namespace at a time (the work queue ensures it).
#pragma once

#include <string>

#include "controllers/api_client.h"
#include "controllers/discovery.h"
#include "util/clock.h"

namespace capstan::controllers {

// The finalizer token this controller owns.
inline constexpr std::string_view kFinalizerKubernetes = "kubernetes";

class NamespacedContentDeleter {
 public:
  NamespacedContentDeleter(ApiClient& client, const Clock& clock) : client_(client), clock_(clock) {}

  struct Outcome {
    Status status;          // an error: retry with backoff
    int64_t estimate = 0;   // > 0: content remains; look again in about this many seconds
  };
  Task<Outcome> Delete(const std::string& ns);

 private:
  struct GvrResult {
    int64_t estimate = 0;
    int remaining = 0;
    std::map<std::string, int> finalizers;
    Status status;
  };
  Task<Outcome> DeleteAllContent(const Object& ns);
  Task<GvrResult> DeleteAllContentForResource(const Gvr& gvr, const std::string& ns, bool collection,
                                              const std::string& deleted_at);
  Task<StatusOr<int64_t>> EstimateGracefulTermination(const Gvr& gvr, const std::string& ns,
                                                      const std::string& deleted_at);
  Task<Status> DeleteEachItem(const Gvr& gvr, const std::string& ns);
  std::string Now() const;

  ApiClient& client_;
  const Clock& clock_;
};

// kube's estimate for content held by finalizers.
inline constexpr int64_t kFinalizerEstimateSeconds = 15;

}  // namespace capstan::controllers
