// registry/field_tracking.cpp: managedFields bookkeeping of the Store's writes.
#include "registry/field_tracking.h"

#include "apimachinery/managedfields/field_manager.h"

namespace capstan::registry {

namespace mf = capstan::apimachinery::managedfields;

void TrackManagedFields(const StoreConfig& c, const Context& ctx, const Object* live, Object& obj,
                        const std::string& now) {
  mf::FieldManagerScope scope;
  scope.schema = c.schema;
  scope.api_version = c.info.group.empty() ? c.info.version : c.info.group + "/" + c.info.version;
  scope.subresource = c.info.subresource;
  // The strategy already reset what this endpoint may not change; only the status subresource's
  // ownership is narrowed further, as kube's status strategies' reset fields do.
  scope.reset = c.info.subresource == "status" ? mf::ResetScope::kAllButStatus : mf::ResetScope::kNone;
  if (c.normalize_as_go && c.schema) scope.empty_object = &mf::GoZeroObject(c.schema);
  mf::RecordUpdate(scope, live, obj, ctx.field_manager, now);
}

}  // namespace capstan::registry
