// server/http/websocket_connection.h: the server side of a WebSocket connection over an upgraded
// ByteStream (after the 101 of websocket::HandshakeHeaders): data messages come in whole, pings are
// answered with pongs and a close frame is answered and ends the connection; messages go out in call
// order. Used by the streaming subresources (endpoints/stream_translator.h, stream_tunnel.h).
// Thread-safety: one connection belongs to the coroutines of one executor.
#pragma once

#include <deque>
#include <optional>
#include <string>

#include "server/http/byte_stream.h"
#include "server/http/websocket.h"

namespace capstan::http {

class WebSocketConnection {
 public:
  explicit WebSocketConnection(ByteStream& io) : io_(io), writer_(io), decoder_(/*expect_masked=*/true) {}

  // The next text or binary message; nullopt once the peer closed, the connection broke, or the peer
  // broke the protocol (it is then told why with a close frame).
  Task<std::optional<websocket::Message>> Next();
  Task<bool> Send(websocket::Opcode op, std::string_view payload) {
    if (closed_) co_return false;
    co_return co_await writer_.Send(websocket::EncodeFrame(op, payload));
  }
  // Sends a close frame (once) and closes the connection.
  Task<void> Close(uint16_t code = websocket::kCloseNormal);

 private:
  ByteStream& io_;
  OrderedWriter writer_;
  websocket::Decoder decoder_;
  std::deque<websocket::Message> messages_;
  bool ended_ = false;
  bool closed_ = false;
};

}  // namespace capstan::http
