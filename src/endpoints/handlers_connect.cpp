// endpoints/handlers_connect.cpp: requests to Connecter subresources (pods/log, pods/exec,
// pods/attach, pods/portforward, */proxy): the method, the path after the subresource and the query go
// to the storage's Connect; its answer (or Status error) goes back as is, or comes from the server
// its location names (endpoints/connect_proxy.h).
#include <algorithm>

#include "apimachinery/errors.h"
#include "endpoints/connect_proxy.h"
#include "endpoints/handlers.h"
#include "server/http/responses.h"

namespace capstan::endpoints {

namespace am = capstan::apimachinery;

Task<void> HandleConnect(Scope& s) {
  const auto& req = s.http().request;
  const auto& info = s.http().info;
  registry::Connecter* c = s.entry().connecter;
  std::string method = req.method == "HEAD" ? "GET" : req.method;
  auto methods = c->ConnectMethods();
  if (std::find(methods.begin(), methods.end(), method) == methods.end()) {
    co_await s.WriteStatus(am::NewMethodNotSupported(s.entry().info.GroupResource(), info.verb));
    co_return;
  }
  registry::ConnectRequest cr;
  cr.method = method;
  // parts: resource, name, subresource, then the rest of the path.
  for (size_t i = 3; i < info.parts.size(); ++i) cr.path += "/" + info.parts[i];
  // kube keeps a trailing slash of the request in the subpath.
  if (req.path.ends_with("/") && !cr.path.ends_with("/")) cr.path += "/";
  for (const auto& [k, vs] : req.query.values()) {
    for (const auto& v : vs) cr.query.emplace_back(k, v);
  }
  std::string_view upgrade = req.headers.Get("Upgrade");
  cr.upgrade = !upgrade.empty();
  auto r = co_await c->Connect(s.ctx(), info.name, cr);
  if (!r.ok()) {
    co_await s.WriteStatus(r.status());
    co_return;
  }
  if (r->location) {
    co_await ServeConnectLocation(s, *r->location, s.limits().connect);
    co_return;
  }
  http::HttpResponse resp;
  resp.status = r->code;
  if (r->code != 204) {
    if (!r->content_type.empty()) resp.headers.Set("Content-Type", r->content_type);
    resp.body = std::move(r->body);
  }
  co_await s.http().writer->Respond(std::move(resp));
}

}  // namespace capstan::endpoints
