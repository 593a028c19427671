#include "server/http/responses.h"

#include <boost/json.hpp>

namespace capstan::http {

std::string StatusJson(const Status& st) {
  // TODO: use apimachinery's metav1.Status encoder once errors.h lands, so there is one encoder.
  boost::json::object o;
  o["kind"] = "Status";
  o["apiVersion"] = "v1";
  o["metadata"] = boost::json::object();
  if (!st.list_continue().empty()) o["metadata"] = boost::json::object{{"continue", st.list_continue()}};
  o["status"] = st.ok() ? "Success" : "Failure";
  if (!st.message().empty()) o["message"] = st.message();
  if (!st.reason().empty()) o["reason"] = st.reason();
  const auto& d = st.details();
  if (st.has_details()) {  // kube writes details:{} when the Status carries an empty one (405)
    boost::json::object det;
    if (!d.name.empty()) det["name"] = d.name;
    if (!d.group.empty()) det["group"] = d.group;
    if (!d.kind.empty()) det["kind"] = d.kind;
    if (!d.uid.empty()) det["uid"] = d.uid;
    if (!d.causes.empty()) {
      boost::json::array causes;
      for (const auto& c : d.causes) {
        boost::json::object co;
        if (!c.type.empty()) co["reason"] = c.type;
        if (!c.message.empty()) co["message"] = c.message;
        if (!c.field.empty()) co["field"] = c.field;
        causes.push_back(std::move(co));
      }
      det["causes"] = std::move(causes);
    }
    if (d.retry_after_seconds) det["retryAfterSeconds"] = d.retry_after_seconds;
    o["details"] = std::move(det);
  }
  o["code"] = st.ok() ? 200 : st.code();
  return boost::json::serialize(o);
}

HttpResponse StatusResponse(const Status& st) {
  HttpResponse r;
  r.status = st.ok() ? 200 : st.code();
  r.headers.Set("Content-Type", "application/json");
  if (st.details().retry_after_seconds > 0) {
    r.headers.Set("Retry-After", std::to_string(st.details().retry_after_seconds));
  }
  r.body = StatusJson(st);
  r.body.push_back('\n');
  return r;
}

HttpResponse JsonResponse(std::string body, int code) {
  HttpResponse r;
  r.status = code;
  r.headers.Set("Content-Type", "application/json");
  r.body = std::move(body);
  return r;
}

HttpResponse TextResponse(std::string body, int code) {
  HttpResponse r;
  r.status = code;
  r.headers.Set("Content-Type", "text/plain; charset=utf-8");
  r.headers.Set("X-Content-Type-Options", "nosniff");
  r.body = std::move(body);
  return r;
}

Task<void> RespondStatus(RequestContext& ctx, const Status& st) { co_await ctx.writer->Respond(StatusResponse(st)); }
Task<void> RespondJson(RequestContext& ctx, std::string body, int code) {
  co_await ctx.writer->Respond(JsonResponse(std::move(body), code));
}
Task<void> RespondText(RequestContext& ctx, std::string body, int code) {
  co_await ctx.writer->Respond(TextResponse(std::move(body), code));
}

}  // namespace capstan::http
