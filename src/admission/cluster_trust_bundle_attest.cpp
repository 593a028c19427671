#include "admission/cluster_trust_bundle_attest.h"

#include <boost/json.hpp>

namespace capstan::admission {

namespace json = boost::json;

bool IsOnlyMutatingGcFields(const registry::Object& obj, const registry::Object* old) {
  if (!old) return false;
  json::object copied = obj;
  const json::value* old_meta = old->if_contains("metadata");
  json::value& meta = copied["metadata"];
  if (!meta.is_object()) meta = json::object();
  for (const char* field : {"ownerReferences", "finalizers", "selfLink", "managedFields"}) {
    const json::value* from = old_meta && old_meta->is_object() ? old_meta->as_object().if_contains(field) : nullptr;
    if (from) {
      meta.as_object()[field] = *from;
    } else {
      meta.as_object().erase(field);
    }
  }
  if (!old->contains("metadata") && meta.as_object().empty()) copied.erase("metadata");
  return copied == *old;
}

Task<Status> ClusterTrustBundleAttest::Validate(const Attributes& a) {
  if (!enabled_) co_return Status();
  if (!a.resource || a.resource->group != "certificates.k8s.io" || a.resource->resource != "clustertrustbundles") {
    co_return Status();
  }
  if (!a.object) co_return ForbiddenFor(a, "expected type ClusterTrustBundle, got: <nil>");
  std::string signer;
  if (const json::value* spec = a.object->if_contains("spec"); spec && spec->is_object()) {
    if (const json::value* s = spec->as_object().if_contains("signerName"); s && s->is_string()) signer = s->as_string();
  }
  if (signer.empty()) co_return Status();
  if (a.operation == "UPDATE" && IsOnlyMutatingGcFields(*a.object, a.old_object)) co_return Status();
  static const UserInfo kNobody;
  if (!co_await IsAuthorizedForSignerName(authorize_, a.user ? *a.user : kNobody, "attest", signer)) {
    co_return ForbiddenFor(a, "user not permitted to attest for signerName \"" + signer + "\"");
  }
  co_return Status();
}

}  // namespace capstan::admission
