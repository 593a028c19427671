// server/http/spdy_framer.h: SPDY/3.1 frames as Kubernetes' streaming protocols speak them (kubectl exec,
// attach and port-forward to the kubelet, through github.com/moby/spdystream), encoded and decoded.
//
// One connection has two directions, each with its own zlib stream for header blocks: the Encoder owns
// the deflate side (what this end sends) and the Decoder the inflate side (what it receives). Header
// blocks of SYN_STREAM, SYN_REPLY and HEADERS are compressed across frames with the SPDY/3 dictionary,
// each one ending on a sync flush, so frames must be encoded and decoded in the order they travel.
// The Decoder is byte-driven: feed it what the socket gave, split anywhere; it returns whole frames.
// No I/O here: the connection owns the socket and the fuzz target drives these classes directly.
// Thread-compatible: one Encoder and one Decoder per connection, used by one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "apimachinery/status.h"

namespace capstan::http::spdy {

constexpr uint16_t kVersion = 3;

enum class FrameType : uint16_t {
  kData = 0,
  kSynStream = 1,
  kSynReply = 2,
  kRstStream = 3,
  kSettings = 4,
  kPing = 6,
  kGoAway = 7,
  kHeaders = 8,
  kWindowUpdate = 9,
};

// Frame flags: FIN on DATA, SYN_STREAM, SYN_REPLY and HEADERS; UNIDIRECTIONAL on SYN_STREAM.
constexpr uint8_t kFlagFin = 0x01;
constexpr uint8_t kFlagUnidirectional = 0x02;
// SETTINGS frame flag.
constexpr uint8_t kFlagClearSettings = 0x01;

// RST_STREAM status codes.
constexpr uint32_t kRstProtocolError = 1;
constexpr uint32_t kRstInvalidStream = 2;
constexpr uint32_t kRstRefusedStream = 3;
constexpr uint32_t kRstUnsupportedVersion = 4;
constexpr uint32_t kRstCancel = 5;
constexpr uint32_t kRstInternalError = 6;
constexpr uint32_t kRstFlowControlError = 7;
constexpr uint32_t kRstStreamInUse = 8;
constexpr uint32_t kRstStreamAlreadyClosed = 9;
constexpr uint32_t kRstInvalidCredentials = 10;
constexpr uint32_t kRstFrameTooLarge = 11;

// GOAWAY status codes.
constexpr uint32_t kGoAwayOk = 0;
constexpr uint32_t kGoAwayProtocolError = 1;
constexpr uint32_t kGoAwayInternalError = 2;

// SETTINGS ids (24 bits) and per-setting flags.
constexpr uint32_t kSettingsMaxConcurrentStreams = 4;
constexpr uint32_t kSettingsInitialWindowSize = 7;
constexpr uint8_t kSettingsFlagPersistValue = 0x01;
constexpr uint8_t kSettingsFlagPersisted = 0x02;

// The largest payload a frame's 24-bit length field can carry.
constexpr size_t kMaxFrameLength = (1u << 24) - 1;

struct Setting {
  uint8_t flags = 0;
  uint32_t id = 0;  // 24 bits
  uint32_t value = 0;
  bool operator==(const Setting&) const = default;
};

// Header names are lower-case and unique; several values of one name are joined by '\0' in one
// value, as on the wire (spdystream splits them into an http.Header's values).
using HeaderBlock = std::vector<std::pair<std::string, std::string>>;

struct Frame {
  FrameType type = FrameType::kData;
  uint8_t flags = 0;
  uint32_t stream_id = 0;            // DATA, SYN_STREAM, SYN_REPLY, RST_STREAM, HEADERS, WINDOW_UPDATE
  uint32_t associated_id = 0;        // SYN_STREAM
  uint8_t priority = 0;              // SYN_STREAM (3 bits, 0 is the highest)
  uint32_t status = 0;               // RST_STREAM, GOAWAY
  uint32_t last_good_stream_id = 0;  // GOAWAY
  uint32_t ping_id = 0;              // PING
  uint32_t delta_window = 0;         // WINDOW_UPDATE (stream 0: the connection's window)
  std::vector<Setting> settings;     // SETTINGS
  HeaderBlock headers;               // SYN_STREAM, SYN_REPLY, HEADERS (decompressed)
  std::string data;                  // DATA

