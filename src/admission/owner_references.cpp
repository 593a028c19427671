#include "admission/owner_references.h"

#include <boost/json.hpp>
#include <map>

namespace capstan::admission {

namespace json = boost::json;

namespace {

const json::array* OwnerRefs(const json::object* obj) {
  if (!obj) return nullptr;
  const json::value* meta = obj->if_contains("metadata");
  const json::value* refs = meta && meta->is_object() ? meta->as_object().if_contains("ownerReferences") : nullptr;
  return refs && refs->is_array() ? &refs->as_array() : nullptr;
}

size_t Count(const json::array* refs) { return refs ? refs->size() : 0; }

bool Blocking(const json::value& ref) {
  const json::value* b = ref.is_object() ? ref.as_object().if_contains("blockOwnerDeletion") : nullptr;
  return b && b->is_bool() && b->as_bool();
}

std::string Field(const json::value& ref, const char* key) {
  const json::value* v = ref.is_object() ? ref.as_object().if_contains(key) : nullptr;
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

// kube's isChangingOwnerReference: at create, any reference; else a different list.
bool ChangesOwnerReferences(const json::array* now, const json::array* before, bool create) {
  if (create) return Count(now) > 0;
  if (Count(now) != Count(before)) return true;
  for (size_t i = 0; i < Count(now); ++i) {
    if ((*now)[i] != (*before)[i]) return true;
  }
  return false;
}

// kube's newBlockingOwnerDeletionRefs: blocking references that are new (by UID) or were not blocking.
std::vector<const json::value*> NewBlockingRefs(const json::array* now, const json::array* before) {
  std::vector<const json::value*> out;
  if (!now) return out;
  std::map<std::string, const json::value*> old_by_uid;
  if (before) {
    for (const auto& r : *before) old_by_uid[Field(r, "uid")] = &r;
  }
  for (const auto& r : *now) {
    if (!Blocking(r)) continue;
    auto it = old_by_uid.find(Field(r, "uid"));
    if (it == old_by_uid.end() || !Blocking(*it->second)) out.push_back(&r);
  }
  return out;
}

}  // namespace

Task<Status> OwnerReferencesPermissionEnforcement::Validate(const Attributes& a) {
  if (!a.resource || !a.object) co_return Status();
  if (a.resource->group.empty() && a.resource->resource == "pods" && a.subresource == "status") co_return Status();
  const bool create = a.operation == "CREATE";
  const json::array* now = OwnerRefs(a.object);
  const json::array* before = create ? nullptr : OwnerRefs(a.old_object);
  if (!ChangesOwnerReferences(now, before, create)) co_return Status();
  static const UserInfo kNobody;
  const UserInfo& user = a.user ? *a.user : kNobody;
  if (!create) {
    AuthorizeRequest del{"delete", a.resource->group, a.resource->version, a.resource->resource, a.subresource,
                         a.namespace_, a.name};
    if (!co_await authorize_(user, del)) {
      co_return ForbiddenFor(a, "cannot set an ownerRef on a resource you can't delete: , <nil>");
    }
  }
  auto blocking = NewBlockingRefs(now, before);
  if (blocking.empty()) co_return Status();
  if (co_await authorize_(user, AuthorizeRequest{"update", "*", "*", "*", "finalizers", "", "*"})) co_return Status();
  for (const json::value* ref : blocking) {
    std::string api_version = Field(*ref, "apiVersion");
    std::string kind = Field(*ref, "kind");
    auto mapping = map_kind_(api_version, kind);
    if (!mapping) {
      co_return ForbiddenFor(a, "cannot set blockOwnerDeletion in this case because cannot find RESTMapping for "
                                "APIVersion " + api_version + " Kind " + kind + ": no matches for kind \"" + kind +
                                    "\" in version \"" + api_version + "\"");
    }
    AuthorizeRequest fin{"update", mapping->group, mapping->version, mapping->resource, "finalizers",
                         mapping->namespaced ? a.namespace_ : "", Field(*ref, "name")};
    if (!co_await authorize_(user, fin)) {
      co_return ForbiddenFor(a, "cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set "
                                "finalizers on: , <nil>");
    }
  }
  co_return Status();
}

}  // namespace capstan::admission
