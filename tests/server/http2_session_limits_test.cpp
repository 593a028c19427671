// The attacks an HTTP/2 server must bound, as raw frames fed to an Http2Session: SETTINGS and PING
// floods, rapid reset (CVE-2023-44487), CONTINUATION floods and an HPACK bomb. The client side is
// written byte by byte, because a well-behaved client library will not send these.
#include <gtest/gtest.h>
#include <nghttp2/nghttp2.h>

#include <deque>
#include <map>
#include <string>

#include "server/http/responses.h"
#include "server/http2_session.h"

namespace capstan::server {
namespace {

std::string Frame(uint8_t type, uint8_t flags, uint32_t stream, const std::string& payload) {
  std::string f;
  uint32_t n = static_cast<uint32_t>(payload.size());
  f += static_cast<char>(n >> 16);
  f += static_cast<char>(n >> 8);
  f += static_cast<char>(n);
  f += static_cast<char>(type);
  f += static_cast<char>(flags);
  for (int s = 24; s >= 0; s -= 8) f += static_cast<char>((stream >> s) & 0xff);
  return f + payload;
}

// HPACK integer with an n-bit prefix (RFC 7541 5.1); `first` holds the pattern bits above the prefix.
std::string HpackInt(uint8_t first, int prefix_bits, size_t v) {
  std::string out;
  size_t max = (1u << prefix_bits) - 1;
  if (v < max) return std::string(1, static_cast<char>(first | v));
  out += static_cast<char>(first | max);
  v -= max;
  while (v >= 128) {
    out += static_cast<char>((v % 128) + 128);
    v /= 128;
  }
  out += static_cast<char>(v);
  return out;
}

std::string Str(const std::string& s) { return HpackInt(0, 7, s.size()) + s; }
// A literal field without indexing, new name; with_indexing adds it to the dynamic table.
std::string Literal(const std::string& name, const std::string& value, bool with_indexing = false) {
  return (with_indexing ? std::string(1, '\x40') : std::string(1, '\0')) + Str(name) + Str(value);
}
std::string RequestBlock(const std::string& path) {
  return Literal(":method", "GET") + Literal(":scheme", "https") + Literal(":path", path) + Literal(":authority", "x");
}

constexpr uint8_t kData = 0, kHeaders = 1, kRstStream = 3, kSettings = 4, kPing = 6, kGoaway = 7, kContinuation = 9;
constexpr uint8_t kEndStream = 1, kEndHeaders = 4, kAck = 1;

struct Decoded {
  std::map<uint32_t, std::map<std::string, std::string>> headers;  // by stream
  std::vector<uint8_t> types;
  uint32_t goaway_code = 0xffffffff;
};

class Http2LimitsTest : public ::testing::Test {
 protected:
  void Start(Http2Limits limits = {}) {
    Http2Session::Hooks hooks;
    hooks.handler = [this](http::RequestContext& ctx) -> Task<void> {
      ++handlers_;
      co_await http::RespondText(ctx, "ok");
    };
    hooks.want_write = [] {};
    hooks.post = [this](std::function<void()> fn) { posted_.push_back(std::move(fn)); };
    session_ = std::make_unique<Http2Session>(limits, std::move(hooks));
    ASSERT_TRUE(session_->Feed("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + Frame(kSettings, 0, 0, "")));
  }
  void TearDown() override {
    if (!session_) return;
    session_->CancelAll();
    while (!posted_.empty()) {
      auto fn = std::move(posted_.front());
      posted_.pop_front();
      fn();
    }
    session_.reset();
    if (inflater_) nghttp2_hd_inflate_del(inflater_);
  }

  // Everything the server sends now, decoded far enough for the tests.
  void Drain() {
    for (;;) {
      while (!posted_.empty()) {
        auto fn = std::move(posted_.front());
        posted_.pop_front();
        fn();
      }
      std::string out = session_->TakeOutput();
      if (out.empty()) break;
      sent_ += out;
    }
    if (!inflater_) nghttp2_hd_inflate_new(&inflater_);
    while (parsed_ + 9 <= sent_.size()) {
      auto* p = reinterpret_cast<const uint8_t*>(sent_.data() + parsed_);
      size_t len = (size_t{p[0]} << 16) | (size_t{p[1]} << 8) | p[2];
      if (parsed_ + 9 + len > sent_.size()) break;
      uint8_t type = p[3];
      uint32_t stream = ((uint32_t{p[5]} & 0x7f) << 24) | (uint32_t{p[6]} << 16) | (uint32_t{p[7]} << 8) | p[8];
      decoded_.types.push_back(type);
      if (type == kGoaway && len >= 8) {
        decoded_.goaway_code = (uint32_t{p[13]} << 24) | (uint32_t{p[14]} << 16) | (uint32_t{p[15]} << 8) | p[16];
      }
      if (type == kHeaders) {
        const uint8_t* in = p + 9;
        size_t left = len;
        for (;;) {
          nghttp2_nv nv;
          int flags = 0;
          ssize_t n = nghttp2_hd_inflate_hd2(inflater_, &nv, &flags, in, left, 1);
          if (n < 0) break;
          in += n;
          left -= static_cast<size_t>(n);
          if (flags & NGHTTP2_HD_INFLATE_EMIT) {
            decoded_.headers[stream][std::string(reinterpret_cast<char*>(nv.name), nv.namelen)] =
                std::string(reinterpret_cast<char*>(nv.value), nv.valuelen);
          }
          if (flags & NGHTTP2_HD_INFLATE_FINAL) {
            nghttp2_hd_inflate_end_headers(inflater_);
            break;
          }
          if (n == 0 && !(flags & NGHTTP2_HD_INFLATE_EMIT)) break;
        }
      }
      parsed_ += 9 + len;
    }
  }
  bool SentGoaway() const {
    for (uint8_t t : decoded_.types) {
      if (t == kGoaway) return true;
    }
    return false;
  }

  std::unique_ptr<Http2Session> session_;
  std::deque<std::function<void()>> posted_;
  int handlers_ = 0;
  std::string sent_;
  size_t parsed_ = 0;
  nghttp2_hd_inflater* inflater_ = nullptr;
  Decoded decoded_;
};

TEST_F(Http2LimitsTest, AnOrdinaryRequestIsAnswered) {
  Start();
  ASSERT_TRUE(session_->Feed(Frame(kHeaders, kEndStream | kEndHeaders, 1, RequestBlock("/x"))));
  Drain();
  EXPECT_EQ(handlers_, 1);
  EXPECT_EQ(decoded_.headers[1][":status"], "200");
}

TEST_F(Http2LimitsTest, SettingsFloodEndsTheConnection) {
  Start();
  // A client that sends SETTINGS and never reads the ACKs: nghttp2 keeps at most 1000 queued.
  bool ok = true;
  for (int i = 0; i < 1500 && ok; ++i) ok = session_->Feed(Frame(kSettings, 0, 0, ""));
  EXPECT_FALSE(ok);
}

TEST_F(Http2LimitsTest, PingFloodEndsTheConnection) {
  Start();
  bool ok = true;
  for (int i = 0; i < 1500 && ok; ++i) ok = session_->Feed(Frame(kPing, 0, 0, std::string(8, 'p')));
  EXPECT_FALSE(ok);
}

TEST_F(Http2LimitsTest, TooManySettingsInOneFrameEndsTheConnection) {
  Start();
  std::string entries;
  for (int i = 0; i < 40; ++i) entries += std::string("\x00\x03\x00\x00\x00\x64", 6);  // MAX_CONCURRENT_STREAMS=100
  session_->Feed(Frame(kSettings, 0, 0, entries));
  Drain();
  EXPECT_TRUE(SentGoaway());
  EXPECT_FALSE(session_->Alive());
}

TEST_F(Http2LimitsTest, RapidResetEndsTheConnection) {
  Start();
  // Each stream is opened and reset at once (CVE-2023-44487); the reset token bucket holds 1000.
  std::string burst;
  for (uint32_t i = 0; i < 1200; ++i) {
    uint32_t id = 2 * i + 1;
    burst += Frame(kHeaders, kEndStream | kEndHeaders, id, RequestBlock("/r"));
    burst += Frame(kRstStream, 0, id, std::string("\x00\x00\x00\x08", 4));  // CANCEL
  }
  session_->Feed(burst);
  Drain();
  EXPECT_TRUE(SentGoaway());
  EXPECT_EQ(decoded_.goaway_code, NGHTTP2_INTERNAL_ERROR) << "nghttp2 ends a rapid-reset connection";
  EXPECT_FALSE(session_->Alive());
  EXPECT_EQ(handlers_, 0);  // reset before they started: no handler ran
  EXPECT_EQ(session_->ActiveStreams(), 0u);
}

TEST_F(Http2LimitsTest, ContinuationFloodEndsTheConnection) {
  Start();
  std::string block = RequestBlock("/c");
  std::string frames = Frame(kHeaders, kEndStream, 1, block.substr(0, 1));
  for (int i = 0; i < 20; ++i) frames += Frame(kContinuation, 0, 1, "");  // nghttp2 allows 8
  frames += Frame(kContinuation, kEndHeaders, 1, block.substr(1));
  EXPECT_FALSE(session_->Feed(frames));
  EXPECT_EQ(handlers_, 0);
}

TEST_F(Http2LimitsTest, HpackBombIsAnswered431) {
  Start();
  // One 4000-byte field put in the dynamic table, then referenced by one byte 300 times: 1.2 MB
  // decoded from 5 KB sent, over the 1 MiB header-list limit.
  std::string block = RequestBlock("/bomb") + Literal("x-bomb", std::string(4000, 'b'), /*with_indexing=*/true);
  for (int i = 0; i < 300; ++i) block += HpackInt(0x80, 7, 62);  // indexed: the newest dynamic entry
  ASSERT_TRUE(session_->Feed(Frame(kHeaders, kEndStream | kEndHeaders, 1, block)));
  Drain();
  EXPECT_EQ(handlers_, 0);
  EXPECT_EQ(decoded_.headers[1][":status"], "431");
  // The connection goes on.
  ASSERT_TRUE(session_->Feed(Frame(kHeaders, kEndStream | kEndHeaders, 3, RequestBlock("/after"))));
  Drain();
  EXPECT_EQ(decoded_.headers[3][":status"], "200");
}

TEST_F(Http2LimitsTest, DataOnAStreamThatWasNeverOpenedEndsTheConnection) {
  Start();
  session_->Feed(Frame(kData, kEndStream, 5, "x"));
  Drain();
  EXPECT_TRUE(SentGoaway());
  EXPECT_EQ(decoded_.goaway_code, NGHTTP2_PROTOCOL_ERROR);
  EXPECT_FALSE(session_->Alive());
  EXPECT_EQ(handlers_, 0);
}

TEST_F(Http2LimitsTest, AckedSettingsAreFine) {
  Start();
  for (int i = 0; i < 1500; ++i) {
    ASSERT_TRUE(session_->Feed(Frame(kSettings, 0, 0, ""))) << i;
    Drain();  // a client that reads our ACKs is not flooding
  }
  ASSERT_TRUE(session_->Feed(Frame(kSettings, kAck, 0, "")));
}

}  // namespace
}  // namespace capstan::server
