// admission/plugin.h: one admission plugin (kube's admission.Interface with MutationInterface and/or
// ValidationInterface). A plugin says which operations it handles; the chain calls its Admit during the
// mutating phase and its Validate during the validating phase. Plugins are thread-safe.
#pragma once

#include <string>

#include "apimachinery/status.h"
#include "registry/admission_hook.h"
#include "util/task.h"

namespace capstan::admission {

using Attributes = registry::AdmissionAttributes;

class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual std::string Name() const = 0;
  // CREATE, UPDATE, DELETE, CONNECT.
  virtual bool Handles(const std::string& operation) const = 0;
  virtual bool Mutating() const { return false; }
  virtual bool Validating() const { return false; }
  virtual Task<Status> Admit(Attributes& a) { co_return Status(); }
  virtual Task<Status> Validate(const Attributes& a) { co_return Status(); }
};

// kube's admission.NewForbidden: a 403 naming the resource and object the request was about.
Status ForbiddenFor(const Attributes& a, const std::string& reason);

}  // namespace capstan::admission
