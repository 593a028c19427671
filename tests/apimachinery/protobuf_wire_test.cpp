#include "apimachinery/protobuf_wire.h"

#include <gtest/gtest.h>

#include "apimachinery/protobuf_envelope.h"
#include "protobuf_test_util.h"

namespace capstan::apimachinery::protobuf {
namespace {

using testing::Hex;
using testing::Unhex;

TEST(ProtobufWire, VarintRoundTrip) {
  for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{127}, uint64_t{128}, uint64_t{300}, uint64_t{16383},
                     uint64_t{16384}, uint64_t{1} << 35, ~uint64_t{0}}) {
    std::string out;
    AppendVarint(out, v);
    EXPECT_EQ(out.size(), VarintSize(v)) << v;
    WireReader r(out);
    uint64_t got = 0;
    ASSERT_TRUE(r.ReadVarint(got)) << v;
    EXPECT_EQ(got, v);
    EXPECT_TRUE(r.done());
  }
  std::string out;
  AppendVarint(out, 300);
  EXPECT_EQ(Hex(out), "ac02");
  out.clear();
  AppendVarint(out, static_cast<uint64_t>(int64_t{-1}));  // an int32 -1 as Go writes it: 10 bytes
  EXPECT_EQ(Hex(out), "ffffffffffffffffff01");
}

TEST(ProtobufWire, ZigZag) {
  EXPECT_EQ(ZigZagEncode64(0), 0u);
  EXPECT_EQ(ZigZagEncode64(-1), 1u);
  EXPECT_EQ(ZigZagEncode64(1), 2u);
  EXPECT_EQ(ZigZagEncode64(INT64_MIN), ~uint64_t{0});
  EXPECT_EQ(ZigZagDecode64(ZigZagEncode64(INT64_MIN)), INT64_MIN);
  EXPECT_EQ(ZigZagDecode64(ZigZagEncode64(-123456789)), -123456789);
  EXPECT_EQ(ZigZagEncode32(-2), 3u);
  EXPECT_EQ(ZigZagDecode32(ZigZagEncode32(INT32_MIN)), INT32_MIN);
}

TEST(ProtobufWire, FixedLittleEndian) {
  std::string out;
  AppendFixed32(out, 0x01020304);
  AppendFixed64(out, 0x0102030405060708ull);
  EXPECT_EQ(Hex(out), "040302010807060504030201");
  WireReader r(out);
  uint32_t a;
  uint64_t b;
  ASSERT_TRUE(r.ReadFixed32(a));
  ASSERT_TRUE(r.ReadFixed64(b));
  EXPECT_EQ(a, 0x01020304u);
  EXPECT_EQ(b, 0x0102030405060708ull);
}

TEST(ProtobufWire, KeysAndLengthDelimited) {
  std::string out;
  AppendLengthDelimited(out, 1, "abc");
  AppendKey(out, 2, WireType::kVarint);
  AppendVarint(out, 7);
  EXPECT_EQ(Hex(out), "0a036162631007");
  WireReader r(out);
  int32_t field;
  WireType wt;
  std::string_view s;
  ASSERT_TRUE(r.ReadKey(field, wt));
  EXPECT_EQ(field, 1);
  EXPECT_EQ(wt, WireType::kLengthDelimited);
  ASSERT_TRUE(r.ReadLengthDelimited(s));
  EXPECT_EQ(s, "abc");
  ASSERT_TRUE(r.ReadKey(field, wt));
  EXPECT_EQ(field, 2);
  EXPECT_TRUE(r.SkipValue(wt));
  EXPECT_TRUE(r.done());
}

TEST(ProtobufWire, LengthPatchedInPlace) {
  for (size_t n : {size_t{0}, size_t{127}, size_t{128}, size_t{16383}, size_t{16384}, size_t{70000}}) {
    std::string out = "x";
    const size_t mark = BeginLengthDelimited(out, 3);
    out.append(n, 'a');
    EndLengthDelimited(out, mark);
    out += "y";
    std::string want = "x";
    AppendLengthDelimited(want, 3, std::string(n, 'a'));
    want += "y";
    EXPECT_EQ(out, want) << n;
  }
}

