#include "admission/default_ingress_class.h"

#include <boost/json.hpp>

#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"

namespace capstan::admission {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

const json::object* Annotations(const json::object& o) {
  const json::value* md = o.if_contains("metadata");
  if (!md || !md->is_object()) return nullptr;
  const json::value* an = md->as_object().if_contains("annotations");
  return an && an->is_object() ? &an->as_object() : nullptr;
}

std::string CreationTimestamp(const json::object& o) {
  const json::value* md = o.if_contains("metadata");
  if (!md || !md->is_object()) return "";
  const json::value* t = md->as_object().if_contains("creationTimestamp");
  return t && t->is_string() ? std::string(t->as_string()) : "";
}

}  // namespace

Task<Status> DefaultIngressClass::Admit(Attributes& a) {
  if (!a.resource || a.resource->group != "networking.k8s.io" || a.resource->resource != "ingresses" ||
      !a.subresource.empty() || !a.object) {
    co_return Status();
  }
  if (const json::object* an = Annotations(*a.object); an && an->contains("kubernetes.io/ingress.class")) co_return Status();
  json::value* spec = a.object->if_contains("spec");
  if (!spec || !spec->is_object()) co_return Status();
  if (const json::value* c = spec->as_object().if_contains("ingressClassName"); c && !c->is_null()) co_return Status();
  auto classes = co_await list_("networking.k8s.io", "v1", "ingressclasses", "");
  if (!classes.ok()) {
    if (classes.status().code() == 404) co_return Status();
    co_return am::NewInternalError(classes.status().message());
  }
  const json::object* chosen = nullptr;
  for (const auto& ic : *classes) {
    const json::object* an = Annotations(ic);
    const json::value* d = an ? an->if_contains("ingressclass.kubernetes.io/is-default-class") : nullptr;
    if (!d || !d->is_string() || d->as_string() != "true") continue;
    if (!chosen || CreationTimestamp(ic) > CreationTimestamp(*chosen)) chosen = &ic;
  }
  if (chosen) spec->as_object()["ingressClassName"] = std::string(am::GetName(*chosen));
  co_return Status();
}

}  // namespace capstan::admission
