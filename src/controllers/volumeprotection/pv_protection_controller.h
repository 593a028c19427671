// controllers/volumeprotection/pv_protection_controller.h: kube's persistentvolume-protection-controller.
// A PersistentVolume carries the finalizer kubernetes.io/pv-protection (added by the
// StorageObjectInUseProtection admission plugin, or here for volumes created without it); once the
// volume is being deleted and is not bound (status.phase is not Bound), the loop takes the finalizer
// off so the deletion completes. Queue "pvprotection". Thread-safety: loop-thread only.
#pragma once

#include <string>

#include "controllers/controller.h"

namespace capstan::controllers {

inline constexpr std::string_view kPvProtectionController = "persistentvolume-protection-controller";
inline constexpr std::string_view kPvProtectionFinalizer = "kubernetes.io/pv-protection";

class PvProtectionController : public Controller {
 public:
  std::string_view Name() const override { return kPvProtectionController; }
  void Start(ControllerContext& ctx) override;

 private:
  Task<void> Run(ControllerContext& ctx);
  Task<SyncResult> Sync(const std::string& name);

  ApiClient* client_ = nullptr;
  Informer* volumes_ = nullptr;
  WorkQueue* queue_ = nullptr;
};

}  // namespace capstan::controllers
