#include "api/schemas/wire_reader.h"

#include <gtest/gtest.h>

#include <string>

namespace capstan::api::testing {
namespace {

using namespace std::string_literals;

TEST(WireReaderTest, ReadsEachWireType) {
  // 1: varint 150; 2: "hi"; 3: fixed64 1; 4: fixed32 2
  std::string data = "\x08\x96\x01"s + "\x12\x02hi"s + "\x19\x01\0\0\0\0\0\0\0"s + "\x25\x02\0\0\0"s;
  WireReader r(data);
  WireField f;
  ASSERT_TRUE(r.Next(&f));
  EXPECT_EQ(f.number, 1u);
  EXPECT_EQ(f.type, WireType::kVarint);
  EXPECT_EQ(f.varint, 150u);
  ASSERT_TRUE(r.Next(&f));
  EXPECT_EQ(f.number, 2u);
  EXPECT_EQ(f.type, WireType::kLen);
  EXPECT_EQ(f.payload, "hi");
  ASSERT_TRUE(r.Next(&f));
  EXPECT_EQ(f.type, WireType::kFixed64);
  EXPECT_EQ(f.varint, 1u);
  ASSERT_TRUE(r.Next(&f));
  EXPECT_EQ(f.number, 4u);
  EXPECT_EQ(f.type, WireType::kFixed32);
  EXPECT_EQ(f.varint, 2u);
  EXPECT_FALSE(r.Next(&f));
  EXPECT_TRUE(r.ok());
}

TEST(WireReaderTest, SignExtendedNegativeVarint) {
  // Go writes int32(-1) as a ten-byte varint.
  std::string data = "\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"s;
  WireReader r(data);
  WireField f;
  ASSERT_TRUE(r.Next(&f));
  EXPECT_EQ(static_cast<int64_t>(f.varint), -1);
}

TEST(WireReaderTest, RejectsMalformedInput) {
  for (const std::string& bad : {"\x12\x05hi"s, "\x08\x80"s, "\x00\x01"s, "\x0b"s, "\x19\x01\x02"s,
                                 "\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"s}) {
    WireReader r(bad);
    WireField f;
    while (r.Next(&f)) {
    }
    EXPECT_FALSE(r.ok()) << "accepted " << ::testing::PrintToString(bad);
    EXPECT_FALSE(r.error().empty());
  }
}

}  // namespace
}  // namespace capstan::api::testing
