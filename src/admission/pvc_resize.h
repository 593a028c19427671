// admission/pvc_resize.h: PersistentVolumeClaimResize (on by default, as in kube): an update that grows a
// claim's spec.resources.requests.storage is refused unless the claim is Bound and its StorageClass (the same
// before and after, from the beta annotation or spec.storageClassName) sets allowVolumeExpansion: true.
// Shrinking and unchanged sizes pass. Reads StorageClasses through the API; thread-safe.
#pragma once

#include "admission/builtin_plugins.h"
#include "admission/plugin.h"

namespace capstan::admission {

class PersistentVolumeClaimResize : public Plugin {
 public:
  explicit PersistentVolumeClaimResize(ObjectGetter get) : get_(std::move(get)) {}
  std::string Name() const override { return "PersistentVolumeClaimResize"; }
  bool Handles(const std::string& op) const override { return op == "UPDATE"; }
  bool Validating() const override { return true; }
  Task<Status> Validate(const Attributes& a) override;

 private:
  ObjectGetter get_;
};

}  // namespace capstan::admission
