#include "server/http/spdy_framer.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>
#include <vector>

namespace capstan::http::spdy {
namespace {

std::string FromHex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

std::vector<Frame> DecodeAll(std::string_view bytes, DecoderLimits limits = {}) {
  Decoder d(limits);
  std::vector<Frame> frames;
  Status st = d.Feed(bytes, &frames);
  EXPECT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(d.buffered(), 0u);
  return frames;
}

Status DecodeError(std::string_view bytes, DecoderLimits limits = {}) {
  Decoder d(limits);
  std::vector<Frame> frames;
  return d.Feed(bytes, &frames);
}

// A block compressed by a zlib stream of its own, as a peer's first header block would be.
std::string Compress(std::string_view block, std::string_view dict = HeaderDictionary(), int flush = Z_SYNC_FLUSH) {
  z_stream z{};
  EXPECT_EQ(deflateInit(&z, Z_DEFAULT_COMPRESSION), Z_OK);
  EXPECT_EQ(deflateSetDictionary(&z, reinterpret_cast<const Bytef*>(dict.data()), dict.size()), Z_OK);
  std::string compressed(deflateBound(&z, block.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(block.data()));
  z.avail_in = block.size();
  z.next_out = reinterpret_cast<Bytef*>(compressed.data());
  z.avail_out = compressed.size();
  EXPECT_EQ(deflate(&z, flush), flush == Z_FINISH ? Z_STREAM_END : Z_OK);
  compressed.resize(compressed.size() - z.avail_out);
  deflateEnd(&z);
  return compressed;
}

// A header-carrying control frame with a given prefix (stream ids...) and compressed block.
std::string ControlFrame(FrameType type, std::string_view prefix, std::string_view compressed) {
  std::string out;
  size_t length = prefix.size() + compressed.size();
  out += {'\x80', '\x03', '\0', static_cast<char>(type), '\0', static_cast<char>(length >> 16),
          static_cast<char>(length >> 8), static_cast<char>(length)};
  out += prefix;
  out += compressed;
  return out;
}

// A header-carrying control frame whose block is given uncompressed.
std::string RawHeaderFrame(FrameType type, std::string_view prefix, std::string_view block) {
  return ControlFrame(type, prefix, Compress(block));
}

std::string U32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}

std::string Block(const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::string b = U32(pairs.size());
  for (const auto& [n, v] : pairs) b += U32(n.size()) + n + U32(v.size()) + v;
  return b;
}

TEST(SpdyFramerTest, DictionaryIsSpdy3s) {
  std::string_view dict = HeaderDictionary();
  ASSERT_EQ(dict.size(), 1423u);
  // The dictionary id spdystream writes in its first zlib header (see the golden bytes below).
  EXPECT_EQ(adler32(1, reinterpret_cast<const Bytef*>(dict.data()), dict.size()), 0xe3c6a7c2u);
}

// Written by github.com/moby/spdystream v0.5.0's spdy.Framer: SYN_STREAM 1 {streamtype: error, port: 8080};
// SYN_STREAM 3 (associated 1, priority 7, unidirectional) {streamtype: stdout, x-multi: a, b}; SYN_REPLY 1
// FIN {}; HEADERS 3 {status: 200}; DATA 3 FIN "hello"; RST_STREAM 5 CANCEL; SETTINGS {persist
// INITIAL_WINDOW_SIZE 65536, MAX_CONCURRENT_STREAMS 100}; PING 7; GOAWAY 3 PROTOCOL_ERROR; WINDOW_UPDATE 3
// 4096. One compression context across the four header blocks.
constexpr std::string_view kSpdystreamFrames =
    "80030001000000310000000100000000000078f9e3c6a7c202e50e703a2b294a4dcc851625aca9a0808614cb45e01c606160"
    "6100000000ffff80030001020000270000000300000001e000c2aa94adb824251f5c66b357e8e696e69464820b5686240000"
    "0000ffff800300020100000e000000016260606000000000ffff8003000800000015000000036260606044c900cc46060600"
    "000000ffff000000030100000568656c6c6f8003000300000008000000050000000580030004000000140000000201000007"
    "0001000000000004000000648003000600000004000000078003000700000008000000030000000180030009000000080000"
    "000300001000";

void ExpectSpdystreamFrames(const std::vector<Frame>& f) {
  ASSERT_EQ(f.size(), 10u);
  EXPECT_EQ(f[0].type, FrameType::kSynStream);
  EXPECT_EQ(f[0].stream_id, 1u);
  EXPECT_EQ(f[0].flags, 0);
  EXPECT_EQ(f[0].headers.size(), 2u);
  EXPECT_EQ(f[0].Header("streamtype"), "error");
  EXPECT_EQ(f[0].Header("port"), "8080");
  EXPECT_EQ(f[1].type, FrameType::kSynStream);
  EXPECT_EQ(f[1].stream_id, 3u);
  EXPECT_EQ(f[1].associated_id, 1u);
  EXPECT_EQ(f[1].priority, 7);
  EXPECT_EQ(f[1].flags, kFlagUnidirectional);
  EXPECT_EQ(f[1].Header("streamType"), "stdout");
  EXPECT_EQ(f[1].Header("x-multi"), "a");
  for (const auto& [n, v] : f[1].headers) {
    if (n == "x-multi") EXPECT_EQ(v, std::string("a\0b", 3));
  }
  EXPECT_EQ(f[2].type, FrameType::kSynReply);
  EXPECT_EQ(f[2].stream_id, 1u);
  EXPECT_EQ(f[2].flags, kFlagFin);
  EXPECT_TRUE(f[2].headers.empty());
  EXPECT_EQ(f[3].type, FrameType::kHeaders);
  EXPECT_EQ(f[3].Header("status"), "200");
  EXPECT_EQ(f[4].type, FrameType::kData);
  EXPECT_EQ(f[4].stream_id, 3u);
  EXPECT_EQ(f[4].flags, kFlagFin);
  EXPECT_EQ(f[4].data, "hello");
  EXPECT_EQ(f[5].type, FrameType::kRstStream);
  EXPECT_EQ(f[5].stream_id, 5u);
  EXPECT_EQ(f[5].status, kRstCancel);
  EXPECT_EQ(f[6].type, FrameType::kSettings);
  EXPECT_EQ(f[6].settings, (std::vector<Setting>{{kSettingsFlagPersistValue, kSettingsInitialWindowSize, 65536},
                                                 {0, kSettingsMaxConcurrentStreams, 100}}));
  EXPECT_EQ(f[7].type, FrameType::kPing);
  EXPECT_EQ(f[7].ping_id, 7u);
  EXPECT_EQ(f[8].type, FrameType::kGoAway);
  EXPECT_EQ(f[8].last_good_stream_id, 3u);
  EXPECT_EQ(f[8].status, kGoAwayProtocolError);
  EXPECT_EQ(f[9].type, FrameType::kWindowUpdate);
  EXPECT_EQ(f[9].stream_id, 3u);
  EXPECT_EQ(f[9].delta_window, 4096u);
}

TEST(SpdyFramerTest, DecodesFramesWrittenBySpdystream) {
  ExpectSpdystreamFrames(DecodeAll(FromHex(kSpdystreamFrames)));
}

TEST(SpdyFramerTest, DecodesSpdystreamFramesFedByteAtATime) {
  std::string bytes = FromHex(kSpdystreamFrames);
  Decoder d;
  std::vector<Frame> frames;
  for (char c : bytes) ASSERT_TRUE(d.Feed(std::string_view(&c, 1), &frames).ok());
  EXPECT_EQ(d.buffered(), 0u);
  ExpectSpdystreamFrames(frames);
}

// The same frames as spdystream's, from our encoder: what its reader gets is the same.
std::string EncodeSpdystreamFrames() {
  Encoder e;
  std::string out = e.SynStream(1, 0, 0, 0, {{"streamtype", "error"}, {"port", "8080"}});
  out += e.SynStream(3, 1, 7, kFlagUnidirectional, {{"streamType", "stdout"}, {"X-Multi", "a"}, {"x-multi", "b"}});
  out += e.SynReply(1, kFlagFin, {});
  out += e.Headers(3, 0, {{"status", "200"}});
  out += Encoder::Data(3, kFlagFin, "hello");
  out += Encoder::RstStream(5, kRstCancel);
  out += Encoder::Settings({{kSettingsFlagPersistValue, kSettingsInitialWindowSize, 65536},
                            {0, kSettingsMaxConcurrentStreams, 100}});
  out += Encoder::Ping(7);
  out += Encoder::GoAway(3, kGoAwayProtocolError);
  out += Encoder::WindowUpdate(3, 4096);
  return out;
}

TEST(SpdyFramerTest, RoundTripsEveryFrameType) { ExpectSpdystreamFrames(DecodeAll(EncodeSpdystreamFrames())); }

TEST(SpdyFramerTest, FixedFramesAreByteForByteSpdystreams) {
  // Frames without a header block have one encoding: the tail of the golden bytes, from DATA on.
  std::string golden = FromHex(kSpdystreamFrames);
  std::string ours = Encoder::Data(3, kFlagFin, "hello") + Encoder::RstStream(5, kRstCancel) +
                     Encoder::Settings({{kSettingsFlagPersistValue, kSettingsInitialWindowSize, 65536},
                                        {0, kSettingsMaxConcurrentStreams, 100}}) +
                     Encoder::Ping(7) + Encoder::GoAway(3, kGoAwayProtocolError) + Encoder::WindowUpdate(3, 4096);
  ASSERT_GE(golden.size(), ours.size());
  EXPECT_EQ(golden.substr(golden.size() - ours.size()), ours);
}

TEST(SpdyFramerTest, DecodesAnySplit) {
  std::string bytes = EncodeSpdystreamFrames();
  for (size_t cut = 0; cut <= bytes.size(); ++cut) {
    Decoder d;
    std::vector<Frame> frames;
    ASSERT_TRUE(d.Feed(std::string_view(bytes).substr(0, cut), &frames).ok());
    ASSERT_TRUE(d.Feed(std::string_view(bytes).substr(cut), &frames).ok());
    ASSERT_EQ(frames.size(), 10u) << cut;
  }
}

TEST(SpdyFramerTest, HeaderBlocksShareOneCompressionContext) {
  Encoder e;
  HeaderBlock h = {{"streamtype", "stdout"}, {"x-kubernetes-pf-requestid", "0"}, {"port", "8080"}};
  std::string first = e.SynStream(1, 0, 0, 0, h);
  std::string second = e.SynStream(3, 0, 0, 0, h);
  std::string third = e.Headers(3, kFlagFin, {{"status", "200"}});
  // The second block refers back to the first one's bytes.
  EXPECT_LT(second.size(), first.size());
  std::vector<Frame> frames = DecodeAll(first + second + third);
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames[0].headers, h);
  EXPECT_EQ(frames[1].headers, h);
  EXPECT_EQ(frames[2].Header("status"), "200");
  // Without the first block, the second cannot be inflated.
  EXPECT_FALSE(DecodeError(second).ok());
}

TEST(SpdyFramerTest, EncoderLowerCasesAndMergesRepeatedNames) {
  Encoder e;
  std::vector<Frame> f = DecodeAll(e.SynReply(1, 0, {{"Accept", "a"}, {"port", "1"}, {"ACCEPT", "b"}}));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].headers, (HeaderBlock{{"accept", std::string("a\0b", 3)}, {"port", "1"}}));
  EXPECT_EQ(f[0].Header("Accept"), "a");
  EXPECT_EQ(f[0].Header("missing"), "");
}

