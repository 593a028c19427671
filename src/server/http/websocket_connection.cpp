#include "server/http/websocket_connection.h"

namespace capstan::http {

Task<std::optional<websocket::Message>> WebSocketConnection::Next() {
  for (;;) {
    while (!messages_.empty()) {
      websocket::Message m = std::move(messages_.front());
      messages_.pop_front();
      switch (m.opcode) {
        case websocket::Opcode::kPing:
          co_await Send(websocket::Opcode::kPong, m.payload);
          continue;
        case websocket::Opcode::kPong:
          continue;
        case websocket::Opcode::kClose:
          ended_ = true;
          messages_.clear();
          co_await Close(websocket::kCloseNormal);
          co_return std::nullopt;
        default:
          co_return m;
      }
    }
    if (ended_) co_return std::nullopt;
    std::string bytes = co_await io_.Read();
    if (bytes.empty()) {
      ended_ = true;
      continue;
    }
    std::vector<websocket::Message> got;
    Status st = decoder_.Feed(bytes, &got);
    for (auto& m : got) messages_.push_back(std::move(m));
    if (!st.ok()) {
      ended_ = true;
      messages_.clear();
      co_await Close(decoder_.close_code());
      co_return std::nullopt;
    }
  }
}

Task<void> WebSocketConnection::Close(uint16_t code) {
  if (closed_) co_return;
  co_await writer_.Send(websocket::EncodeClose(code, ""));
  closed_ = true;
  io_.Close();
}

}  // namespace capstan::http
