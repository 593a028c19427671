// server/http/websocket.cpp: RFC 6455 handshake and framing (see websocket.h).
#include "server/http/websocket.h"

#include <openssl/rand.h>
#include <openssl/sha.h>

#include <algorithm>

#include "apimachinery/utf8.h"
#include "util/check.h"
#include "util/strings.h"

namespace capstan::http::websocket {

namespace {

constexpr std::string_view kAcceptGuid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

// Codes a peer may send in a close frame (gorilla's isValidReceivedCloseCode): 1004-1006 and 1015
// are reserved, 3000-4999 belong to libraries and applications.
bool ValidReceivedCloseCode(uint16_t code) {
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);
}

bool KnownOpcode(uint8_t op) { return op <= 2 || (op >= 8 && op <= 10); }

}  // namespace

bool IsUpgradeRequest(const HttpRequest& req) {
  return req.method == "GET" && req.headers.HasToken("Connection", "upgrade") &&
         EqualsIgnoreCase(TrimSpace(req.headers.Get("Upgrade")), "websocket") &&
         !TrimSpace(req.headers.Get("Sec-WebSocket-Key")).empty();
}

bool HasSupportedVersion(const Headers& h) { return TrimSpace(h.Get("Sec-WebSocket-Version")) == kVersion; }

std::vector<std::string> RequestedProtocols(const Headers& h) {
  std::vector<std::string> out;
  for (std::string_view value : h.GetAll("Sec-WebSocket-Protocol")) {
    for (const std::string& item : Split(value, ',')) {
      std::string_view p = TrimSpace(item);
      if (!p.empty()) out.emplace_back(p);
    }
  }
  return out;
}

std::string AcceptKey(std::string_view sec_websocket_key) {
  std::string input(sec_websocket_key);
  input += kAcceptGuid;
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(input.data()), input.size(), digest);
  return Base64Encode(std::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
}

Headers HandshakeHeaders(const HttpRequest& req, std::string_view protocol) {
  Headers h;
  h.Add("Upgrade", "websocket");
  h.Add("Connection", "Upgrade");
  h.Add("Sec-WebSocket-Accept", AcceptKey(TrimSpace(req.headers.Get("Sec-WebSocket-Key"))));
  if (!protocol.empty()) h.Add("Sec-WebSocket-Protocol", std::string(protocol));
  return h;
}

std::string NewClientKey() {
  unsigned char raw[16];
  CAPSTAN_CHECK(RAND_bytes(raw, sizeof raw) == 1);
  return Base64Encode(std::string_view(reinterpret_cast<const char*>(raw), sizeof raw));
}

Headers ClientHandshakeHeaders(std::string_view key, const std::vector<std::string>& protocols) {
  Headers h;
  h.Add("Upgrade", "websocket");
  h.Add("Connection", "Upgrade");
  h.Add("Sec-WebSocket-Key", std::string(key));
  h.Add("Sec-WebSocket-Version", std::string(kVersion));
  if (!protocols.empty()) h.Add("Sec-WebSocket-Protocol", Join(protocols, ", "));
  return h;
}

bool CheckHandshakeResponse(const Headers& response, std::string_view key) {
  return response.HasToken("Upgrade", "websocket") && response.HasToken("Connection", "upgrade") &&
         TrimSpace(response.Get("Sec-WebSocket-Accept")) == AcceptKey(key);
}

std::string EncodeFrame(Opcode op, std::string_view payload, bool fin, std::optional<uint32_t> mask) {
  CAPSTAN_CHECK(!IsControl(op) || (fin && payload.size() <= kMaxControlPayload));
  std::string out;
  out.reserve(payload.size() + 14);
  out.push_back(static_cast<char>((fin ? 0x80 : 0) | static_cast<uint8_t>(op)));
  const char mask_bit = mask ? static_cast<char>(0x80) : 0;
  uint64_t n = payload.size();
  if (n <= 125) {
    out.push_back(static_cast<char>(mask_bit | static_cast<char>(n)));
  } else if (n <= 0xFFFF) {
    out.push_back(static_cast<char>(mask_bit | 126));
    out.push_back(static_cast<char>(n >> 8));
    out.push_back(static_cast<char>(n));
  } else {
    out.push_back(static_cast<char>(mask_bit | 127));
    for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>(n >> shift));
  }
  if (!mask) {
    out.append(payload);
    return out;
  }
  char key[4] = {static_cast<char>(*mask >> 24), static_cast<char>(*mask >> 16), static_cast<char>(*mask >> 8),
                 static_cast<char>(*mask)};
  out.append(key, 4);
  size_t start = out.size();
  out.append(payload);
  for (size_t i = 0; i < payload.size(); ++i) out[start + i] ^= key[i & 3];
  return out;
}

std::string EncodeClose(uint16_t code, std::string_view reason, std::optional<uint32_t> mask) {
  if (code == kCloseNoStatus) return EncodeFrame(Opcode::kClose, "", true, mask);
  constexpr size_t kMaxReason = kMaxControlPayload - 2;
  if (reason.size() > kMaxReason) {
    size_t cut = kMaxReason;
    while (cut > 0 && (static_cast<uint8_t>(reason[cut]) & 0xC0) == 0x80) --cut;
    reason = reason.substr(0, cut);
  }
  std::string payload;
  payload.push_back(static_cast<char>(code >> 8));
  payload.push_back(static_cast<char>(code));
  payload.append(reason);
  return EncodeFrame(Opcode::kClose, payload, true, mask);
}