TEST(SpdyFramerTest, ReservedBitsAreCleared) {
  std::vector<Frame> f =
      DecodeAll(Encoder::WindowUpdate(0x80000000u | 5, 0xffffffffu) + Encoder::Data(0xffffffffu, 0, "x"));
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].stream_id, 5u);
  EXPECT_EQ(f[0].delta_window, 0x7fffffffu);
  EXPECT_EQ(f[1].stream_id, 0x7fffffffu);
}

TEST(SpdyFramerTest, ConnectionWindowUpdateOnStreamZero) {
  std::vector<Frame> f = DecodeAll(Encoder::WindowUpdate(0, 1 << 20));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].stream_id, 0u);
  EXPECT_EQ(f[0].delta_window, 1u << 20);
}

TEST(SpdyFramerTest, UnknownControlFramesAreSkipped) {
  // A CREDENTIAL (type 10) and a NOOP (type 5) between two pings.
  std::string credential = FromHex("8003000a00000006") + "abcdef";
  std::string noop = FromHex("8003000500000000");
  std::vector<Frame> f = DecodeAll(Encoder::Ping(1) + credential + noop + Encoder::Ping(2));
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].ping_id, 1u);
  EXPECT_EQ(f[1].ping_id, 2u);
}

TEST(SpdyFramerTest, FrameOverTheLimitFailsBeforeItArrives) {
  DecoderLimits limits;
  limits.max_frame_bytes = 100;
  std::vector<Frame> f = DecodeAll(Encoder::Data(1, 0, std::string(100, 'x')), limits);
  EXPECT_EQ(f.size(), 1u);
  Decoder d(limits);
  std::vector<Frame> frames;
  std::string big = Encoder::Data(1, 0, std::string(101, 'x'));
  EXPECT_FALSE(d.Feed(std::string_view(big).substr(0, 8), &frames).ok());
  EXPECT_TRUE(frames.empty());
}

