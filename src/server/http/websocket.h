// server/http/websocket.h: the WebSocket protocol (RFC 6455) as bytes in and bytes out, for the
// streaming subresources: exec and attach over "v5.channel.k8s.io" (and the older channel
// protocols), port-forward over "SPDY/3.1+portforward.k8s.io" tunneling.
//
// No sockets here: the connection code owns the transport, feeds what it reads to a Decoder and
// writes what EncodeFrame returns. The handshake helpers read an HttpRequest and build the 101's
// headers; the connection writes them.
//
// What kube's peers do, and so what this accepts and sends:
//  - kube-apiserver's server side (wsstream.Conn over golang.org/x/net/websocket) answers 400 to a
//    GET whose Sec-WebSocket-Version is not "13" (with "Sec-WebSocket-Version: 13"), 403 when no
//    requested subprotocol is supported, and otherwise a 101 with Upgrade, Connection,
//    Sec-WebSocket-Accept and, when one was chosen, Sec-WebSocket-Protocol. It replies to each ping
//    with a pong of the same payload, ends the stream on a close frame, and closes with 1000 and no
//    reason.
//  - kubectl (client-go over gorilla/websocket) masks every frame, fragments a message larger than
//    its 33 KiB write buffer into continuation frames, pings every 5 s (and expects a pong within
//    about a minute), and closes a port-forward tunnel with 1000 and an empty reason. It refuses a
//    masked server frame. It sends no extensions (no permessage-deflate), so no reserved bit is set.
//
// The Decoder is stricter than x/net (which ignores reserved bits and overlong control frames, and
// delivers each fragment as its own message) and follows RFC 6455 instead: fragments are
// reassembled into one Message, and every violation ends the connection with a close code.
// Length fields need not be minimal (RFC 6455 5.2 asks it of the sender; neither Go peer checks it).
// Text messages are not checked for UTF-8, as neither Go library checks them (and the base64
// channel protocol sends only ASCII); a close frame's reason is checked (1007 when invalid), as
// gorilla does.
//
// Thread-safety: the free functions are pure (NewClientKey draws from OpenSSL's RAND_bytes and is
// thread-safe); a Decoder is thread-compatible, one per connection direction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "apimachinery/status.h"
#include "server/http/headers.h"
#include "server/http/http_request.h"