std::pair<uint16_t, std::string> ParseClose(std::string_view payload) {
  if (payload.size() < 2) return {kCloseNoStatus, ""};
  auto code = static_cast<uint16_t>((static_cast<uint8_t>(payload[0]) << 8) | static_cast<uint8_t>(payload[1]));
  return {code, std::string(payload.substr(2))};
}

// --- Decoder ---

Decoder::Decoder(bool expect_masked, DecoderLimits limits) : expect_masked_(expect_masked), limits_(limits) {}

Status Decoder::Fail(uint16_t code, std::string message) {
  close_code_ = code;
  error_ = Status(400, "BadRequest", "websocket: " + std::move(message));
  return error_;
}

Status Decoder::ParseHeader() {
  if (header_.size() == 2) {
    auto b0 = static_cast<uint8_t>(header_[0]);
    auto b1 = static_cast<uint8_t>(header_[1]);
    fin_ = (b0 & 0x80) != 0;
    if ((b0 & 0x70) != 0) return Fail(kCloseProtocolError, "reserved bits set");
    uint8_t op = b0 & 0x0F;
    if (!KnownOpcode(op)) return Fail(kCloseProtocolError, "unknown opcode " + std::to_string(op));
    opcode_ = static_cast<Opcode>(op);
    masked_ = (b1 & 0x80) != 0;
    if (masked_ != expect_masked_) {
      return Fail(kCloseProtocolError, expect_masked_ ? "client frame not masked" : "server frame masked");
    }
    uint8_t len7 = b1 & 0x7F;
    if (IsControl(opcode_)) {
      if (!fin_) return Fail(kCloseProtocolError, "fragmented control frame");
      if (len7 > kMaxControlPayload) return Fail(kCloseProtocolError, "control frame over 125 bytes");
    } else if (opcode_ == Opcode::kContinuation) {
      if (!message_opcode_) return Fail(kCloseProtocolError, "continuation frame with no message started");
    } else {
      if (message_opcode_) return Fail(kCloseProtocolError, "data frame inside a fragmented message");
      message_opcode_ = opcode_;
    }
    need_ = 2 + (len7 == 126 ? 2 : len7 == 127 ? 8 : 0) + (masked_ ? 4 : 0);
    length_ = len7;
    if (need_ > 2) return Status::Ok();
  }
  // The whole header is there.
  size_t pos = 2;
  auto len7 = static_cast<uint8_t>(header_[1]) & 0x7F;
  if (len7 >= 126) {
    size_t n = len7 == 126 ? 2 : 8;
    length_ = 0;
    for (size_t i = 0; i < n; ++i) length_ = (length_ << 8) | static_cast<uint8_t>(header_[pos + i]);
    pos += n;
    if (n == 8 && (length_ >> 63) != 0) return Fail(kCloseProtocolError, "64-bit length with its top bit set");
  }
  if (masked_) {
    for (int i = 0; i < 4; ++i) mask_[i] = static_cast<uint8_t>(header_[pos + i]);
  }
  // message_ never holds more than the limit, so the subtraction cannot wrap.
  if (!IsControl(opcode_) && length_ > limits_.max_message_bytes - message_.size()) {
    return Fail(kCloseTooBig, "message over " + std::to_string(limits_.max_message_bytes) + " bytes");
  }
  return Status::Ok();
}

Status Decoder::CheckClose() {
  if (control_.size() == 1) return Fail(kCloseProtocolError, "close frame with a 1-byte payload");
  if (control_.size() < 2) return Status::Ok();
  auto [code, reason] = ParseClose(control_);
  if (!ValidReceivedCloseCode(code)) return Fail(kCloseProtocolError, "invalid close code " + std::to_string(code));
  if (!apimachinery::IsValidUtf8(reason)) return Fail(kCloseInvalidPayload, "close reason is not UTF-8");
  return Status::Ok();
}

void Decoder::FinishFrame(std::vector<Message>* out) {
  if (IsControl(opcode_)) {
    out->push_back({opcode_, std::move(control_)});
    control_.clear();
  } else if (fin_) {
    out->push_back({*message_opcode_, std::move(message_)});
    message_.clear();
    message_opcode_.reset();
  }
  header_.clear();
  need_ = 2;
  received_ = 0;
  state_ = State::kHeader;
}

Status Decoder::Feed(std::string_view bytes, std::vector<Message>* out) {
  if (close_code_ != 0) return error_;
  size_t pos = 0;
  while (pos < bytes.size() || (state_ == State::kPayload && received_ == length_)) {
    if (state_ == State::kHeader) {
      size_t take = std::min(need_ - header_.size(), bytes.size() - pos);
      header_.append(bytes.substr(pos, take));
      pos += take;
      if (header_.size() < need_) break;
      if (Status s = ParseHeader(); !s.ok()) return s;
      if (header_.size() == need_) {
        state_ = State::kPayload;
        received_ = 0;
      }
      continue;
    }
    if (received_ < length_) {
      size_t take = static_cast<size_t>(std::min<uint64_t>(length_ - received_, bytes.size() - pos));
      std::string& dst = IsControl(opcode_) ? control_ : message_;
      size_t start = dst.size();
      dst.append(bytes.substr(pos, take));
      if (masked_) {
        for (size_t i = 0; i < take; ++i) dst[start + i] = static_cast<char>(dst[start + i] ^ mask_[(received_ + i) & 3]);
      }
      received_ += take;
      pos += take;
      if (received_ < length_) break;
    }
    if (opcode_ == Opcode::kClose) {
      if (Status s = CheckClose(); !s.ok()) return s;
    }
    FinishFrame(out);
  }
  return Status::Ok();
}

}  // namespace capstan::http::websocket
