// server/router.h: maps request paths to handlers: exact non-resource paths (/healthz, /version, ...)
// and prefixes (/api, /apis, /openapi) owned by the endpoints layer. Unknown paths get kube's 404
// Status. Routes are registered before the server starts; Dispatch is then read-only and thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "server/http/request_context.h"

namespace capstan::server {

class Router {
 public:
  void Handle(std::string path, http::Handler h);
  // Handles `prefix` itself and everything under `prefix/`.
  void HandlePrefix(std::string prefix, http::Handler h);
  // As Handle and HandlePrefix, left out of Paths() (kube's UnlistedHandle: /debug/...).
  void HandleUnlisted(std::string path, http::Handler h);
  void HandlePrefixUnlisted(std::string prefix, http::Handler h);
  Task<void> Dispatch(http::RequestContext& ctx) const;
  // Every exact path registered (for the root "/" listing of paths).
  std::vector<std::string> Paths() const;

 private:
  std::map<std::string, http::Handler> exact_;
  std::vector<std::pair<std::string, http::Handler>> prefixes_;  // longest first
  std::vector<std::string> unlisted_;
};

// kube's answer for a path nothing serves.
Status NotFoundStatus();

}  // namespace capstan::server