  // The first value of a header (up to its first '\0'), "" if absent. The name is matched ignoring
  // ASCII case.
  std::string_view Header(std::string_view name) const;
  bool operator==(const Frame&) const = default;
};

// The SPDY/3 header compression dictionary (1423 bytes), a protocol constant.
std::string_view HeaderDictionary();

// The sending direction. Methods return the frame's bytes, to be written in the order they were made
// (header-carrying frames advance the shared deflate stream). Header names are lower-cased and
// repeated names merged into one '\0'-joined value. Stream ids are 31 bits (the top bit is cleared);
// a payload or compressed header block over kMaxFrameLength is a caller's bug (checked).
class Encoder {
 public:
  Encoder();
  ~Encoder();
  Encoder(const Encoder&) = delete;
  Encoder& operator=(const Encoder&) = delete;

  std::string SynStream(uint32_t stream_id, uint32_t associated_id, uint8_t priority, uint8_t flags,
                        const HeaderBlock& headers);
  std::string SynReply(uint32_t stream_id, uint8_t flags, const HeaderBlock& headers);
  std::string Headers(uint32_t stream_id, uint8_t flags, const HeaderBlock& headers);
  // Splits nothing: the caller keeps data at most kMaxFrameLength.
  static std::string Data(uint32_t stream_id, uint8_t flags, std::string_view data);
  static std::string RstStream(uint32_t stream_id, uint32_t status);
  static std::string Settings(const std::vector<Setting>& settings, uint8_t flags = 0);
  static std::string Ping(uint32_t id);
  static std::string GoAway(uint32_t last_good_stream_id, uint32_t status);
  static std::string WindowUpdate(uint32_t stream_id, uint32_t delta);

 private:
  std::string HeaderFrame(FrameType type, uint8_t flags, std::string_view prefix, const HeaderBlock& headers);

  struct Deflater;
  std::unique_ptr<Deflater> deflater_;
};

struct DecoderLimits {
  size_t max_frame_bytes = 16 << 20;         // a frame's payload (the 24-bit length field caps it anyway)
  size_t max_header_block_bytes = 256 << 10;  // one header block, decompressed
  size_t max_header_count = 1000;             // pairs in one header block
};

// The receiving direction. Rejected, as errors, like spdystream's reader rejects them: a version other
// than 3, a frame over the limits, a fixed-size frame of the wrong length, stream id 0 where a stream is
// required, a RST_STREAM with status 0, a PING with id 0 or flags, a GOAWAY or WINDOW_UPDATE with flags,
// a compressed block that does not inflate (or ends its zlib stream), and a header block that is
// truncated, has trailing bytes, or an empty, upper-case or repeated name. Control frames of unknown
// types are skipped, as SPDY/3 says.
class Decoder {
 public:
  explicit Decoder(DecoderLimits limits = {});
  ~Decoder();
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;

  // Appends to *out the complete frames found in what was buffered plus bytes, and buffers the rest.
  // An error leaves the frames before it in *out and the decoder unusable: every later call fails too,
  // and the caller closes the connection.
  Status Feed(std::string_view bytes, std::vector<Frame>* out);

  // Bytes held back for a frame not complete yet.
  size_t buffered() const { return buffer_.size(); }

 private:
  Status DecodeFrame(std::string_view head, std::string_view body, std::vector<Frame>* out);
  Status DecodeControlFrame(uint16_t type, uint8_t flags, std::string_view body, std::vector<Frame>* out);
  Status DecodeHeaderBlock(std::string_view compressed, HeaderBlock* headers);

  DecoderLimits limits_;
  std::string buffer_;
  Status failed_;
  struct Inflater;
  std::unique_ptr<Inflater> inflater_;
};

}  // namespace capstan::http::spdy
