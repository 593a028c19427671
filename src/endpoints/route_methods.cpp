#include "endpoints/route_methods.h"

namespace capstan::endpoints {
namespace {

struct Methods {
  bool get = false, put = false, patch = false, post = false, del = false;
  bool Any() const { return get || put || patch || post || del; }
  bool Has(std::string_view m) const {
    if (m == "GET" || m == "HEAD") return get;
    if (m == "PUT") return put;
    if (m == "PATCH") return patch;
    if (m == "POST") return post;
    if (m == "DELETE") return del;
    return false;
  }
};

Methods RoutedMethods(const ResourceEntry& e, const http::RequestInfo& info) {
  Methods m;
  // The path's shape, not info.name (a list's fieldSelector=metadata.name=x also sets the name).
  const bool named = info.parts.size() >= 2;
  if (!e.info.subresource.empty()) {
    m.get = e.getter != nullptr;
    m.put = e.updater != nullptr;
    m.patch = e.patcher != nullptr;
    m.post = e.creater != nullptr;
    m.del = e.deleter != nullptr;
    return m;
  }
  // A namespaced resource across all namespaces (/api/v1/configmaps) is only listed and watched.
  const bool all_namespaces = e.info.namespaced && info.namespace_.empty();
  if (!named) {
    m.get = e.lister != nullptr || e.watcher != nullptr;
    if (!all_namespaces) {
      m.post = e.creater != nullptr;
      m.del = e.collection_deleter != nullptr;
    }
    return m;
  }
  if (all_namespaces) return m;
  m.get = e.getter != nullptr || (info.verb == "watch" && e.watcher != nullptr);
  m.put = e.updater != nullptr;
  m.patch = e.patcher != nullptr;
  m.del = e.deleter != nullptr;
  return m;
}

}  // namespace

RouteMatch MatchRoute(const ResourceEntry& entry, const http::RequestInfo& info, std::string_view method) {
  Methods m = RoutedMethods(entry, info);
  if (!m.Any()) return RouteMatch::kNoRoute;
  return m.Has(method) ? RouteMatch::kRouted : RouteMatch::kMethodNotAllowed;
}

Status MethodNotAllowedStatus() {
  Status st(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
  st.WithDetails(StatusDetails{});
  return st;
}

}  // namespace capstan::endpoints
