// admission/default_storage_class.h: DefaultStorageClass: a PersistentVolumeClaim created without a
// class (no spec.storageClassName, not even "", and no volume.beta.kubernetes.io/storage-class
// annotation) gets the default StorageClass's name: the class annotated
// storageclass.kubernetes.io/is-default-class (or the beta annotation) "true", the newest when several
// are, as kube. No default class: the claim is left alone. Thread-safe.
#pragma once

#include "admission/builtin_plugins.h"

namespace capstan::admission {

class DefaultStorageClass : public Plugin {
 public:
  explicit DefaultStorageClass(ObjectLister list) : list_(std::move(list)) {}
  std::string Name() const override { return "DefaultStorageClass"; }
  bool Handles(const std::string& op) const override { return op == "CREATE"; }
  bool Mutating() const override { return true; }
  Task<Status> Admit(Attributes& a) override;

 private:
  ObjectLister list_;
};

}  // namespace capstan::admission