TEST(ProtobufWire, TruncatedVarint) {
  const std::string r_bytes = Unhex("ff ff");
  WireReader r(r_bytes);
  uint64_t v;
  EXPECT_FALSE(r.ReadVarint(v));
  EXPECT_EQ(WireErrorText(r, "Pod"), "unexpected EOF");
  EXPECT_EQ(WireErrorStatus(r, "Pod").code(), 400);
  EXPECT_EQ(WireErrorStatus(r, "Pod").reason(), "BadRequest");
}

TEST(ProtobufWire, VarintOverTenBytes) {
  const std::string r_bytes = Unhex("ff ff ff ff ff ff ff ff ff ff 01");
  WireReader r(r_bytes);
  uint64_t v;
  EXPECT_FALSE(r.ReadVarint(v));
  EXPECT_EQ(WireErrorText(r, "Pod"), "proto: integer overflow");
}

TEST(ProtobufWire, LengthPastTheEnd) {
  const std::string r_bytes = Unhex("05 61 62");
  WireReader r(r_bytes);
  std::string_view s;
  EXPECT_FALSE(r.ReadLengthDelimited(s));
  EXPECT_EQ(WireErrorText(r, "Pod"), "unexpected EOF");
}

TEST(ProtobufWire, HugeLengthsAllocateNothing) {
  // 2^62: past the end; 2^63: negative as Go reads it into an int.
  const std::string a_bytes = Unhex("80 80 80 80 80 80 80 80 40 00");
  WireReader a(a_bytes);
  std::string_view s;
  EXPECT_FALSE(a.ReadLengthDelimited(s));
  EXPECT_EQ(WireErrorText(a, "Pod"), "unexpected EOF");
  const std::string b_bytes = Unhex("80 80 80 80 80 80 80 80 80 01");
  WireReader b(b_bytes);
  EXPECT_FALSE(b.ReadLengthDelimited(s));
  EXPECT_EQ(WireErrorText(b, "Pod"), "proto: negative length found during unmarshaling");
}

TEST(ProtobufWire, IllegalKeys) {
  int32_t field;
  WireType wt;
  const std::string zero_bytes = Unhex("00");
  WireReader zero(zero_bytes);
  EXPECT_FALSE(zero.ReadKey(field, wt));
  EXPECT_EQ(WireErrorText(zero, "ConfigMap"), "proto: ConfigMap: illegal tag 0 (wire type 0)");
  const std::string end_group_bytes = Unhex("0c");
  WireReader end_group(end_group_bytes);
  EXPECT_FALSE(end_group.ReadKey(field, wt));
  EXPECT_EQ(WireErrorText(end_group, "ConfigMap"), "proto: ConfigMap: wiretype end group for non-group");
  const std::string six_bytes = Unhex("0e");
  WireReader six(six_bytes);
  EXPECT_FALSE(six.ReadKey(field, wt));
  EXPECT_EQ(WireErrorText(six, "ConfigMap"), "proto: illegal wireType 6");
}

TEST(ProtobufWire, SkipsGroupsAndBoundsTheirDepth) {
  // field 1 start-group { field 2 varint 5 } end-group, then field 3 varint.
  const std::string r_bytes = Unhex("0b 10 05 0c 18 01");
  WireReader r(r_bytes);
  int32_t field;
  WireType wt;
  ASSERT_TRUE(r.ReadKey(field, wt));
  EXPECT_EQ(wt, WireType::kStartGroup);
  ASSERT_TRUE(r.SkipValue(wt));
  ASSERT_TRUE(r.ReadKey(field, wt));
  EXPECT_EQ(field, 3);

  std::string deep;
  for (int i = 0; i < 1000; ++i) deep += Unhex("0b");
  WireReader d(deep);
  ASSERT_TRUE(d.ReadKey(field, wt));
  EXPECT_FALSE(d.SkipValue(wt));
  EXPECT_EQ(d.error(), WireError::kGroupTooDeep);

  const std::string unterminated_bytes = Unhex("0b 10 05");
  WireReader unterminated(unterminated_bytes);
  ASSERT_TRUE(unterminated.ReadKey(field, wt));
  EXPECT_FALSE(unterminated.SkipValue(wt));
  EXPECT_EQ(WireErrorText(unterminated, "X"), "unexpected EOF");
}

