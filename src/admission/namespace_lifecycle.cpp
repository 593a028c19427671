#include "admission/namespace_lifecycle.h"

#include "apimachinery/errors.h"

namespace capstan::admission {

namespace am = capstan::apimachinery;

namespace {
bool IsNamespace(const Attributes& a) {
  return a.resource && a.resource->group.empty() && a.resource->resource == "namespaces";
}
bool IsAccessReview(const Attributes& a) {
  if (!a.resource) return false;
  const auto& g = a.resource->group;
  const auto& r = a.resource->resource;
  return (g == "authorization.k8s.io" && (r == "localsubjectaccessreviews" || r == "subjectaccessreviews" ||
                                          r == "selfsubjectaccessreviews" || r == "selfsubjectrulesreviews")) ||
         (g == "authentication.k8s.io" && (r == "tokenreviews" || r == "selfsubjectreviews"));
}
}  // namespace

Task<Status> NamespaceLifecycle::Admit(Attributes& a) {
  if (a.operation == "DELETE" && IsNamespace(a) && a.subresource.empty() &&
      (a.name == "default" || a.name == "kube-system" || a.name == "kube-public")) {
    co_return ForbiddenFor(a, "this namespace may not be deleted");
  }
  if (a.namespace_.empty() || IsNamespace(a)) co_return Status();
  if (a.operation != "CREATE" || IsAccessReview(a)) co_return Status();
  auto ns = co_await lookup_(a.namespace_);
  if (!ns.ok()) {
    if (am::IsNotFound(ns.status())) co_return am::NewNotFound({"", "namespaces"}, a.namespace_);
    co_return am::NewInternalError(ns.status().message());
  }
  const auto* status = ns->if_contains("status");
  const boost::json::value* phase = status && status->is_object() ? status->get_object().if_contains("phase") : nullptr;
  if (phase && phase->is_string() && phase->get_string() == "Terminating") {
    Status st = ForbiddenFor(a, "unable to create new content in namespace " + a.namespace_ +
                                    " because it is being terminated");
    st.mutable_details().causes.push_back(
        {"NamespaceTerminating", "namespace " + a.namespace_ + " is being terminated", "metadata.namespace"});
    co_return st;
  }
  co_return Status();
}

Task<Status> NamespaceExists::Validate(const Attributes& a) {
  if (a.namespace_.empty() || IsNamespace(a)) co_return Status();
  auto ns = co_await lookup_(a.namespace_);
  if (ns.ok()) co_return Status();
  if (am::IsNotFound(ns.status())) co_return am::NewNotFound({"", "namespaces"}, a.namespace_);
  co_return am::NewInternalError(ns.status().message());
}

Task<Status> NamespaceAutoProvision::Admit(Attributes& a) {
  if (a.dry_run || a.namespace_.empty() || IsNamespace(a)) co_return Status();
  auto ns = co_await lookup_(a.namespace_);
  if (ns.ok()) co_return Status();
  if (!am::IsNotFound(ns.status())) co_return ForbiddenFor(a, ns.status().message());
  Status created = co_await create_(a.namespace_);
  if (!created.ok() && created.reason() != "AlreadyExists") co_return ForbiddenFor(a, created.message());
  co_return Status();
}

}  // namespace capstan::admission
