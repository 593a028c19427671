#include "endpoints/websocket_stream.h"

#include <algorithm>

#include "endpoints/upgrade_proxy.h"
#include "server/http/websocket_connection.h"
#include "util/fan_out.h"
#include "util/strings.h"

namespace capstan::endpoints {

namespace ws = http::websocket;

namespace {

constexpr size_t kMessageBytes = 2048;  // wsstream's read buffer: one message per read

// The subprotocol x/net's handshake settles on with wsstream's default reader protocols: the first
// requested one it knows ("" when none was requested); nullopt when it knows none.
std::optional<std::string> ChooseProtocol(const http::Headers& h) {
  std::vector<std::string> asked = ws::RequestedProtocols(h);
  if (asked.empty()) asked.push_back("");
  for (const auto& p : asked) {
    if (p.empty() || p == "binary.k8s.io" || p == "base64.binary.k8s.io") return p;
  }
  return std::nullopt;
}

}  // namespace

Task<void> StreamAsWebSocket(Scope& s, http::UpstreamStream& up) {
  const http::HttpRequest& in = s.http().request;
  if (!ws::HasSupportedVersion(in.headers)) {
    co_await s.http().writer->Respond(UnsupportedWebSocketVersion("missing or bad WebSocket Version"));
    co_return;
  }
  std::optional<std::string> protocol = ChooseProtocol(in.headers);
  if (!protocol) {
    http::HttpResponse r;
    r.status = 403;
    co_await s.http().writer->Respond(std::move(r));
    co_return;
  }
  const bool base64 = *protocol == "base64.binary.k8s.io";
  http::ByteStream* io = co_await s.http().writer->Upgrade(ws::HandshakeHeaders(in, *protocol));
  if (!io) {
    up.Stop();
    co_return;
  }
  http::WebSocketConnection client(*io);
  auto send = [&](std::string_view bytes) -> Task<bool> {
    if (base64) co_return co_await client.Send(ws::Opcode::kText, Base64Encode(bytes));
    co_return co_await client.Send(ws::Opcode::kBinary, bytes);
  };
  co_await ForEachConcurrently(2, 2, [&](size_t pump) -> Task<void> {
    if (pump == 0) {
      // Whatever the client sends is ignored; its close ends the stream.
      while (co_await client.Next()) {
      }
      up.Stop();
      co_return;
    }
    bool open = co_await send("");
    while (open) {
      std::optional<std::string> piece = co_await up.Next();
      if (!piece) break;
      for (size_t at = 0; open && at < piece->size(); at += kMessageBytes) {
        open = co_await send(std::string_view(*piece).substr(at, kMessageBytes));
      }
    }
    co_await client.Close();
  });
}

}  // namespace capstan::endpoints
