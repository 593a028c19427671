#include "endpoints/api_handler.h"

#include <boost/json.hpp>

#include "apimachinery/errors.h"
#include "apimachinery/json_write.h"
#include "endpoints/discovery.h"
#include "endpoints/handlers.h"
#include "endpoints/route_methods.h"
#include "server/http/responses.h"
#include "util/strings.h"

namespace capstan::endpoints {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

Status NotFound() {
  Status st(404, "NotFound", "the server could not find the requested resource");
  return st;
}

Task<void> WriteJson(http::RequestContext& ctx, const json::object& o, const std::string& content_type = "application/json") {
  http::HttpResponse resp;
  resp.headers.Set("Content-Type", content_type);
  resp.body = am::ToJson(o);
  resp.body.push_back('\n');
  co_await ctx.writer->Respond(std::move(resp));
}

}  // namespace

Task<void> ApiHandler::HandleDiscovery(http::RequestContext& ctx, const ApiSnapshot& snap) const {
  if (ctx.request.method != "GET" && ctx.request.method != "HEAD") {
    co_await http::RespondText(ctx, "405: Method Not Allowed", 405);
    co_return;
  }
  std::string path = ctx.request.path;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  auto parts = Split(std::string_view(path).substr(1), '/');
  std::string accept(ctx.request.headers.Get("Accept"));
  if (parts.size() == 1 && (parts[0] == "api" || parts[0] == "apis")) {
    std::string agg = AggregatedDiscoveryVersion(accept);
    if (!agg.empty()) {
      co_await WriteJson(ctx, AggregatedDiscoveryJson(snap, parts[0] == "api", agg),
                         "application/json;g=apidiscovery.k8s.io;v=" + agg + ";as=APIGroupDiscoveryList");
      co_return;
    }
    co_await WriteJson(ctx, parts[0] == "api" ? ApiVersionsJson(snap) : ApiGroupListJson(snap));
    co_return;
  }
  if (parts.size() == 2 && parts[0] == "api") {
    if (auto o = ResourceListJson(snap, "", parts[1])) {
      co_await WriteJson(ctx, *o);
      co_return;
    }
  } else if (parts.size() == 2 && parts[0] == "apis") {
    if (auto o = ApiGroupJson(snap, parts[1])) {
      co_await WriteJson(ctx, *o);
      co_return;
    }
  } else if (parts.size() == 3 && parts[0] == "apis") {
    if (auto o = ResourceListJson(snap, parts[1], parts[2])) {
      co_await WriteJson(ctx, *o);
      co_return;
    }
  }
  co_await http::RespondStatus(ctx, NotFound());
}

Task<void> ApiHandler::Handle(http::RequestContext& ctx) const {
  std::shared_ptr<const ApiSnapshot> snap = registry_.Snapshot();
  const http::RequestInfo& info = ctx.info;
  if (!info.is_resource_request) {
    co_await HandleDiscovery(ctx, *snap);
    co_return;
  }
  const ResourceEntry* entry = snap->FindResource(info.api_group, info.api_version, info.resource, info.subresource);
  if (!entry) {
    co_await http::RespondStatus(ctx, NotFound());
    co_return;
  }
  const bool core_namespaces = info.api_group.empty() && info.resource == "namespaces";
  if (entry->info.namespaced) {
    if (entry->connecter && info.namespace_.empty()) {
      co_await http::RespondStatus(ctx, NotFound());
      co_return;
    }
  } else if (!info.namespace_.empty() && !core_namespaces) {
    co_await http::RespondStatus(ctx, NotFound());
    co_return;
  }
  if (!entry->connecter) {
    switch (MatchRoute(*entry, info, ctx.request.method)) {
      case RouteMatch::kNoRoute: co_await http::RespondStatus(ctx, NotFound()); co_return;
      case RouteMatch::kMethodNotAllowed: co_await http::RespondStatus(ctx, MethodNotAllowedStatus()); co_return;
      case RouteMatch::kRouted: break;
    }
  }
  Scope s(*entry, ctx, limits_);
  if (!entry->info.namespaced) s.ctx().namespace_.clear();
  const std::string& v = info.verb;
  const am::GroupResource gr{entry->info.group, entry->info.resource};
  if (entry->connecter) {
    co_await HandleConnect(s);
  } else if (v == "get" && entry->getter) {
    co_await HandleGet(s);
  } else if (v == "list" && entry->lister) {
    co_await HandleList(s);
  } else if (v == "watch" && entry->watcher) {
    co_await HandleWatch(s);
  } else if (v == "create" && entry->creater) {
    co_await HandleCreate(s);
  } else if (v == "update" && entry->updater) {
    co_await HandleUpdate(s);
  } else if (v == "patch" && entry->patcher) {
    co_await HandlePatch(s);
  } else if (v == "delete" && entry->deleter) {
    co_await HandleDelete(s);
  } else if (v == "deletecollection" && entry->collection_deleter) {
    co_await HandleDeleteCollection(s);
  } else {
    co_await s.WriteStatus(am::NewMethodNotSupported(gr, v));
  }
}

}  // namespace capstan::endpoints
