#include "admission/pvc_resize.h"

#include <boost/json.hpp>

#include "apimachinery/quantity.h"

namespace capstan::admission {

namespace json = boost::json;
using apimachinery::ParseQuantityJson;
using apimachinery::Quantity;

namespace {

const json::value* At(const json::object& o, std::initializer_list<const char*> path) {
  const json::value* v = nullptr;
  const json::object* cur = &o;
  for (const char* key : path) {
    if (!cur) return nullptr;
    v = cur->if_contains(key);
    if (!v) return nullptr;
    cur = v->is_object() ? &v->as_object() : nullptr;
  }
  return v;
}

std::string StringAt(const json::object& o, std::initializer_list<const char*> path) {
  const json::value* v = At(o, path);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

// kube's GetPersistentVolumeClaimClass: the beta annotation wins over spec.storageClassName.
std::string ClaimClass(const json::object& pvc) {
  const json::value* ann = At(pvc, {"metadata", "annotations"});
  if (ann && ann->is_object()) {
    if (const json::value* c = ann->as_object().if_contains("volume.beta.kubernetes.io/storage-class")) {
      if (c->is_string()) return std::string(c->as_string());
    }
  }
  return StringAt(pvc, {"spec", "storageClassName"});
}

// The requested storage size; zero when absent or unparsable (validation has refused those already).
Quantity RequestedStorage(const json::object& pvc) {
  const json::value* v = At(pvc, {"spec", "resources", "requests", "storage"});
  if (!v) return Quantity();
  auto q = ParseQuantityJson(*v);
  return q.ok() ? *q : Quantity();
}

}  // namespace

Task<Status> PersistentVolumeClaimResize::Validate(const Attributes& a) {
  if (!a.resource || !a.resource->group.empty() || a.resource->resource != "persistentvolumeclaims" ||
      !a.subresource.empty() || !a.object || !a.old_object) {
    co_return Status();
  }
  if (RequestedStorage(*a.object).Cmp(RequestedStorage(*a.old_object)) <= 0) co_return Status();
  if (StringAt(*a.old_object, {"status", "phase"}) != "Bound") {
    co_return ForbiddenFor(a, "Only bound persistent volume claims can be expanded");
  }
  std::string cls = ClaimClass(*a.object);
  bool allowed = false;
  if (!cls.empty() && cls == ClaimClass(*a.old_object)) {
    auto sc = co_await get_("storage.k8s.io", "v1", "storageclasses", "", cls);
    if (sc.ok()) {
      const json::value* expand = sc->if_contains("allowVolumeExpansion");
      allowed = expand && expand->is_bool() && expand->as_bool();
    }
  }
  if (!allowed) {
    co_return ForbiddenFor(a, "only dynamically provisioned pvc can be resized and the storageclass that provisions "
                              "the pvc must support resize");
  }
  co_return Status();
}

}  // namespace capstan::admission
