// endpoints/handlers_read.cpp: GET of one object and LIST.
#include "apimachinery/errors.h"
#include "endpoints/handlers.h"
#include "util/feature_gate.h"

namespace capstan::endpoints {

namespace am = capstan::apimachinery;

StatusOr<registry::ListOptions> ParseListOptions(const http::Query& q) {
  registry::ListOptions o;
  o.label_selector = q.GetOr("labelSelector", "");
  o.field_selector = q.GetOr("fieldSelector", "");
  o.resource_version = q.GetOr("resourceVersion", "");
  o.resource_version_match = q.GetOr("resourceVersionMatch", "");
  o.continue_token = q.GetOr("continue", "");
  auto limit = QueryInt(q, "limit");
  if (!limit.ok()) return limit.TakeStatus();
  o.limit = limit->value_or(0);
  if (o.limit < 0) o.limit = 0;
  o.watch = QueryBool(q, "watch").value_or(false);
  o.allow_watch_bookmarks = QueryBool(q, "allowWatchBookmarks").value_or(false);
  auto timeout = QueryInt(q, "timeoutSeconds");
  if (!timeout.ok()) return timeout.TakeStatus();
  o.timeout_seconds = *timeout;
  o.send_initial_events = QueryBool(q, "sendInitialEvents");

  ErrorList errs;
  const std::string& match = o.resource_version_match;
  FieldPath match_path("resourceVersionMatch");
  if (o.watch) {
    if (o.send_initial_events && match != "NotOlderThan") {
      errs.push_back(ForbiddenError(match_path, "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"));
    }
    if (o.send_initial_events && !features::Enabled("WatchList")) {
      errs.push_back(ForbiddenError(FieldPath("sendInitialEvents"),
                                    "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled"));
    }
    if (!match.empty()) {
      if (!o.send_initial_events) {
        errs.push_back(ForbiddenError(match_path, "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"));
      }
      if (match != "NotOlderThan") errs.push_back(NotSupportedError(match_path, match, {"NotOlderThan"}));
      if (!o.continue_token.empty()) {
        errs.push_back(ForbiddenError(match_path, "resourceVersionMatch is forbidden when continue is provided"));
      }
    }
  } else {
    if (!match.empty()) {
      if (o.resource_version.empty()) {
        errs.push_back(ForbiddenError(match_path, "resourceVersionMatch is forbidden unless resourceVersion is provided"));
      }
      if (!o.continue_token.empty()) {
        errs.push_back(ForbiddenError(match_path, "resourceVersionMatch is forbidden when continue is provided"));
      }
      if (match != "Exact" && match != "NotOlderThan") {
        errs.push_back(NotSupportedError(match_path, match, {"Exact", "NotOlderThan", ""}));
      }
      if (match == "Exact" && o.resource_version == "0") {
        errs.push_back(ForbiddenError(match_path, "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""));
      }
    }
    if (o.send_initial_events) errs.push_back(ForbiddenError(FieldPath("sendInitialEvents"), "sendInitialEvents is forbidden for list"));
  }
  if (!errs.empty()) return am::NewInvalid({"meta.k8s.io", "ListOptions"}, "", errs);
  return o;
}

Task<void> HandleGet(Scope& s) {
  if (!co_await s.NegotiateOutputOrFail()) co_return;
  registry::GetOptions opts;
  opts.resource_version = s.http().request.query.GetOr("resourceVersion", "");
  auto obj = co_await s.entry().getter->Get(s.ctx(), s.http().info.name, opts);
  if (!obj.ok()) {
    co_await s.WriteStatus(obj.status());
    co_return;
  }
  co_await s.WriteObject(200, *obj);
}

Task<void> HandleList(Scope& s) {
  if (!co_await s.NegotiateOutputOrFail()) co_return;
  auto opts = ParseListOptions(s.http().request.query);
  if (!opts.ok()) {
    co_await s.WriteStatus(opts.status());
    co_return;
  }
  // Plain JSON is written from the storage's shared bytes when it has them (the watch cache).
  opts->accept_serialized = s.output().conversion == Conversion::kNone && s.output().format == MediaFormat::kJson;
  auto list = co_await s.entry().lister->List(s.ctx(), *opts);
  if (!list.ok()) {
    co_await s.WriteStatus(list.status());
    co_return;
  }
  co_await s.WriteList(*list);
}

}  // namespace capstan::endpoints
