#include "server/http/spdy_connection.h"

#include <algorithm>

namespace capstan::http {

Task<std::optional<spdy::Frame>> SpdyConnection::Next() {
  for (;;) {
    while (!frames_.empty()) {
      spdy::Frame f = std::move(frames_.front());
      frames_.pop_front();
      if (f.type == spdy::FrameType::kPing) {
        // A peer's ping (odd ids from clients, even from servers) is echoed; our own are not sent.
        co_await writer_.Send(spdy::Encoder::Ping(f.ping_id));
        continue;
      }
      co_return f;
    }
    if (ended_) co_return std::nullopt;
    std::string bytes = co_await io_.Read();
    if (bytes.empty()) {
      ended_ = true;
      continue;
    }
    std::vector<spdy::Frame> got;
    Status st = decoder_.Feed(bytes, &got);
    for (auto& f : got) frames_.push_back(std::move(f));
    if (!st.ok()) {
      error_ = st.message();
      ended_ = true;
      io_.Close();
    }
  }
}

Task<bool> SpdyConnection::Data(uint32_t id, std::string_view data, bool fin) {
  constexpr size_t kChunk = 32 * 1024;
  std::string out;
  do {
    size_t n = std::min(kChunk, data.size());
    bool last = n == data.size();
    out += spdy::Encoder::Data(id, last && fin ? spdy::kFlagFin : 0, data.substr(0, n));
    data.remove_prefix(n);
  } while (!data.empty());
  co_return co_await writer_.Send(std::move(out));
}

}  // namespace capstan::http
