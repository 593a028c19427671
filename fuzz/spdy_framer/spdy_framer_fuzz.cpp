// spdy_framer_fuzz: the first byte seeds where the rest is split; the rest is what a SPDY/3.1 peer sent.
// The decoder must never crash, hang or read out of bounds, and must give the same frames and the same
// outcome however the bytes are split. Every frame it returns, encoded again by a fresh Encoder, must
// decode (with a fresh Decoder) to the same frame: what we read, we can also write.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "server/http/spdy_framer.h"

using namespace capstan::http::spdy;

namespace {

DecoderLimits FuzzLimits() {
  DecoderLimits limits;
  limits.max_frame_bytes = 2048;
  limits.max_header_block_bytes = 16 << 10;
  limits.max_header_count = 64;
  return limits;
}

struct Outcome {
  bool ok = true;
  std::vector<Frame> frames;
};

Outcome Decode(std::string_view in, uint8_t seed) {
  Decoder d(FuzzLimits());
  Outcome o;
  uint32_t state = seed * 2654435761u + 1;
  size_t pos = 0;
  while (pos < in.size()) {
    state = state * 1103515245u + 12345u;
    size_t n = seed == 0 ? in.size() : std::min<size_t>(1 + (state >> 16) % 64, in.size() - pos);
    if (!d.Feed(in.substr(pos, n), &o.frames).ok()) {
      o.ok = false;
      // Unusable from now on.
      std::vector<Frame> more;
      if (d.Feed(std::string_view(), &more).ok() || !more.empty()) __builtin_trap();
      return o;
    }
    pos += n;
  }
  return o;
}

std::string Encode(Encoder& e, const Frame& f) {
  switch (f.type) {
    case FrameType::kData: return Encoder::Data(f.stream_id, f.flags, f.data);
    case FrameType::kSynStream: return e.SynStream(f.stream_id, f.associated_id, f.priority, f.flags, f.headers);
    case FrameType::kSynReply: return e.SynReply(f.stream_id, f.flags, f.headers);
    case FrameType::kHeaders: return e.Headers(f.stream_id, f.flags, f.headers);
    case FrameType::kRstStream: return Encoder::RstStream(f.stream_id, f.status);
    case FrameType::kSettings: return Encoder::Settings(f.settings, f.flags);
    case FrameType::kPing: return Encoder::Ping(f.ping_id);
    case FrameType::kGoAway: return Encoder::GoAway(f.last_good_stream_id, f.status);
    case FrameType::kWindowUpdate: return Encoder::WindowUpdate(f.stream_id, f.delta_window);
  }
  __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  Outcome whole = Decode(in, 0);
  Outcome split = Decode(in, data[0] | 1);
  if (whole.ok != split.ok || whole.frames != split.frames) __builtin_trap();

  Encoder e;
  std::string again;
  for (const Frame& f : whole.frames) {
    again += Encode(e, f);
  }
  Decoder d;  // default limits: our compressed blocks may be longer than the peer's
  std::vector<Frame> frames;
  if (!d.Feed(again, &frames).ok() || d.buffered() != 0 || frames.size() != whole.frames.size()) __builtin_trap();
  for (size_t i = 0; i < frames.size(); ++i) {
    Frame want = whole.frames[i];
    if (want.type == FrameType::kRstStream) want.flags = 0;  // RST_STREAM defines no flags; they are not sent
    if (frames[i] != want) __builtin_trap();
  }
  return 0;
}
