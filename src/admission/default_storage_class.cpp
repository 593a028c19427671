#include "admission/default_storage_class.h"

#include <boost/json.hpp>

#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"

namespace capstan::admission {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

bool IsDefault(const json::object& sc) {
  const json::value* md = sc.if_contains("metadata");
  if (!md || !md->is_object()) return false;
  const json::value* an = md->as_object().if_contains("annotations");
  if (!an || !an->is_object()) return false;
  for (const char* key : {"storageclass.kubernetes.io/is-default-class", "storageclass.beta.kubernetes.io/is-default-class"}) {
    const json::value* v = an->as_object().if_contains(key);
    if (v && v->is_string() && v->as_string() == "true") return true;
  }
  return false;
}

std::string CreationTimestamp(const json::object& o) {
  const json::value* md = o.if_contains("metadata");
  if (!md || !md->is_object()) return "";
  const json::value* t = md->as_object().if_contains("creationTimestamp");
  return t && t->is_string() ? std::string(t->as_string()) : "";
}

}  // namespace

Task<Status> DefaultStorageClass::Admit(Attributes& a) {
  if (!a.resource || !a.resource->group.empty() || a.resource->resource != "persistentvolumeclaims" ||
      !a.subresource.empty() || !a.object) {
    co_return Status();
  }
  json::object& pvc = *a.object;
  if (const json::value* md = pvc.if_contains("metadata"); md && md->is_object()) {
    const json::value* an = md->as_object().if_contains("annotations");
    if (an && an->is_object() && an->as_object().contains("volume.beta.kubernetes.io/storage-class")) co_return Status();
  }
  json::value* spec = pvc.if_contains("spec");
  if (!spec || !spec->is_object()) co_return Status();
  if (const json::value* cls = spec->as_object().if_contains("storageClassName"); cls && !cls->is_null()) co_return Status();
  auto classes = co_await list_("storage.k8s.io", "v1", "storageclasses", "");
  if (!classes.ok()) {
    if (classes.status().code() == 404) co_return Status();  // storage.k8s.io is not served
    co_return am::NewInternalError(classes.status().message());
  }
  const json::object* chosen = nullptr;
  for (const auto& sc : *classes) {
    if (!IsDefault(sc)) continue;
    if (!chosen) {
      chosen = &sc;
      continue;
    }
    // The newest default wins; equal times: the name that sorts first.
    std::string t = CreationTimestamp(sc), ct = CreationTimestamp(*chosen);
    if (t > ct || (t == ct && am::GetName(sc) < am::GetName(*chosen))) chosen = &sc;
  }
  if (!chosen) co_return Status();
  spec->as_object()["storageClassName"] = std::string(am::GetName(*chosen));
  co_return Status();
}

}  // namespace capstan::admission
