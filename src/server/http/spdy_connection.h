// server/http/spdy_connection.h: a SPDY/3.1 connection over an upgraded ByteStream, as kube's
// streaming protocols use it (httpstream/spdy over moby/spdystream): frames come in decoded, PINGs are
// answered here, and frames go out encoded in call order on one compression context. Used by Capstan
// as the client of a kubelet's exec, attach and port-forward (endpoints/stream_translator.h) and by
// the tests' kubelet as the server. No flow control is enforced, as spdystream enforces none.
// Thread-safety: one connection belongs to the coroutines of one executor.
#pragma once

#include <deque>
#include <optional>
#include <string>

#include "server/http/byte_stream.h"
#include "server/http/spdy_framer.h"

namespace capstan::http {

class SpdyConnection {
 public:
  explicit SpdyConnection(ByteStream& io) : io_(io), writer_(io) {}

  // The next frame that is not a PING; nullopt once the connection ended, broke, or sent bad frames.
  Task<std::optional<spdy::Frame>> Next();

  Task<bool> SynStream(uint32_t id, const spdy::HeaderBlock& headers, uint8_t flags = 0) {
    co_return co_await writer_.Send(encoder_.SynStream(id, 0, 0, flags, headers));
  }
  Task<bool> SynReply(uint32_t id, const spdy::HeaderBlock& headers = {}, uint8_t flags = 0) {
    co_return co_await writer_.Send(encoder_.SynReply(id, flags, headers));
  }
  // One DATA frame per 32 KiB; fin on the last (an empty frame when data is empty).
  Task<bool> Data(uint32_t id, std::string_view data, bool fin = false);
  Task<bool> RstStream(uint32_t id, uint32_t status) { co_return co_await writer_.Send(spdy::Encoder::RstStream(id, status)); }
  Task<bool> GoAway(uint32_t last_good) { co_return co_await writer_.Send(spdy::Encoder::GoAway(last_good, spdy::kGoAwayOk)); }
  void Close() { io_.Close(); }
  const std::string& error() const { return error_; }

 private:
  ByteStream& io_;
  OrderedWriter writer_;
  spdy::Encoder encoder_;
  spdy::Decoder decoder_;
  std::deque<spdy::Frame> frames_;
  bool ended_ = false;
  std::string error_;
};

}  // namespace capstan::http
