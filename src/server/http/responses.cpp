#include "server/http/responses.h"

#include <boost/json.hpp>

#include "apimachinery/status_json.h"

namespace capstan::http {

std::string StatusJson(const Status& st) { return apimachinery::StatusToJsonString(st); }

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