TEST(SpdyFramerTest, HeaderBlockOverTheLimitFails) {
  DecoderLimits limits;
  limits.max_header_block_bytes = 4096;
  Encoder e;
  // Compresses to almost nothing, inflates past the limit.
  std::string frame = e.SynStream(1, 0, 0, 0, {{"big", std::string(8192, 'a')}});
  EXPECT_LT(frame.size(), 200u);
  EXPECT_FALSE(DecodeError(frame, limits).ok());
  limits.max_header_block_bytes = 9000;
  EXPECT_EQ(DecodeAll(frame, limits).size(), 1u);
}

TEST(SpdyFramerTest, TooManyHeadersFail) {
  DecoderLimits limits;
  limits.max_header_count = 3;
  Encoder e;
  std::string three = e.SynStream(1, 0, 0, 0, {{"a", "1"}, {"b", "2"}, {"c", "3"}});
  std::string four = e.SynStream(3, 0, 0, 0, {{"a", "1"}, {"b", "2"}, {"c", "3"}, {"d", "4"}});
  Decoder d(limits);
  std::vector<Frame> frames;
  EXPECT_TRUE(d.Feed(three, &frames).ok());
  EXPECT_FALSE(d.Feed(four, &frames).ok());
  EXPECT_EQ(frames.size(), 1u);
}

