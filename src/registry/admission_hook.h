// registry/admission_hook.h: where the registry calls admission (kube's admission.Interface as the
// generic store sees it): mutating admission before an object is prepared and validated, validating
// admission after, just before storage. src/admission/ implements the chain; the registry depends only
// on this interface. Thread-safe.
#pragma once

#include <string>

#include "apimachinery/status.h"
#include "apimachinery/user_info.h"
#include "registry/resource_info.h"
#include "registry/rest.h"
#include "util/task.h"

namespace capstan::registry {

struct AdmissionAttributes {
  std::string operation;  // CREATE, UPDATE, DELETE, CONNECT
  const ResourceInfo* resource = nullptr;
  std::string subresource;
  std::string namespace_;
  std::string name;
  Object* object = nullptr;             // the new object (mutable for mutating admission)
  const Object* old_object = nullptr;   // for UPDATE and DELETE
  const UserInfo* user = nullptr;
  bool dry_run = false;
  // The request's warnings and audit annotations; null for in-process callers.
  RequestScope* scope = nullptr;
};

// The attributes of an admission call on `resource`, with what the request's Context says (subresource,
// namespace, name, user, dry run, scope).
inline AdmissionAttributes AttributesFor(const Context& ctx, std::string operation, const ResourceInfo& resource,
                                         std::string name) {
  AdmissionAttributes a;
  a.operation = std::move(operation);
  a.resource = &resource;
  a.subresource = ctx.subresource;
  a.namespace_ = ctx.namespace_;
  a.name = std::move(name);
  a.user = ctx.user;
  a.dry_run = ctx.dry_run;
  a.scope = ctx.scope;
  return a;
}

class AdmissionHook {
 public:
  virtual ~AdmissionHook() = default;
  virtual Task<Status> Admit(AdmissionAttributes& attrs) = 0;           // mutating
  virtual Task<Status> Validate(const AdmissionAttributes& attrs) = 0;  // validating
};

}  // namespace capstan::registry