TEST(ProtobufWire, TruncatedFixed) {
  const std::string r_bytes = Unhex("01 02 03");
  WireReader r(r_bytes);
  uint32_t a;
  EXPECT_FALSE(r.ReadFixed32(a));
  const std::string s_bytes = Unhex("01 02 03 04 05 06 07");
  WireReader s(s_bytes);
  uint64_t b;
  EXPECT_FALSE(s.ReadFixed64(b));
  EXPECT_EQ(WireErrorText(s, "X"), "unexpected EOF");
}

TEST(ProtobufEnvelope, EncodeWritesEveryField) {
  const std::string bytes = EncodeEnvelope("v1", "ConfigMap", Unhex("0a00"));
  EXPECT_EQ(Hex(bytes), "6b387300" "0a0f" "0a027631" "1209436f6e6669674d6170" "12020a00" "1a00" "2200");
  auto env = DecodeEnvelope(bytes);
  ASSERT_TRUE(env.ok()) << env.status().ToString();
  EXPECT_EQ(env->api_version, "v1");
  EXPECT_EQ(env->kind, "ConfigMap");
  EXPECT_EQ(Hex(env->raw), "0a00");
}

TEST(ProtobufEnvelope, InPlaceMatchesCopy) {
  std::string a;
  const size_t mark = BeginEnvelope(a, "apps/v1", "Deployment");
  a += std::string(300, 'z');
  FinishEnvelope(a, mark);
  EXPECT_EQ(a, EncodeEnvelope("apps/v1", "Deployment", std::string(300, 'z')));
}

TEST(ProtobufEnvelope, KubesErrors) {
  EXPECT_EQ(DecodeEnvelope("").status().message(), "empty data");
  EXPECT_EQ(DecodeEnvelope("{\"kind\":\"Pod\"}").status().message(),
            "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]");
  EXPECT_EQ(DecodeEnvelope(std::string("k8s\0", 4)).status().message(), "empty body");
  auto truncated = DecodeEnvelope(std::string("k8s\0", 4) + Unhex("0a 0f 0a 02"));
  EXPECT_EQ(truncated.status().code(), 400);
  EXPECT_EQ(truncated.status().message(), "unexpected EOF");
  auto wrong = DecodeEnvelope(std::string("k8s\0", 4) + Unhex("10 01"));
  EXPECT_EQ(wrong.status().message(), "proto: wrong wireType = 0 for field Raw");
}

TEST(ProtobufEnvelope, UnknownFieldsSkipped) {
  std::string bytes = EncodeEnvelope("v1", "Pod", "raw");
  bytes += Unhex("28 05 3a 01 78");  // fields 5 (varint) and 7 (bytes)
  auto env = DecodeEnvelope(bytes);
  ASSERT_TRUE(env.ok()) << env.status().ToString();
  EXPECT_EQ(env->raw, "raw");
}

TEST(ProtobufWatchFrames, SplitsAStreamInAnyChunking) {
  std::string stream;
  AppendWatchFrame(stream, "first");
  AppendWatchFrame(stream, "");
  AppendWatchFrame(stream, std::string(5000, 'q'));
  EXPECT_EQ(Hex(stream.substr(0, 4)), "00000005");
  for (size_t chunk : {size_t{1}, size_t{3}, size_t{4096}}) {
    WatchFrameReader r;
    std::vector<std::string> frames;
    for (size_t i = 0; i < stream.size(); i += chunk) {
      r.Append(stream.substr(i, chunk));
      std::string f;
      for (;;) {
        auto got = r.Next(f);
        ASSERT_TRUE(got.ok());
        if (!*got) break;
        frames.push_back(f);
      }
    }
    ASSERT_EQ(frames.size(), 3u) << chunk;
    EXPECT_EQ(frames[0], "first");
    EXPECT_EQ(frames[1], "");
    EXPECT_EQ(frames[2].size(), 5000u);
    EXPECT_EQ(r.buffered(), 0u);
  }
}

TEST(ProtobufWatchFrames, OversizedFrameIsAnError) {
  WatchFrameReader r(1024);
  r.Append(Unhex("7fffffff"));
  std::string f;
  auto got = r.Next(f);
  EXPECT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), 400);
}

}  // namespace
}  // namespace capstan::apimachinery::protobuf
