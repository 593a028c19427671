#include "api/core/capabilities.h"

#include <atomic>

namespace capstan::api::core {

namespace {
std::atomic<bool> allow_privileged{false};
}  // namespace

void SetAllowPrivileged(bool allow) { allow_privileged.store(allow, std::memory_order_relaxed); }
bool AllowPrivileged() { return allow_privileged.load(std::memory_order_relaxed); }

void ValidateContainerCapabilities(const boost::json::object& container, const FieldPath& path, ErrorList& errs) {
  const auto* sc = container.if_contains("securityContext");
  if (!sc || !sc->is_object()) return;
  const auto* privileged = sc->get_object().if_contains("privileged");
  if (privileged && privileged->is_bool() && privileged->get_bool() && !AllowPrivileged()) {
    errs.push_back(ForbiddenError(path.Child("securityContext").Child("privileged"), "disallowed by cluster policy"));
  }
}

}  // namespace capstan::api::core
