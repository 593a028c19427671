// controllers/volumeprotection/pvc_protection_controller.h: kube's
// persistentvolumeclaim-protection-controller. A PersistentVolumeClaim carries the finalizer
// kubernetes.io/pvc-protection (added by the StorageObjectInUseProtection admission plugin, or here
// for claims created without it); once the claim is being deleted and no pod uses it, the loop takes
// the finalizer off so the deletion completes.
//
// A pod uses a claim when it is scheduled (spec.nodeName set) and one of its volumes names the claim
// (persistentVolumeClaim.claimName), or, unless the pod is shut down (deleted with a zero grace
// period), an ephemeral volume's claim <pod>-<volume> is the one this pod owns. The informer cache is
// asked first; when it shows no user, a live list of the namespace's pods decides, as kube does.
// Claims are queued when they need the finalizer or are deletion candidates, and the claims of pods
// that are deleted, finished or unscheduled. Queue "pvcprotection". Thread-safety: loop-thread only.
#pragma once

#include <string>

#include "controllers/controller.h"

namespace capstan::controllers {

inline constexpr std::string_view kPvcProtectionController = "persistentvolumeclaim-protection-controller";
inline constexpr std::string_view kPvcProtectionFinalizer = "kubernetes.io/pvc-protection";

class PvcProtectionController : public Controller {
 public:
  std::string_view Name() const override { return kPvcProtectionController; }
  void Start(ControllerContext& ctx) override;

 private:
  Task<void> Run(ControllerContext& ctx);
  Task<SyncResult> Sync(const std::string& key);
  void EnqueueClaimsOf(const Object& pod, bool deleted);

  ApiClient* client_ = nullptr;
  Informer* claims_ = nullptr;
  Informer* pods_ = nullptr;
  WorkQueue* queue_ = nullptr;
};

// Whether `pod` uses the claim `pvc` (kube's podUsesPVC).
bool PodUsesClaim(const Object& pod, const Object& pvc);
// kube's protectionutil: the finalizer is missing from an object not being deleted / the object is being
// deleted and still has it.
bool NeedsFinalizer(const Object& o, std::string_view finalizer);
bool IsDeletionCandidate(const Object& o, std::string_view finalizer);

}  // namespace capstan::controllers
