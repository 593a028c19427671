// endpoints/route_methods.h: the HTTP methods kube's API installer registers on a resource path,
// derived from the storage's capabilities (as the installer derives them). kube's router (go-restful)
// answers a method that has no route on an existing path with 405 MethodNotAllowed, "the server does
// not allow this method on the requested resource", and a path with no route at all with 404, before
// any handler runs:
//   collection  /…/configmaps          GET (list, watch), POST (create), DELETE (deletecollection)
//   all namespaces /api/v1/configmaps  GET only
//   object      /…/configmaps/x        GET, PUT (update), PATCH, DELETE
//   subresource /…/pods/x/status       GET, PUT, PATCH, POST (eviction, binding, token), DELETE
// Connect subresources (exec, proxy, ...) list their own methods and are not covered here. Pure.
#pragma once

#include <string_view>

#include "endpoints/api_registry.h"
#include "server/http/request_info.h"

namespace capstan::endpoints {

enum class RouteMatch { kNoRoute, kMethodNotAllowed, kRouted };

RouteMatch MatchRoute(const ResourceEntry& entry, const http::RequestInfo& info, std::string_view method);

// go-restful's 405 as kube's serviceErrorHandler writes it (NewGenericServerResponse: no details).
Status MethodNotAllowedStatus();

}  // namespace capstan::endpoints
