// endpoints/handlers.h: one handler per verb, each turning an HTTP request into a call on a REST
// storage capability and its result into a response, as kube's endpoints/handlers do.
#pragma once

#include "endpoints/scope.h"

namespace capstan::endpoints {

Task<void> HandleGet(Scope& s);
Task<void> HandleList(Scope& s);
Task<void> HandleWatch(Scope& s);
Task<void> HandleCreate(Scope& s);
Task<void> HandleUpdate(Scope& s);
Task<void> HandlePatch(Scope& s);
Task<void> HandleDelete(Scope& s);
Task<void> HandleDeleteCollection(Scope& s);
// Any method on a Connecter subresource (pods/log, pods/exec, services/proxy, ...).
Task<void> HandleConnect(Scope& s);

// ListOptions from the query, validated as kube's ValidateListOptions (422 ListOptions.meta.k8s.io).
StatusOr<registry::ListOptions> ParseListOptions(const http::Query& q);

}  // namespace capstan::endpoints
