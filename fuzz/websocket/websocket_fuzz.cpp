// websocket_fuzz: the bytes one WebSocket peer sends, fed to a Decoder as a server (masked frames
// expected) or as a client. The first byte picks the side, the limit and how the rest is split; the
// next two seed the split points. Must never crash or read out of bounds; must find the same messages
// and the same violation however the input is split; and the messages it finds, encoded again (as
// the same peer, fragmented or not), must decode to themselves.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/http/websocket.h"

using namespace capstan::http::websocket;

namespace {

struct Outcome {
  std::vector<Message> messages;
  uint16_t close_code = 0;
};

// Feeds data in pieces: whole when seed is 0, else at pseudo-random points (one byte at a time when
// max_piece is 1).
Outcome Decode(bool server, DecoderLimits limits, std::string_view data, uint32_t seed, size_t max_piece) {
  Decoder d(server, limits);
  Outcome o;
  size_t pos = 0;
  while (pos < data.size()) {
    size_t n = data.size() - pos;
    if (seed != 0) {
      seed = seed * 1103515245u + 12345u;
      n = std::min(n, 1 + (seed >> 16) % max_piece);
    }
    if (!d.Feed(data.substr(pos, n), &o.messages).ok()) {
      if (d.close_code() == 0) __builtin_trap();
      // A failed decoder stays failed.
      std::vector<Message> more;
      if (d.Feed("\x81", &more).ok() || !more.empty()) __builtin_trap();
      break;
    }
    if (d.close_code() != 0) __builtin_trap();
    pos += n;
  }
  o.close_code = d.close_code();
  return o;
}

bool Same(const Outcome& a, const Outcome& b) { return a.close_code == b.close_code && a.messages == b.messages; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const uint8_t flags = data[0];
  const uint32_t seed = 1u + ((uint32_t{data[1]} << 8) | data[2]);
  std::string_view in(reinterpret_cast<const char*>(data) + 3, size - 3);
  const bool server = flags & 1;
  DecoderLimits limits;
  if (flags & 2) limits.max_message_bytes = 1024;
  const bool fragment = flags & 4;

  Outcome whole = Decode(server, limits, in, 0, 0);
  if (!Same(whole, Decode(server, limits, in, seed, 64))) __builtin_trap();
  if (in.size() <= 512 && !Same(whole, Decode(server, limits, in, seed, 1))) __builtin_trap();

  // Encode what was found again, as the same peer, and decode it.
  std::string again;
  uint32_t mask = seed * 2654435761u;
  auto next_mask = [&]() -> std::optional<uint32_t> {
    if (!server) return std::nullopt;
    mask = mask * 1664525u + 1013904223u;
    return mask;
  };
  for (const Message& m : whole.messages) {
    if (m.payload.size() > limits.max_message_bytes) __builtin_trap();
    if (IsControl(m.opcode)) {
      if (m.payload.size() > kMaxControlPayload) __builtin_trap();
      if (m.opcode == Opcode::kClose && m.payload.size() >= 2) {
        auto [code, reason] = ParseClose(m.payload);
        if (EncodeClose(code, reason).substr(2) != m.payload) __builtin_trap();
      }
      again += EncodeFrame(m.opcode, m.payload, true, next_mask());
    } else if (m.opcode != Opcode::kText && m.opcode != Opcode::kBinary) {
      __builtin_trap();
    } else if (fragment && !m.payload.empty()) {
      size_t cut = seed % (m.payload.size() + 1);
      std::string_view p(m.payload);
      again += EncodeFrame(m.opcode, p.substr(0, cut), false, next_mask());
      again += EncodeFrame(Opcode::kPing, "", true, next_mask());
      again += EncodeFrame(Opcode::kContinuation, p.substr(cut), true, next_mask());
    } else {
      again += EncodeFrame(m.opcode, m.payload, true, next_mask());
    }
  }
  Outcome re = Decode(server, limits, again, 0, 0);
  if (re.close_code != 0) __builtin_trap();
  std::vector<Message> expected;
  for (const Message& m : whole.messages) {
    if (fragment && !IsControl(m.opcode) && !m.payload.empty()) expected.push_back({Opcode::kPing, ""});
    expected.push_back(m);
  }
  if (re.messages != expected) __builtin_trap();
  return 0;
}
