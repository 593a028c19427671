// http2_session_fuzz: an HTTP/2 server session fed the connection preface and then arbitrary bytes (in
// pieces whose sizes the input chooses), its output drained after every piece, its posted functions
// run. The handler answers whole, streamed and empty responses. At the end the session is cancelled:
// every handler must then finish (a handler left suspended would be a leak in a real server).
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>

#include "server/http2_session.h"

using namespace capstan;
using namespace capstan::server;

namespace {

Task<void> Handle(http::RequestContext& ctx) {
  const std::string& p = ctx.request.path;
  if (p.find("stream") != std::string::npos) {
    if (!co_await ctx.writer->StartStream(200, {})) co_return;
    for (int i = 0; i < 8; ++i) {
      if (!co_await ctx.writer->WriteChunk(std::string(700, static_cast<char>('a' + i)))) co_return;
    }
    co_await ctx.writer->EndStream();
    co_return;
  }
  if (p.find("none") != std::string::npos) co_return;  // the session answers 500
  http::HttpResponse resp;
  resp.headers.Add("Content-Type", "text/plain");
  resp.headers.Add("Connection", "close");  // must be dropped
  resp.body = std::string(ctx.request.body.size() + 3000, 'x');
  co_await ctx.writer->Respond(std::move(resp));
}

Task<void> WaitAll(Http2Session& s, bool& done) {
  co_await s.WaitHandlers();
  done = true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::deque<std::function<void()>> posted;
  Http2Limits limits;
  limits.max_concurrent_streams = 8;
  limits.max_body_bytes = 4096;
  limits.max_header_list_bytes = 2048;
  limits.max_header_count = 20;
  limits.stream_send_buffer = 1024;
  Http2Session::Hooks hooks;
  hooks.handler = Handle;
  hooks.want_write = [] {};
  hooks.post = [&posted](std::function<void()> fn) { posted.push_back(std::move(fn)); };
  {
    Http2Session session(limits, std::move(hooks));
    auto run_posted = [&] {
      for (int guard = 0; !posted.empty() && guard < 10000; ++guard) {
        auto fn = std::move(posted.front());
        posted.pop_front();
        fn();
      }
    };
    auto drain = [&] {
      for (int i = 0; i < 64; ++i) {
        run_posted();
        if (session.TakeOutput(16384).empty() && posted.empty()) break;
      }
    };
    std::string_view in(reinterpret_cast<const char*>(data), size);
    bool ok = session.Feed("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
    drain();
    // The first byte of each piece says how long the piece is.
    while (ok && !in.empty()) {
      size_t n = 1 + static_cast<uint8_t>(in[0]) * 4;
      in.remove_prefix(1);
      n = std::min(n, in.size());
      ok = session.Feed(in.substr(0, n));
      in.remove_prefix(n);
      drain();
    }
    session.CancelAll();
    bool done = false;
    Spawn(WaitAll(session, done));
    run_posted();
    if (!done) __builtin_trap();  // a handler did not finish after its session was cancelled
  }
  // Functions posted by finishing handlers must be harmless once the session is gone.
  for (auto& fn : posted) fn();
  return 0;
}
