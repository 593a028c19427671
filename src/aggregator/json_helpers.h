// aggregator/json_helpers.h: small JSON and response helpers shared by the aggregator's sources
// (internal to src/aggregator). Pure functions; thread-safe.
#pragma once

#include <boost/json.hpp>
#include <string>
#include <string_view>

#include "apimachinery/json_write.h"
#include "server/http/request_context.h"

namespace capstan::aggregator::detail {

namespace json = boost::json;

inline constexpr const char* kGroup = "apiregistration.k8s.io";

inline std::string Str(const json::object& o, std::string_view k) {
  const json::value* v = o.if_contains(k);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}
inline const json::object* Obj(const json::object& o, std::string_view k) {
  const json::value* v = o.if_contains(k);
  return v && v->is_object() ? &v->as_object() : nullptr;
}
inline const json::array* Arr(const json::object& o, std::string_view k) {
  const json::value* v = o.if_contains(k);
  return v && v->is_array() ? &v->as_array() : nullptr;
}
inline std::string ResourceVersionOf(const json::object& o) {
  const json::object* md = Obj(o, "metadata");
  return md ? Str(*md, "resourceVersion") : std::string();
}
inline std::string Quote(const std::string& s) { return "\"" + s + "\""; }

// Go's http.Error: text/plain with a newline, as kube's proxy answers when it cannot proxy.
inline Task<void> HttpError(http::RequestContext& ctx, std::string text, int code) {
  http::HttpResponse resp;
  resp.status = code;
  resp.headers.Set("Content-Type", "text/plain; charset=utf-8");
  resp.headers.Set("X-Content-Type-Options", "nosniff");
  resp.body = text + "\n";
  co_await ctx.writer->Respond(std::move(resp));
}

inline Task<void> WriteJson(http::RequestContext& ctx, const json::object& o, std::string content_type) {
  http::HttpResponse resp;
  resp.headers.Set("Content-Type", content_type);
  resp.body = apimachinery::ToJson(o);
  resp.body.push_back('\n');
  co_await ctx.writer->Respond(std::move(resp));
}

}  // namespace capstan::aggregator::detail