TEST(SpdyFramerTest, AnErrorIsStickyAndKeepsEarlierFrames) {
  Decoder d;
  std::vector<Frame> frames;
  Status st = d.Feed(Encoder::Ping(1) + FromHex("8002000600000004") + U32(2), &frames);  // version 2
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("version"), std::string::npos) << st.message();
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_FALSE(d.Feed(Encoder::Ping(3), &frames).ok());
  EXPECT_EQ(frames.size(), 1u);
}

TEST(SpdyFramerTest, MalformedFramesFail) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"DATA on stream 0", Encoder::Data(0, 0, "x")},
      {"RST_STREAM on stream 0", Encoder::RstStream(0, kRstCancel)},
      {"RST_STREAM status 0", Encoder::RstStream(1, 0)},
      {"RST_STREAM short", FromHex("8003000300000004") + U32(1)},
      {"PING id 0", Encoder::Ping(0)},
      {"PING with flags", FromHex("8003000601000004") + U32(1)},
      {"PING long", FromHex("8003000600000008") + U32(1) + U32(2)},
      {"GOAWAY short", FromHex("8003000700000004") + U32(1)},
      {"GOAWAY with flags", FromHex("8003000701000008") + U32(1) + U32(0)},
      {"WINDOW_UPDATE with flags", FromHex("8003000901000008") + U32(1) + U32(1)},
      {"WINDOW_UPDATE short", FromHex("8003000900000004") + U32(1)},
      {"SETTINGS empty", FromHex("8003000400000000")},
      {"SETTINGS count too big", FromHex("800300040000000c") + U32(2) + U32(1) + U32(1)},
      {"SETTINGS count too small", FromHex("800300040000000c") + U32(0) + U32(1) + U32(1)},
      {"SETTINGS huge count", FromHex("800300040000000c") + U32(0x20000001) + U32(1) + U32(1)},
      {"SYN_STREAM short", FromHex("8003000100000008") + U32(1) + U32(0)},
      {"SYN_STREAM empty block", FromHex("800300010000000a") + U32(1) + U32(0) + std::string(2, '\0')},
      {"SYN_REPLY short", FromHex("8003000200000002") + std::string(2, '\0')},
      {"HEADERS not zlib", FromHex("8003000800000008") + U32(1) + "junk"},
      {"SYN_STREAM on stream 0",
       RawHeaderFrame(FrameType::kSynStream, U32(0) + U32(0) + std::string(2, '\0'), Block({}))},
      {"SYN_REPLY on stream 0", RawHeaderFrame(FrameType::kSynReply, U32(0), Block({}))},
      {"upper-case name", RawHeaderFrame(FrameType::kSynReply, U32(1), Block({{"Port", "1"}}))},
      {"empty name", RawHeaderFrame(FrameType::kSynReply, U32(1), Block({{"", "1"}}))},
      {"repeated name", RawHeaderFrame(FrameType::kSynReply, U32(1), Block({{"a", "1"}, {"b", "2"}, {"a", "3"}}))},
      {"trailing bytes", RawHeaderFrame(FrameType::kSynReply, U32(1), Block({{"a", "1"}}) + "x")},
      {"truncated count", RawHeaderFrame(FrameType::kSynReply, U32(1), std::string(2, '\0'))},
      {"truncated value", RawHeaderFrame(FrameType::kSynReply, U32(1), Block({{"a", "1234"}}).substr(0, 15))},
      {"count past the block", RawHeaderFrame(FrameType::kSynReply, U32(1), U32(5) + U32(1) + "a" + U32(0))},
      {"length past the block", RawHeaderFrame(FrameType::kSynReply, U32(1), U32(1) + U32(0xffffffff) + "a" + U32(0))},
  };
  for (const auto& [what, bytes] : cases) {
    Status st = DecodeError(bytes);
    EXPECT_FALSE(st.ok()) << what;
    // Fed byte at a time too.
    Decoder d;
    std::vector<Frame> frames;
    bool failed = false;
    for (char c : bytes) failed = failed || !d.Feed(std::string_view(&c, 1), &frames).ok();
    EXPECT_TRUE(failed) << what;
    EXPECT_TRUE(frames.empty()) << what;
  }
}

TEST(SpdyFramerTest, RawHeaderFrameHelperMakesValidFrames) {
  // The helper behind the malformed cases above gives a good frame for a good block.
  std::vector<Frame> f = DecodeAll(RawHeaderFrame(FrameType::kSynReply, U32(1), Block({{"a", "1"}})));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].Header("a"), "1");
}

TEST(SpdyFramerTest, WrongDictionaryFails) {
  std::string frame = ControlFrame(FrameType::kSynReply, U32(1), Compress(Block({{"a", "1"}}), "other"));
  EXPECT_FALSE(DecodeError(frame).ok());
}

TEST(SpdyFramerTest, EndedCompressionStreamFails) {
  std::string compressed = Compress(Block({{"a", "1"}}), HeaderDictionary(), Z_FINISH);
  EXPECT_FALSE(DecodeError(ControlFrame(FrameType::kSynReply, U32(1), compressed)).ok());
}

}  // namespace
}  // namespace capstan::http::spdy
