#include "admission/storage_object_in_use_protection.h"

#include <boost/json.hpp>

namespace capstan::admission {

namespace json = boost::json;

namespace {

void AddFinalizer(json::object& obj, const char* finalizer) {
  json::value& md = obj["metadata"];
  if (!md.is_object()) md = json::object();
  json::value& f = md.as_object()["finalizers"];
  if (!f.is_array()) f = json::array();
  for (const auto& x : f.as_array()) {
    if (x.is_string() && x.as_string() == finalizer) return;
  }
  f.as_array().emplace_back(finalizer);
}

}  // namespace

Task<Status> StorageObjectInUseProtection::Admit(Attributes& a) {
  if (!a.resource || !a.resource->group.empty() || !a.subresource.empty() || !a.object) co_return Status();
  if (a.resource->resource == "persistentvolumeclaims") {
    AddFinalizer(*a.object, kPvcProtectionFinalizer);
  } else if (a.resource->resource == "persistentvolumes") {
    AddFinalizer(*a.object, kPvProtectionFinalizer);
  }
  co_return Status();
}

}  // namespace capstan::admission
