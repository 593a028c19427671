// endpoints/api_handler.h: the handler behind /api and /apis: discovery documents, and REST requests
// routed by their request info (group, version, resource, subresource, verb) to the handler of the
// storage capability that serves them. Reads the ApiRegistry snapshot once per request; thread-safe.
#pragma once

#include "endpoints/api_registry.h"
#include "endpoints/scope.h"
#include "server/http/request_context.h"

namespace capstan::endpoints {

class ApiHandler {
 public:
  ApiHandler(const ApiRegistry& registry, HandlerLimits limits) : registry_(registry), limits_(limits) {}
  Task<void> Handle(http::RequestContext& ctx) const;

 private:
  Task<void> HandleDiscovery(http::RequestContext& ctx, const ApiSnapshot& snap) const;

  const ApiRegistry& registry_;
  HandlerLimits limits_;
};

}  // namespace capstan::endpoints