namespace capstan::http::websocket {

// The only version RFC 6455 defines, sent and required in Sec-WebSocket-Version.
inline constexpr std::string_view kVersion = "13";

// --- The handshake, server side ---

// A GET whose Connection header (any of them; a comma list) holds the token "upgrade" and whose
// Upgrade header is "websocket" (both case-insensitive), with a Sec-WebSocket-Key.
bool IsUpgradeRequest(const HttpRequest& req);
// Whether Sec-WebSocket-Version is "13". An upgrade request that fails this is answered 400 with
// "Sec-WebSocket-Version: 13" (as x/net/websocket does).
bool HasSupportedVersion(const Headers& h);
// The Sec-WebSocket-Protocol values, in order: every such header, each a comma list, trimmed, empty
// items dropped.
std::vector<std::string> RequestedProtocols(const Headers& h);
// base64(SHA-1(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")).
std::string AcceptKey(std::string_view sec_websocket_key);
// The 101 response's headers for req with the chosen subprotocol ("" for none): Upgrade,
// Connection, Sec-WebSocket-Accept and, when protocol is not empty, Sec-WebSocket-Protocol.
Headers HandshakeHeaders(const HttpRequest& req, std::string_view protocol);

// --- The handshake, client side ---

// A fresh Sec-WebSocket-Key: 16 random bytes, base64.
std::string NewClientKey();
// The upgrade request's headers as gorilla sends them: Upgrade, Connection, Sec-WebSocket-Key,
// Sec-WebSocket-Version and, when protocols is not empty, one Sec-WebSocket-Protocol joined by ", ".
Headers ClientHandshakeHeaders(std::string_view key, const std::vector<std::string>& protocols);
// Whether a 101's headers complete the handshake for key: Upgrade "websocket", a Connection token
// "upgrade" and Sec-WebSocket-Accept == AcceptKey(key) (gorilla's checks).
bool CheckHandshakeResponse(const Headers& response, std::string_view key);

// --- Frames ---

enum class Opcode : uint8_t { kContinuation = 0, kText = 1, kBinary = 2, kClose = 8, kPing = 9, kPong = 10 };

inline bool IsControl(Opcode op) { return (static_cast<uint8_t>(op) & 0x8) != 0; }

// A data message (text or binary) reassembled from its fragments, or a control frame as it came.
struct Message {
  Opcode opcode;
  std::string payload;
  bool operator==(const Message&) const = default;
};

// Close status codes (RFC 6455 7.4.1).
inline constexpr uint16_t kCloseNormal = 1000;
inline constexpr uint16_t kCloseGoingAway = 1001;
inline constexpr uint16_t kCloseProtocolError = 1002;
inline constexpr uint16_t kCloseUnsupported = 1003;
inline constexpr uint16_t kCloseNoStatus = 1005;  // never sent: a close frame without a code
inline constexpr uint16_t kCloseInvalidPayload = 1007;
inline constexpr uint16_t kClosePolicy = 1008;
inline constexpr uint16_t kCloseTooBig = 1009;
inline constexpr uint16_t kCloseInternal = 1011;

// The largest control frame payload (RFC 6455 5.5).
inline constexpr size_t kMaxControlPayload = 125;

// One frame. Server frames are not masked; a client passes a mask (a fresh random value per frame)
// and the payload is XORed with it. A control frame must be final and at most 125 bytes (checked:
// passing a bigger one is a bug in the caller).
std::string EncodeFrame(Opcode op, std::string_view payload, bool fin = true,
                        std::optional<uint32_t> mask = std::nullopt);
// A close frame: the code, big-endian, then the reason cut to fit 125 bytes (at a UTF-8 character
// boundary). kCloseNoStatus gives an empty payload (no code, no reason).
std::string EncodeClose(uint16_t code, std::string_view reason, std::optional<uint32_t> mask = std::nullopt);
// A close frame's payload: the code (kCloseNoStatus when empty) and the reason. Does not validate
// (the Decoder already has, for frames it delivered).
std::pair<uint16_t, std::string> ParseClose(std::string_view payload);

struct DecoderLimits {
  // A data message larger than this (its fragments together) is refused with 1009; x/net's default
  // MaxPayloadBytes.
  size_t max_message_bytes = 32 << 20;
};

// Turns the bytes one peer sends into messages. Bytes may come split anywhere; partial frames are
// kept until the rest arrives (a payload is appended as it comes, so a large frame is never
// buffered twice). Pings, pongs and a close are delivered as they come, also between the fragments
// of a message; answering them (a pong, the closing handshake) is the connection's job. Frames after
// a close are still decoded: the connection stops reading.
class Decoder {
 public:
  // expect_masked: true on a server (every client frame must be masked: RFC 6455 5.1), false on a
  // client (no server frame may be masked).
  explicit Decoder(bool expect_masked, DecoderLimits limits = {});

  // Appends to *out the complete messages found in bytes. A protocol violation (an unknown opcode,
  // a reserved bit set, a fragmented or over-125-byte control frame, a continuation with no message
  // started, a new data frame inside a fragmented message, masking wrong for the side, a message over
  // the limit, a 64-bit length with its top bit set, a close payload of one byte, a close code that
  // may not be sent, a close reason that is not UTF-8) returns an error; the messages before it are
  // still appended. close_code() then says what to tell the peer (1002; 1009 for size; 1007 for the
  // reason), and every later Feed returns the same error.
  Status Feed(std::string_view bytes, std::vector<Message>* out);

  // 0 while no violation was seen.
  uint16_t close_code() const { return close_code_; }
  // Whether a fragmented data message is in progress.
  bool in_message() const { return message_opcode_.has_value(); }

 private:
  enum class State { kHeader, kPayload };

  // Validates the frame header in header_ once its first need_ bytes are there: at 2 bytes, the
  // opcode, bits, mask flag and 7-bit length, setting need_ to the whole header's size (extended
  // length, mask key); then the extended length and the message limit.
  Status ParseHeader();
  // A received close frame's payload (in control_) is well formed.
  Status CheckClose();
  // Records a violation: the close code for the peer and the error every later Feed returns.
  Status Fail(uint16_t code, std::string message);
  // The frame whose header was parsed has its whole payload: deliver what it completes.
  void FinishFrame(std::vector<Message>* out);

  const bool expect_masked_;
  const DecoderLimits limits_;

  State state_ = State::kHeader;
  std::string header_;   // the current frame's header bytes so far (at most 14)
  size_t need_ = 2;      // header bytes needed to go on
  // The current frame, once its header is parsed.
  bool fin_ = false;
  Opcode opcode_ = Opcode::kContinuation;
  bool masked_ = false;
  uint8_t mask_[4] = {0, 0, 0, 0};
  uint64_t length_ = 0;
  uint64_t received_ = 0;  // payload bytes of the current frame so far
  std::string control_;    // the current control frame's payload

  std::optional<Opcode> message_opcode_;  // the data message in progress (text or binary)
  std::string message_;                   // its payload so far

  uint16_t close_code_ = 0;
  Status error_;
};

}  // namespace capstan::http::websocket
