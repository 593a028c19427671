// http_request_fuzz: the bytes of a connection as the server reads them: the HTTP/1.1 request parser
// (fed in arbitrary pieces), then request-info resolution and query parsing on whatever request it
// produced. Must never crash, hang or read out of bounds, and must give the same result however the
// input is split.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "server/http/http_parser.h"
#include "server/http/request_info.h"

using namespace capstan::http;

namespace {

struct Outcome {
  RequestParser::Result result;
  int status = 0;
  std::string method, path, body;
};

Outcome Parse(std::string_view data, size_t piece) {
  ParserLimits limits;
  limits.max_header_bytes = 8192;
  limits.max_body_bytes = 65536;
  RequestParser p(limits);
  Outcome o;
  o.result = RequestParser::Result::kNeedMore;
  size_t pos = 0;
  while (pos < data.size()) {
    size_t n = std::min(piece, data.size() - pos);
    size_t used = 0;
    o.result = p.Feed(data.substr(pos, n), &used);
    if (o.result != RequestParser::Result::kNeedMore) {
      pos += used;
      break;
    }
    if (used != n) __builtin_trap();  // NeedMore must consume everything it was given
    pos += n;
  }
  if (o.result == RequestParser::Result::kDone) {
    HttpRequest r = p.TakeRequest();
    o.method = r.method;
    o.path = r.path;
    o.body = r.body;
    RequestInfo info;
    (void)ResolveRequestInfo(r.method, r.path, r.query, info);
    (void)IsLongRunning(info);
  } else if (o.result == RequestParser::Result::kError) {
    o.status = p.error_status();
  }
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  Outcome whole = Parse(in, in.size() + 1);
  Outcome bytewise = Parse(in, 1);
  Outcome sevens = Parse(in, 7);
  // Splitting the input must not change what was parsed.
  if (whole.result != bytewise.result || whole.result != sevens.result) __builtin_trap();
  if (whole.result == RequestParser::Result::kDone &&
      (whole.path != bytewise.path || whole.body != bytewise.body || whole.body != sevens.body)) {
    __builtin_trap();
  }
  if (whole.result == RequestParser::Result::kError && whole.status != bytewise.status) __builtin_trap();
  return 0;
}
