#include "server/http/websocket.h"

#include <gtest/gtest.h>

#include <ostream>
#include <random>

#include "util/strings.h"

namespace capstan::http::websocket {

// Readable failures: the opcode, the size and the payload's start.
void PrintTo(const Message& m, std::ostream* os) {
  *os << "{opcode " << static_cast<int>(m.opcode) << ", " << m.payload.size() << " bytes "
      << GoQuote(std::string_view(m.payload).substr(0, 16)) << (m.payload.size() > 16 ? "...}" : "}");
}

namespace {

std::string Bytes(std::initializer_list<int> b) {
  std::string s;
  for (int c : b) s.push_back(static_cast<char>(c));
  return s;
}

// The RFC 6455 5.7 samples.
const std::string kUnmaskedHello = Bytes({0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f});
const std::string kMaskedHello = Bytes({0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58});
const std::string kFragmentedHel = Bytes({0x01, 0x03, 0x48, 0x65, 0x6c});
const std::string kFragmentedLo = Bytes({0x80, 0x02, 0x6c, 0x6f});
const std::string kUnmaskedPing = Bytes({0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f});
const std::string kMaskedPong = Bytes({0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58});
constexpr uint32_t kRfcMask = 0x37fa213d;

struct Decoded {
  Status status;
  std::vector<Message> messages;
};

Decoded DecodeAll(bool server, std::string_view bytes, DecoderLimits limits = {}) {
  Decoder d(server, limits);
  Decoded r;
  r.status = d.Feed(bytes, &r.messages);
  return r;
}

std::vector<Message> DecodeByteAtATime(bool server, std::string_view bytes) {
  Decoder d(server);
  std::vector<Message> out;
  for (char c : bytes) {
    Status s = d.Feed(std::string_view(&c, 1), &out);
    EXPECT_TRUE(s.ok()) << s.message();
  }
  return out;
}

std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

// Feeds bytes and expects the violation, its close code, and that the decoder stays failed.
void ExpectViolation(bool server, const std::string& bytes, uint16_t code, DecoderLimits limits = {}) {
  Decoder d(server, limits);
  std::vector<Message> out;
  Status s = d.Feed(bytes, &out);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(d.close_code(), code) << s.message();
  Status again = d.Feed(EncodeFrame(Opcode::kText, "x", true, server ? std::optional<uint32_t>(1) : std::nullopt), &out);
  EXPECT_FALSE(again.ok());
  EXPECT_EQ(again.message(), s.message());
}

// --- Handshake ---

HttpRequest UpgradeRequest() {
  HttpRequest r;
  r.method = "GET";
  r.path = "/api/v1/namespaces/default/pods/p/exec";
  r.headers.Add("Host", "server.example.com");
  r.headers.Add("Upgrade", "websocket");
  r.headers.Add("Connection", "Upgrade");
  r.headers.Add("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==");
  r.headers.Add("Sec-WebSocket-Version", "13");
  return r;
}

// RFC 6455 1.3 (and what openssl sha1 | base64 gives).
TEST(WebSocketHandshakeTest, AcceptKeyOfTheRfcSample) {
  EXPECT_EQ(AcceptKey("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

TEST(WebSocketHandshakeTest, RecognizesAnUpgradeRequest) {
  EXPECT_TRUE(IsUpgradeRequest(UpgradeRequest()));

  HttpRequest r = UpgradeRequest();
  r.headers.Set("Connection", "keep-alive, UPGRADE");
  r.headers.Set("Upgrade", "WebSocket");
  EXPECT_TRUE(IsUpgradeRequest(r));

  r = UpgradeRequest();  // the token in a second Connection header
  r.headers.Set("Connection", "keep-alive");
  r.headers.Add("Connection", " upgrade ");
  EXPECT_TRUE(IsUpgradeRequest(r));
}

TEST(WebSocketHandshakeTest, RefusesWhatIsNotAnUpgradeRequest) {
  HttpRequest r = UpgradeRequest();
  r.method = "POST";
  EXPECT_FALSE(IsUpgradeRequest(r));

  r = UpgradeRequest();
  r.headers.Remove("Sec-WebSocket-Key");
  EXPECT_FALSE(IsUpgradeRequest(r));

  r = UpgradeRequest();
  r.headers.Set("Upgrade", "h2c");
  EXPECT_FALSE(IsUpgradeRequest(r));

  r = UpgradeRequest();
  r.headers.Remove("Upgrade");
  EXPECT_FALSE(IsUpgradeRequest(r));

  r = UpgradeRequest();
  r.headers.Set("Connection", "upgrades, keep-alive");  // not the token
  EXPECT_FALSE(IsUpgradeRequest(r));

  r = UpgradeRequest();
  r.headers.Remove("Connection");
  EXPECT_FALSE(IsUpgradeRequest(r));
}

TEST(WebSocketHandshakeTest, VersionMustBe13) {
  EXPECT_TRUE(HasSupportedVersion(UpgradeRequest().headers));
  Headers h;
  EXPECT_FALSE(HasSupportedVersion(h));
  h.Add("Sec-WebSocket-Version", "8");
  EXPECT_FALSE(HasSupportedVersion(h));
}

TEST(WebSocketHandshakeTest, RequestedProtocolsFromEveryHeaderInOrder) {
  Headers h;
  EXPECT_TRUE(RequestedProtocols(h).empty());
  h.Add("Sec-WebSocket-Protocol", "v5.channel.k8s.io, v4.channel.k8s.io ,");
  h.Add("sec-websocket-protocol", " channel.k8s.io");
  h.Add("Sec-WebSocket-Protocol", "base64.channel.k8s.io");
  EXPECT_EQ(RequestedProtocols(h), (std::vector<std::string>{"v5.channel.k8s.io", "v4.channel.k8s.io",
                                                             "channel.k8s.io", "base64.channel.k8s.io"}));
}

TEST(WebSocketHandshakeTest, HandshakeHeaders) {
  Headers h = HandshakeHeaders(UpgradeRequest(), "v5.channel.k8s.io");
  EXPECT_EQ(h.Get("Upgrade"), "websocket");
  EXPECT_EQ(h.Get("Connection"), "Upgrade");
  EXPECT_EQ(h.Get("Sec-WebSocket-Accept"), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
  EXPECT_EQ(h.Get("Sec-WebSocket-Protocol"), "v5.channel.k8s.io");
  EXPECT_EQ(h.size(), 4u);

  Headers none = HandshakeHeaders(UpgradeRequest(), "");
  EXPECT_FALSE(none.Has("Sec-WebSocket-Protocol"));
  EXPECT_EQ(none.size(), 3u);
}

TEST(WebSocketHandshakeTest, ClientKeyIsSixteenRandomBytes) {
  std::string a = NewClientKey(), b = NewClientKey();
  std::string raw;
  ASSERT_TRUE(Base64Decode(a, raw));
  EXPECT_EQ(raw.size(), 16u);
  EXPECT_EQ(a.size(), 24u);
  EXPECT_NE(a, b);
}

TEST(WebSocketHandshakeTest, ClientAndServerAgree) {
  std::string key = NewClientKey();
  HttpRequest r;
  r.method = "GET";
  r.headers = ClientHandshakeHeaders(key, {"v5.channel.k8s.io", "v4.channel.k8s.io"});
  EXPECT_EQ(r.headers.Get("Sec-WebSocket-Protocol"), "v5.channel.k8s.io, v4.channel.k8s.io");
  EXPECT_EQ(r.headers.Get("Sec-WebSocket-Version"), "13");
  ASSERT_TRUE(IsUpgradeRequest(r));
  ASSERT_TRUE(HasSupportedVersion(r.headers));
  EXPECT_EQ(RequestedProtocols(r.headers), (std::vector<std::string>{"v5.channel.k8s.io", "v4.channel.k8s.io"}));

  Headers response = HandshakeHeaders(r, "v5.channel.k8s.io");
  EXPECT_TRUE(CheckHandshakeResponse(response, key));
  EXPECT_FALSE(CheckHandshakeResponse(response, NewClientKey()));
  Headers no_upgrade = response;
  no_upgrade.Remove("Upgrade");
  EXPECT_FALSE(CheckHandshakeResponse(no_upgrade, key));
  Headers no_connection = response;
  no_connection.Set("Connection", "close");
  EXPECT_FALSE(CheckHandshakeResponse(no_connection, key));

  EXPECT_FALSE(ClientHandshakeHeaders(key, {}).Has("Sec-WebSocket-Protocol"));
}

// --- Encoding ---

TEST(WebSocketEncodeTest, RfcSampleFrames) {
  EXPECT_EQ(EncodeFrame(Opcode::kText, "Hello"), kUnmaskedHello);
  EXPECT_EQ(EncodeFrame(Opcode::kText, "Hello", true, kRfcMask), kMaskedHello);
  EXPECT_EQ(EncodeFrame(Opcode::kText, "Hel", false), kFragmentedHel);
  EXPECT_EQ(EncodeFrame(Opcode::kContinuation, "lo"), kFragmentedLo);
  EXPECT_EQ(EncodeFrame(Opcode::kPing, "Hello"), kUnmaskedPing);
  EXPECT_EQ(EncodeFrame(Opcode::kPong, "Hello", true, kRfcMask), kMaskedPong);
}

TEST(WebSocketEncodeTest, LengthEncodings) {
  std::string f125 = EncodeFrame(Opcode::kBinary, std::string(125, 'a'));
  EXPECT_EQ(f125.substr(0, 2), Bytes({0x82, 125}));
  EXPECT_EQ(f125.size(), 127u);

  std::string f256 = EncodeFrame(Opcode::kBinary, std::string(256, 'a'));
  EXPECT_EQ(f256.substr(0, 4), Bytes({0x82, 0x7e, 0x01, 0x00}));
  EXPECT_EQ(f256.size(), 4u + 256);

  std::string f65535 = EncodeFrame(Opcode::kBinary, std::string(65535, 'a'));
  EXPECT_EQ(f65535.substr(0, 4), Bytes({0x82, 0x7e, 0xff, 0xff}));

  std::string f64k = EncodeFrame(Opcode::kBinary, std::string(65536, 'a'));
  EXPECT_EQ(f64k.substr(0, 10), Bytes({0x82, 0x7f, 0, 0, 0, 0, 0, 0x01, 0x00, 0x00}));
  EXPECT_EQ(f64k.size(), 10u + 65536);

  std::string masked = EncodeFrame(Opcode::kBinary, std::string(256, 'a'), true, 0x01020304);
  EXPECT_EQ(masked.substr(0, 8), Bytes({0x82, 0xfe, 0x01, 0x00, 0x01, 0x02, 0x03, 0x04}));
  EXPECT_EQ(masked[8], static_cast<char>('a' ^ 0x01));
  EXPECT_EQ(masked[11], static_cast<char>('a' ^ 0x04));
}

TEST(WebSocketEncodeTest, CloseFrames) {
  EXPECT_EQ(EncodeClose(kCloseNormal, ""), Bytes({0x88, 0x02, 0x03, 0xe8}));
  EXPECT_EQ(EncodeClose(kCloseProtocolError, "bad"), Bytes({0x88, 0x05, 0x03, 0xea, 'b', 'a', 'd'}));
  EXPECT_EQ(EncodeClose(kCloseNoStatus, "ignored"), Bytes({0x88, 0x00}));

  // A long reason is cut to 123 bytes, not inside a character: 61 two-byte characters (122 bytes).
  std::string reason;
  for (int i = 0; i < 100; ++i) reason += "\xc3\xa9";
  std::string frame = EncodeClose(kCloseGoingAway, reason);
  ASSERT_EQ(frame.size(), 2u + 2 + 122);
  auto [code, text] = ParseClose(std::string_view(frame).substr(2));
  EXPECT_EQ(code, kCloseGoingAway);
  EXPECT_EQ(text, reason.substr(0, 122));

  std::string ascii = EncodeClose(kCloseNormal, std::string(200, 'x'));
  EXPECT_EQ(ascii.size(), 2u + 125);
}

TEST(WebSocketEncodeTest, ParseClose) {
  EXPECT_EQ(ParseClose(""), std::make_pair(kCloseNoStatus, std::string()));
  EXPECT_EQ(ParseClose(Bytes({0x03, 0xe8})), std::make_pair(kCloseNormal, std::string()));
  EXPECT_EQ(ParseClose(Bytes({0x0f, 0xa0, 'h', 'i'})), std::make_pair(uint16_t{4000}, std::string("hi")));
}

// --- Decoding ---

TEST(WebSocketDecodeTest, RfcSampleFrames) {
  Decoded d = DecodeAll(false, kUnmaskedHello);
  ASSERT_TRUE(d.status.ok());
  EXPECT_EQ(d.messages, (std::vector<Message>{{Opcode::kText, "Hello"}}));

  d = DecodeAll(true, kMaskedHello);
  ASSERT_TRUE(d.status.ok());
  EXPECT_EQ(d.messages, (std::vector<Message>{{Opcode::kText, "Hello"}}));

  d = DecodeAll(false, kFragmentedHel + kFragmentedLo);
  ASSERT_TRUE(d.status.ok());
  EXPECT_EQ(d.messages, (std::vector<Message>{{Opcode::kText, "Hello"}}));

  d = DecodeAll(false, kUnmaskedPing);
  ASSERT_TRUE(d.status.ok());
  EXPECT_EQ(d.messages, (std::vector<Message>{{Opcode::kPing, "Hello"}}));

  d = DecodeAll(true, kMaskedPong);
  ASSERT_TRUE(d.status.ok());
  EXPECT_EQ(d.messages, (std::vector<Message>{{Opcode::kPong, "Hello"}}));

  std::string b256 = RandomBytes(256, 1);
  d = DecodeAll(false, Bytes({0x82, 0x7e, 0x01, 0x00}) + b256);
  ASSERT_TRUE(d.status.ok());
  EXPECT_EQ(d.messages, (std::vector<Message>{{Opcode::kBinary, b256}}));

  std::string b64k = RandomBytes(65536, 2);
  d = DecodeAll(false, Bytes({0x82, 0x7f, 0, 0, 0, 0, 0, 0x01, 0x00, 0x00}) + b64k);
  ASSERT_TRUE(d.status.ok());
  EXPECT_EQ(d.messages, (std::vector<Message>{{Opcode::kBinary, b64k}}));
}

TEST(WebSocketDecodeTest, PartialInputWaitsForTheRest) {
  Decoder d(false);
  std::vector<Message> out;
  ASSERT_TRUE(d.Feed(kFragmentedHel, &out).ok());
  EXPECT_TRUE(out.empty());
  EXPECT_TRUE(d.in_message());
  ASSERT_TRUE(d.Feed(kFragmentedLo.substr(0, 3), &out).ok());
  EXPECT_TRUE(out.empty());
  ASSERT_TRUE(d.Feed(kFragmentedLo.substr(3), &out).ok());
  EXPECT_EQ(out, (std::vector<Message>{{Opcode::kText, "Hello"}}));
  EXPECT_FALSE(d.in_message());
}

TEST(WebSocketDecodeTest, NonMinimalLengthsAreAccepted) {
  Decoded d = DecodeAll(false, Bytes({0x82, 0x7e, 0x00, 0x03, 'a', 'b', 'c'}));
  ASSERT_TRUE(d.status.ok());
  EXPECT_EQ(d.messages, (std::vector<Message>{{Opcode::kBinary, "abc"}}));
  d = DecodeAll(false, Bytes({0x82, 0x7f, 0, 0, 0, 0, 0, 0, 0, 0x01, 'a'}));
  ASSERT_TRUE(d.status.ok());
  EXPECT_EQ(d.messages, (std::vector<Message>{{Opcode::kBinary, "a"}}));
}

// What kubectl (gorilla) sends on an exec stream: masked frames, a stdin write over its write
// buffer in fragments with a ping between them, empty frames, the v5 stream-close signal, a close.
std::string GorillaClientStream(std::vector<Message>* expected) {
  std::string stdin_data = std::string(1, '\0') + RandomBytes(40000, 3);
  std::string s;
  uint32_t mask = 0xa1b2c3d4;
  s += EncodeFrame(Opcode::kBinary, std::string_view(stdin_data).substr(0, 33792), false, mask++);
  s += EncodeFrame(Opcode::kPing, "", true, mask++);
  s += EncodeFrame(Opcode::kContinuation, "", false, mask++);
  s += EncodeFrame(Opcode::kContinuation, std::string_view(stdin_data).substr(33792), true, mask++);
  s += EncodeFrame(Opcode::kBinary, "", true, mask++);
  s += EncodeFrame(Opcode::kBinary, Bytes({255, 0}), true, mask++);
  s += EncodeFrame(Opcode::kText, "0aGk=", true, mask++);
  s += EncodeClose(kCloseNormal, "", mask++);
  *expected = {{Opcode::kPing, ""},
               {Opcode::kBinary, stdin_data},
               {Opcode::kBinary, ""},
               {Opcode::kBinary, Bytes({255, 0})},
               {Opcode::kText, "0aGk="},
               {Opcode::kClose, Bytes({0x03, 0xe8})}};
  return s;
}

TEST(WebSocketDecodeTest, WhatKubectlSends) {
  std::vector<Message> expected;
  std::string stream = GorillaClientStream(&expected);
  Decoded d = DecodeAll(true, stream);
  ASSERT_TRUE(d.status.ok()) << d.status.message();
  EXPECT_EQ(d.messages, expected);
  EXPECT_EQ(ParseClose(d.messages.back().payload), std::make_pair(kCloseNormal, std::string()));
}

TEST(WebSocketDecodeTest, ByteAtATimeGivesTheSameMessages) {
  std::vector<Message> expected;
  std::string stream = GorillaClientStream(&expected);
  EXPECT_EQ(DecodeByteAtATime(true, stream), expected);

  std::string server_stream = kUnmaskedHello + kFragmentedHel + kUnmaskedPing + kFragmentedLo +
                              EncodeFrame(Opcode::kBinary, RandomBytes(70000, 4)) + EncodeClose(kCloseNormal, "bye");
  Decoded whole = DecodeAll(false, server_stream);
  ASSERT_TRUE(whole.status.ok());
  ASSERT_EQ(whole.messages.size(), 5u);
  EXPECT_EQ(whole.messages[1], (Message{Opcode::kPing, "Hello"}));
  EXPECT_EQ(whole.messages[2], (Message{Opcode::kText, "Hello"}));
  EXPECT_EQ(DecodeByteAtATime(false, server_stream), whole.messages);
}

TEST(WebSocketDecodeTest, RoundTripsEverySizeBothSides) {
  for (size_t n : {0, 1, 125, 126, 127, 65535, 65536, 200000}) {
    std::string payload = RandomBytes(n, static_cast<uint32_t>(n));
    for (bool client : {false, true}) {
      std::optional<uint32_t> mask = client ? std::optional<uint32_t>(0xdeadbeef ^ static_cast<uint32_t>(n)) : std::nullopt;
      // Whole, and in three fragments.
      std::string frames = EncodeFrame(Opcode::kBinary, payload, true, mask);
      size_t a = n / 3, b = 2 * n / 3;
      frames += EncodeFrame(Opcode::kText, std::string_view(payload).substr(0, a), false, mask);
      frames += EncodeFrame(Opcode::kContinuation, std::string_view(payload).substr(a, b - a), false, mask);
      frames += EncodeFrame(Opcode::kContinuation, std::string_view(payload).substr(b), true, mask);
      Decoded d = DecodeAll(client, frames);  // a client's frames go to a server decoder
      ASSERT_TRUE(d.status.ok()) << n << " " << d.status.message();
      EXPECT_EQ(d.messages, (std::vector<Message>{{Opcode::kBinary, payload}, {Opcode::kText, payload}})) << n;
    }
  }
}

TEST(WebSocketDecodeTest, MessageExactlyAtTheLimit) {
  DecoderLimits limits{.max_message_bytes = 100};
  std::string frames = EncodeFrame(Opcode::kBinary, std::string(60, 'a'), false) +
                       EncodeFrame(Opcode::kContinuation, std::string(40, 'b'));
  Decoded d = DecodeAll(false, frames, limits);
  ASSERT_TRUE(d.status.ok());
  EXPECT_EQ(d.messages[0].payload.size(), 100u);
}

// --- Violations ---

TEST(WebSocketViolationTest, ReservedBits) {
  for (int bit : {0x40, 0x20, 0x10}) ExpectViolation(false, Bytes({0x81 | bit, 0x00}), kCloseProtocolError);
}

TEST(WebSocketViolationTest, UnknownOpcodes) {
  for (int op : {3, 4, 5, 6, 7, 11, 12, 13, 14, 15}) ExpectViolation(false, Bytes({0x80 | op, 0x00}), kCloseProtocolError);
}

TEST(WebSocketViolationTest, FragmentedControlFrame) {
  for (int op : {8, 9, 10}) ExpectViolation(false, Bytes({op, 0x00}), kCloseProtocolError);
}

TEST(WebSocketViolationTest, ControlFrameOver125Bytes) {
  ExpectViolation(false, Bytes({0x89, 126, 0x00, 126}), kCloseProtocolError);
  ExpectViolation(false, Bytes({0x8a, 127}), kCloseProtocolError);  // refused before the length arrives
  ExpectViolation(false, Bytes({0x88, 126}), kCloseProtocolError);
}

TEST(WebSocketViolationTest, ContinuationWithoutAStart) {
  ExpectViolation(false, kFragmentedLo, kCloseProtocolError);
  // Nor after a message that has ended.
  ExpectViolation(false, kUnmaskedHello + kFragmentedLo, kCloseProtocolError);
}

TEST(WebSocketViolationTest, NewDataFrameInsideAFragmentedMessage) {
  ExpectViolation(false, kFragmentedHel + EncodeFrame(Opcode::kBinary, "x"), kCloseProtocolError);
  ExpectViolation(false, kFragmentedHel + EncodeFrame(Opcode::kText, "x", false), kCloseProtocolError);
}

TEST(WebSocketViolationTest, MaskingWrongForTheSide) {
  ExpectViolation(true, kUnmaskedHello, kCloseProtocolError);
  ExpectViolation(false, kMaskedHello, kCloseProtocolError);
  ExpectViolation(true, kUnmaskedPing, kCloseProtocolError);
}

TEST(WebSocketViolationTest, MessageOverTheLimit) {
  DecoderLimits limits{.max_message_bytes = 100};
  // One frame: refused on its header, before any payload.
  ExpectViolation(false, Bytes({0x82, 101}), kCloseTooBig, limits);
  // Fragments that together pass it.
  ExpectViolation(false, EncodeFrame(Opcode::kBinary, std::string(60, 'a'), false) + Bytes({0x80, 41}), kCloseTooBig,
                  limits);
  // The default limit, 32 MiB, on a declared 64-bit length.
  ExpectViolation(false, Bytes({0x82, 0x7f, 0, 0, 0, 0, 0x02, 0x00, 0x00, 0x01}), kCloseTooBig);
}

TEST(WebSocketViolationTest, SixtyFourBitLengthWithTopBit) {
  ExpectViolation(false, Bytes({0x82, 0x7f, 0x80, 0, 0, 0, 0, 0, 0, 0x01}), kCloseProtocolError);
}

TEST(WebSocketViolationTest, BadCloseFrames) {
  ExpectViolation(false, Bytes({0x88, 0x01, 0x03}), kCloseProtocolError);
  for (int code : {0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000}) {
    ExpectViolation(false, EncodeFrame(Opcode::kClose, Bytes({code >> 8, code & 0xff})), kCloseProtocolError);
  }
  ExpectViolation(false, EncodeFrame(Opcode::kClose, Bytes({0x03, 0xe8, 0xc3, 0x28})), kCloseInvalidPayload);
  ExpectViolation(false, EncodeFrame(Opcode::kClose, Bytes({0x03, 0xe8, 0xed, 0xa0, 0x80})), kCloseInvalidPayload);
  ExpectViolation(false, EncodeFrame(Opcode::kClose, Bytes({0x03, 0xe8, 0xe0, 0x80, 0xaf})), kCloseInvalidPayload);

  for (int code : {1000, 1001, 1003, 1007, 1011, 1014, 3000, 4999}) {
    Decoded d = DecodeAll(false, EncodeClose(static_cast<uint16_t>(code), "ok \xe2\x82\xac"));
    ASSERT_TRUE(d.status.ok()) << code;
    EXPECT_EQ(ParseClose(d.messages.at(0).payload), std::make_pair(static_cast<uint16_t>(code), std::string("ok \xe2\x82\xac")));
  }
  Decoded empty = DecodeAll(false, EncodeClose(kCloseNoStatus, ""));
  ASSERT_TRUE(empty.status.ok());
  EXPECT_EQ(ParseClose(empty.messages.at(0).payload).first, kCloseNoStatus);
}

TEST(WebSocketViolationTest, MessagesBeforeTheViolationAreDelivered) {
  Decoder d(false);
  std::vector<Message> out;
  Status s = d.Feed(kUnmaskedHello + kUnmaskedPing + Bytes({0xc1, 0x00}) + kUnmaskedHello, &out);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(d.close_code(), kCloseProtocolError);
  EXPECT_EQ(out, (std::vector<Message>{{Opcode::kText, "Hello"}, {Opcode::kPing, "Hello"}}));
}

TEST(WebSocketViolationTest, ByteAtATimeFindsTheSameViolation) {
  std::string bad = kFragmentedHel + kUnmaskedPing + EncodeFrame(Opcode::kBinary, "x");
  Decoder d(false);
  std::vector<Message> out;
  Status s;
  size_t i = 0;
  for (; i < bad.size() && s.ok(); ++i) s = d.Feed(bad.substr(i, 1), &out);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(i, kFragmentedHel.size() + kUnmaskedPing.size() + 2);  // at the new frame's second byte
  EXPECT_EQ(out, (std::vector<Message>{{Opcode::kPing, "Hello"}}));
}

}  // namespace
}  // namespace capstan::http::websocket
