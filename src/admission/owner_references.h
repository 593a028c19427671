// admission/owner_references.h: OwnerReferencesPermissionEnforcement (off by default), kube's gc admission:
// - changing an object's metadata.ownerReferences (other than at create) needs `delete` on that object;
// - a new or newly blocking ownerReference (blockOwnerDeletion: true) needs `update` on the owner's
//   finalizers subresource (in the dependent's namespace when the owner is namespaced), unless the user
//   may update finalizers of everything; an owner whose apiVersion/kind nothing serves is refused.
// pods/status is exempt, as in kube. Asks the server's authorizer and the served kinds (a REST mapper)
// given at construction; thread-safe.
#pragma once

#include <functional>
#include <optional>
#include <string_view>

#include "admission/authorize.h"
#include "admission/plugin.h"

namespace capstan::admission {

// The served resource of an apiVersion and kind, as kube's RESTMapper: exactly that group and version.
struct KindMapping {
  std::string group;
  std::string version;
  std::string resource;
  bool namespaced = false;
};
using KindMapper = std::function<std::optional<KindMapping>(std::string_view api_version, std::string_view kind)>;

class OwnerReferencesPermissionEnforcement : public Plugin {
 public:
  OwnerReferencesPermissionEnforcement(AuthorizeFunc authorize, KindMapper map_kind)
      : authorize_(std::move(authorize)), map_kind_(std::move(map_kind)) {}
  std::string Name() const override { return "OwnerReferencesPermissionEnforcement"; }
  bool Handles(const std::string& op) const override { return op == "CREATE" || op == "UPDATE"; }
  bool Validating() const override { return true; }
  Task<Status> Validate(const Attributes& a) override;

 private:
  AuthorizeFunc authorize_;
  KindMapper map_kind_;
};

}  // namespace capstan::admission
