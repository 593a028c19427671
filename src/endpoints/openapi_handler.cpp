#include "endpoints/openapi_handler.h"

#include <time.h>

#include <algorithm>
#include <cstdlib>

#include "endpoints/openapi_proto.h"
#include "endpoints/openapi_v3.h"
#include "util/strings.h"

namespace capstan::endpoints {

namespace {

constexpr std::string_view kV3Prefix = "/openapi/v3";

enum class Form { kJson, kProtoV2, kProtoV3 };

struct Offer {
  std::string_view subtype;
  std::string_view content_type;
  Form form;
};

// kube-openapi's handlers: JSON first, then the protobuf forms (the "@" spelling is the older one).
constexpr Offer kV2Offers[] = {
    {"json", "application/json", Form::kJson},
    {"com.github.proto-openapi.spec.v2@v1.0+protobuf", "application/com.github.proto-openapi.spec.v2.v1.0+protobuf",
     Form::kProtoV2},
    {"com.github.proto-openapi.spec.v2.v1.0+protobuf", "application/com.github.proto-openapi.spec.v2.v1.0+protobuf",
     Form::kProtoV2},
};
constexpr Offer kV3Offers[] = {
    {"json", "application/json", Form::kJson},
    {"com.github.proto-openapi.spec.v3.v1.0+protobuf", "application/com.github.proto-openapi.spec.v3.v1.0+protobuf",
     Form::kProtoV3},
    {"com.github.proto-openapi.spec.v3@v1.0+protobuf", "application/com.github.proto-openapi.spec.v3.v1.0+protobuf",
     Form::kProtoV3},
};

bool Supported(Form f) {
  switch (f) {
    case Form::kJson: return true;
    case Form::kProtoV2: return OpenApiV2ProtobufSupported();
    case Form::kProtoV3: return false;
  }
  return false;
}

// The first offer the Accept header's clauses (in preference order) take.
template <size_t N>
const Offer* Negotiate(std::string_view accept, const Offer (&offers)[N]) {
  if (TrimSpace(accept).empty()) accept = "*/*";
  for (const AcceptClause& c : ParseAcceptClauses(accept)) {
    for (const Offer& o : offers) {
      if (c.type != "application" && c.type != "*") continue;
      if (c.subtype != o.subtype && c.subtype != "*") continue;
      if (!Supported(o.form)) continue;
      return &o;
    }
  }
  return nullptr;
}

// Seconds since the epoch of an HTTP date (Go's http.ParseTime formats). Kept in time_t: a far
// year must not overflow a clock's nanoseconds.
std::optional<time_t> ParseHttpTime(std::string_view s) {
  std::string str(TrimSpace(s));
  for (const char* fmt : {"%a, %d %b %Y %H:%M:%S GMT", "%A, %d-%b-%y %H:%M:%S GMT", "%a %b %d %H:%M:%S %Y"}) {
    struct tm tm = {};
    const char* end = strptime(str.c_str(), fmt, &tm);
    if (end != nullptr && *end == '\0') return timegm(&tm);
  }
  return std::nullopt;
}

http::HttpResponse EmptyResponse(int code) {
  http::HttpResponse r;
  r.status = code;
  r.headers.Set("Vary", "Accept");
  return r;
}

// http.ServeContent's conditional GET, then the document.
Task<void> Serve(http::RequestContext& ctx, const std::string& body, const OpenApiDocument& doc,
                 std::string_view content_type, http::Headers headers) {
  headers.Set("Content-Type", std::string(content_type));
  headers.Set("Etag", "\"" + doc.etag + "\"");
  const std::string last_modified = HttpTime(doc.modified);
  const http::Headers& req = ctx.request.headers;
  bool not_modified = false;
  if (req.Has("If-None-Match")) {
    not_modified = IfNoneMatchMatches(req.Get("If-None-Match"), doc.etag);
  } else if (req.Has("If-Modified-Since") && (ctx.request.method == "GET" || ctx.request.method == "HEAD")) {
    std::optional<time_t> since = ParseHttpTime(req.Get("If-Modified-Since"));
    not_modified = since && std::chrono::system_clock::to_time_t(doc.modified) <= *since;
  }
  http::HttpResponse resp;
  if (not_modified) {
    // Go drops the entity headers from a 304, and Last-Modified when there is an ETag.
    headers.Remove("Content-Type");
    resp.status = 304;
    resp.headers = std::move(headers);
    co_await ctx.writer->Respond(std::move(resp));
    co_return;
  }
  headers.Set("Last-Modified", last_modified);
  resp.status = 200;
  resp.headers = std::move(headers);
  resp.body = body;
  co_await ctx.writer->Respond(std::move(resp));
}

std::string ExpiresIn(std::chrono::system_clock::time_point now) {
  // time.Now().AddDate(1, 0, 0).Format(time.RFC1123) on a UTC host.
  time_t t = std::chrono::system_clock::to_time_t(now);
  struct tm tm;
  gmtime_r(&t, &tm);
  tm.tm_year += 1;
  time_t later = timegm(&tm);
  gmtime_r(&later, &tm);
  char buf[64];
  strftime(buf, sizeof(buf), "%a, %d %b %Y %H:%M:%S UTC", &tm);
  return buf;
}

}  // namespace

std::vector<AcceptClause> ParseAcceptClauses(std::string_view accept) {
  std::vector<AcceptClause> out;
  for (const std::string& part_s : Split(accept, ',')) {
    std::string_view part = TrimSpace(part_s);
    std::vector<std::string> mrp = Split(part, ';');
    std::string_view range = mrp[0];
    AcceptClause c;
    size_t slash = range.find('/');
    if (slash == std::string_view::npos) {
      if (TrimSpace(range) != "*") continue;
      c.type = "*";
      c.subtype = "*";
    } else {
      if (range.find('/', slash + 1) != std::string_view::npos) continue;
      c.type = std::string(TrimSpace(range.substr(0, slash)));
      c.subtype = std::string(TrimSpace(range.substr(slash + 1)));
    }
    for (size_t i = 1; i < mrp.size(); ++i) {
      std::string_view param = mrp[i];
      size_t eq = param.find('=');
      if (eq == std::string_view::npos) continue;
      if (TrimSpace(param.substr(0, eq)) == "q") {
        std::string v(param.substr(eq + 1));
        char* end = nullptr;
        double q = std::strtod(v.c_str(), &end);
        c.q = end != v.c_str() ? q : 0;  // goautoneg ignores the parse error and keeps 0
      }
    }
    out.push_back(std::move(c));
  }
  std::stable_sort(out.begin(), out.end(), [](const AcceptClause& a, const AcceptClause& b) {
    if (a.q != b.q) return a.q > b.q;
    if ((a.type != "*") != (b.type != "*")) return a.type != "*";
    return a.subtype != "*" && b.subtype == "*";
  });
  return out;
}

bool IfNoneMatchMatches(std::string_view inm, std::string_view etag) {
  for (const std::string& tag_s : Split(inm, ',')) {
    std::string_view tag = TrimSpace(tag_s);
    if (tag.empty()) continue;
    if (tag == "*") return true;
    if (StartsWith(tag, "W/")) tag.remove_prefix(2);
    if (tag.size() >= 2 && tag.front() == '"' && tag.back() == '"' && tag.substr(1, tag.size() - 2) == etag) {
      return true;
    }
  }
  return false;
}

std::string HttpTime(std::chrono::system_clock::time_point t) {
  time_t tt = std::chrono::system_clock::to_time_t(t);
  struct tm tm;
  gmtime_r(&tt, &tm);
  char buf[64];
  strftime(buf, sizeof(buf), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

Task<void> OpenApiHandler::HandleV2(http::RequestContext& ctx) {
  const Offer* offer = Negotiate(ctx.request.headers.Get("Accept"), kV2Offers);
  if (offer == nullptr) {
    co_await ctx.writer->Respond(EmptyResponse(406));
    co_return;
  }
  std::shared_ptr<const OpenApiDocument> doc = docs_.V2();
  http::Headers headers;
  headers.Set("Vary", "Accept");
  if (offer->form == Form::kProtoV2) {
    const std::string& pb = OpenApiDocuments::V2Protobuf(*doc);
    if (pb.empty()) {
      co_await ctx.writer->Respond(EmptyResponse(503));
      co_return;
    }
    co_await Serve(ctx, pb, *doc, offer->content_type, std::move(headers));
    co_return;
  }
  co_await Serve(ctx, doc->json, *doc, offer->content_type, std::move(headers));
}

Task<void> OpenApiHandler::HandleV3(http::RequestContext& ctx) {
  const std::string& path = ctx.request.path;
  if (path == kV3Prefix) {
    std::shared_ptr<const OpenApiDocument> index = docs_.V3Index();
    co_await Serve(ctx, index->json, *index, "application/json", http::Headers());
    co_return;
  }
  std::string_view root = std::string_view(path).substr(std::min(path.size(), kV3Prefix.size() + 1));
  std::shared_ptr<const OpenApiDocument> doc = docs_.V3(root);
  if (!doc) {
    http::HttpResponse resp;
    resp.status = 404;
    co_await ctx.writer->Respond(std::move(resp));
    co_return;
  }
  const Offer* offer = Negotiate(ctx.request.headers.Get("Accept"), kV3Offers);
  if (offer == nullptr) {
    co_await ctx.writer->Respond(EmptyResponse(406));
    co_return;
  }
  http::Headers headers;
  headers.Set("Vary", "Accept");
  std::optional<std::string> hash = ctx.request.query.Get("hash");
  if (hash && !hash->empty()) {
    if (*hash != doc->etag) {
      http::HttpResponse resp;
      resp.status = 301;
      resp.headers = std::move(headers);
      resp.headers.Set("Content-Type", std::string(offer->content_type));
      resp.headers.Set("Etag", "\"" + doc->etag + "\"");
      resp.headers.Set("Location", V3ServerRelativeUrl(std::string(root), doc->etag));
      co_await ctx.writer->Respond(std::move(resp));
      co_return;
    }
    // Replaces the chain's "no-cache, private", as kube's handler does.
    ctx.writer->extra_headers().Remove("Cache-Control");
    headers.Set("Cache-Control", "public, immutable");
    headers.Set("Expires", ExpiresIn(std::chrono::system_clock::now()));
  }
  co_await Serve(ctx, doc->json, *doc, offer->content_type, std::move(headers));
}

}  // namespace capstan::endpoints
