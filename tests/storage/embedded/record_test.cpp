#include "storage/embedded/record.h"

#include <gtest/gtest.h>

#include <random>

namespace capstan::storage::embedded {
namespace {

TEST(RecordTest, RevisionKeysSortInRevisionOrder) {
  std::string a = EncodeRevisionKey({1, 5});
  std::string b = EncodeRevisionKey({2, 0});
  std::string c = EncodeRevisionKey({256, 0});
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  auto back = DecodeRevisionKey(c);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->main, 256);
  EXPECT_EQ(back->sub, 0);
  EXPECT_FALSE(DecodeRevisionKey("short").ok());
}

TEST(RecordTest, RoundTrip) {
  Record r;
  const std::string value("binary\0value", 12);
  r.key = "/registry/pods/default/a";
  r.create_revision = 7;
  r.version = 3;
  r.lease = 1234567890123LL;
  std::string bytes = EncodeRecord(r);
  auto back = DecodeRecord(bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->key, r.key);
  std::string encoded = EncodeValue(value);
  auto v = DecodeValue(encoded);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, value);
  EXPECT_EQ(back->create_revision, 7);
  EXPECT_EQ(back->version, 3);
  EXPECT_EQ(back->lease, r.lease);
  EXPECT_FALSE(back->tombstone);
  Record t;
  t.key = "k";
  t.tombstone = true;
  auto tb = DecodeRecord(EncodeRecord(t));
  ASSERT_TRUE(tb.ok());
  EXPECT_TRUE(tb->tombstone);
}

TEST(RecordTest, AnyFlippedByteIsDetected) {
  Record r;
  r.key = "key";
  r.version = 1;
  std::string bytes = EncodeRecord(r);
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] ^= 0x40;
    auto d = DecodeRecord(bad);
    EXPECT_FALSE(d.ok()) << "byte " << i;
    if (!d.ok()) EXPECT_TRUE(d.status().IsStorage(StorageCode::kInternal));
  }
  std::string value = EncodeValue("some value bytes");
  for (size_t i = 0; i < value.size(); ++i) {
    std::string bad = value;
    bad[i] ^= 0x01;
    EXPECT_FALSE(DecodeValue(bad).ok()) << "value byte " << i;
  }
}

TEST(RecordTest, GarbageNeverCrashes) {
  std::mt19937 rng(42);
  for (int i = 0; i < 20000; ++i) {
    std::string junk(rng() % 64, '\0');
    for (auto& c : junk) c = static_cast<char>(rng());
    (void)DecodeRecord(junk, /*verify_checksum=*/false);
    (void)DecodeRecord(junk, /*verify_checksum=*/true);
    (void)DecodeValue(junk);
  }
  Record r;
  r.key = "key";
  std::string bytes = EncodeRecord(r);
  for (size_t n = 0; n < bytes.size(); ++n) EXPECT_FALSE(DecodeRecord(bytes.substr(0, n)).ok()) << n;
}

TEST(RecordTest, Crc32cKnownValue) {
  // The CRC-32C check value of "123456789".
  EXPECT_EQ(Crc32c("123456789"), 0xE3069283u);
  std::string big(1000, 'x');
  EXPECT_EQ(Crc32c(big), Crc32c(std::string(1000, 'x')));
}

}  // namespace
}  // namespace capstan::storage::embedded
