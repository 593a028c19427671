// admission/storage_object_in_use_protection.h: StorageObjectInUseProtection: every PersistentVolumeClaim
// is created with the finalizer kubernetes.io/pvc-protection and every PersistentVolume with
// kubernetes.io/pv-protection (appended unless present), so a claim in use by a pod or a bound volume is
// not removed under it; the protection controllers (controllers/volumeprotection) take the finalizers
// off once the object is no longer in use. Mutating, CREATE only, as kube-apiserver. Stateless;
// thread-safe.
#pragma once

#include "admission/plugin.h"

namespace capstan::admission {

inline constexpr const char* kPvcProtectionFinalizer = "kubernetes.io/pvc-protection";
inline constexpr const char* kPvProtectionFinalizer = "kubernetes.io/pv-protection";

class StorageObjectInUseProtection : public Plugin {
 public:
  std::string Name() const override { return "StorageObjectInUseProtection"; }
  bool Handles(const std::string& op) const override { return op == "CREATE"; }
  bool Mutating() const override { return true; }
  Task<Status> Admit(Attributes& a) override;
};

}  // namespace capstan::admission
