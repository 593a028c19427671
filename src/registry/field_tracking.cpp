// registry/field_tracking.cpp: managedFields bookkeeping of the Store's writes.
#include "registry/field_tracking.h"

#include <boost/json.hpp>

#include "apimachinery/managedfields/field_manager.h"

namespace capstan::registry {

namespace mf = capstan::apimachinery::managedfields;

void TrackManagedFields(const StoreConfig& c, const Context& ctx, const Object* live, Object& obj,
                        const std::string& now, const boost::json::value* requested) {
  if (requested) {
    auto& md = obj["metadata"];
    if (!md.is_object()) md = boost::json::object();
    if (requested->is_null()) {
      md.get_object().erase("managedFields");
    } else {
      md.get_object()["managedFields"] = *requested;
    }
  }
  mf::FieldManagerScope scope;
  scope.schema = c.schema;
  scope.api_version = c.info.group.empty() ? c.info.version : c.info.group + "/" + c.info.version;
  // A subresource served through this Store (scale) names itself in the Context.
  scope.subresource = c.info.subresource.empty() ? ctx.subresource : c.info.subresource;
  // The strategy already reset what this endpoint may not change; only the status subresource's
  // ownership is narrowed further, as kube's status strategies' reset fields do.
  scope.reset = c.info.subresource == "status" ? mf::ResetScope::kAllButStatus : mf::ResetScope::kNone;
  if (c.normalize_as_go && c.schema) scope.empty_object = &mf::GoZeroObject(c.schema);
  mf::RecordUpdate(scope, live, obj, ctx.field_manager, now);
}

boost::json::value RequestedManagedFields(const Object& obj) {
  const auto* md = obj.if_contains("metadata");
  if (!md || !md->is_object()) return nullptr;
  const auto* m = md->get_object().if_contains("managedFields");
  return m ? *m : boost::json::value(nullptr);
}

}  // namespace capstan::registry
