// admission/namespace_lifecycle.h: NamespaceLifecycle: no creates in a namespace that does not exist
// (404) or is terminating (403), and the system namespaces default, kube-system and kube-public cannot be
// deleted. NamespaceExists (off by default): any create, update or delete of a namespaced object in a
// namespace that does not exist is a 404. NamespaceAutoProvision (off by default): a create in a namespace
// that does not exist creates the namespace first (not for dry runs). The namespace is looked up through `lookup` (the namespaces REST
// storage). Thread-safe.
#pragma once

#include <functional>

#include "admission/plugin.h"

namespace capstan::admission {

// The namespace object, or the Get error (NotFound when it does not exist).
using NamespaceLookup = std::function<Task<StatusOr<registry::Object>>(const std::string& name)>;

class NamespaceLifecycle : public Plugin {
 public:
  explicit NamespaceLifecycle(NamespaceLookup lookup) : lookup_(std::move(lookup)) {}
  std::string Name() const override { return "NamespaceLifecycle"; }
  bool Handles(const std::string& op) const override { return op == "CREATE" || op == "UPDATE" || op == "DELETE"; }
  bool Mutating() const override { return true; }
  Task<Status> Admit(Attributes& a) override;

 private:
  NamespaceLookup lookup_;
};

class NamespaceExists : public Plugin {
 public:
  explicit NamespaceExists(NamespaceLookup lookup) : lookup_(std::move(lookup)) {}
  std::string Name() const override { return "NamespaceExists"; }
  bool Handles(const std::string& op) const override { return op == "CREATE" || op == "UPDATE" || op == "DELETE"; }
  bool Validating() const override { return true; }
  Task<Status> Validate(const Attributes& a) override;

 private:
  NamespaceLookup lookup_;
};

// Creates a namespace of that name (NamespaceAutoProvision); AlreadyExists is the caller's to ignore.
using NamespaceCreator = std::function<Task<Status>(const std::string& name)>;

class NamespaceAutoProvision : public Plugin {
 public:
  NamespaceAutoProvision(NamespaceLookup lookup, NamespaceCreator create)
      : lookup_(std::move(lookup)), create_(std::move(create)) {}
  std::string Name() const override { return "NamespaceAutoProvision"; }
  bool Handles(const std::string& op) const override { return op == "CREATE"; }
  bool Mutating() const override { return true; }
  Task<Status> Admit(Attributes& a) override;

 private:
  NamespaceLookup lookup_;
  NamespaceCreator create_;
};

}  // namespace capstan::admission
