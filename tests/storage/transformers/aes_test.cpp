// kube's AES-GCM and AES-CBC layouts, checked against values made by an independent implementation
// (Python's cryptography package) and for tampering, wrong keys and moved values.
#include "storage/transformers/aes.h"

#include <gtest/gtest.h>

namespace capstan::storage::transformers {
namespace {

std::string Hex(std::string_view h) {
  std::string out;
  for (size_t i = 0; i + 1 < h.size(); i += 2) out.push_back(static_cast<char>(std::stoi(std::string(h.substr(i, 2)), nullptr, 16)));
  return out;
}

std::string Bytes(int from, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s.push_back(static_cast<char>(from + i));
  return s;
}

const char kPlain[] = R"({"kind":"Secret","apiVersion":"v1"})";
const char kKey[] = "/registry/secrets/default/s1";

TEST(AesGcm, ReadsAValueMadeElsewhereWithTheKeyAsAssociatedData) {
  // nonce c8..d3, key 00..0f, associated data = the storage key.
  std::string stored = Hex(
      "c8c9cacbcccdcecfd0d1d2d34d0affd760570913fcc4cd21b30417845c329c79b8797861a7de28a634c5d3b3cf18eb14f665e781d6a32379"
      "eeda1859b8de1a");
  auto t = NewAesGcmTransformer(Bytes(0, 16));
  auto plain = t->FromStorage(stored, kKey, nullptr);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(*plain, kPlain);
  // The same bytes under another key do not decrypt: values cannot be moved between objects.
  auto moved = t->FromStorage(stored, "/registry/secrets/default/s2", nullptr);
  EXPECT_EQ(moved.status().message(), "cipher: message authentication failed");
}

TEST(AesGcm, RoundTripsEveryKeySizeAndRefusesWrongKeysAndTampering) {
  for (int size : {16, 24, 32}) {
    auto t = NewAesGcmTransformer(Bytes(1, size));
    auto stored = t->ToStorage(kPlain, kKey);
    ASSERT_TRUE(stored.ok());
    EXPECT_EQ(stored->size(), 12 + sizeof(kPlain) - 1 + 16);
    EXPECT_EQ(*t->FromStorage(*stored, kKey, nullptr), kPlain);
    EXPECT_NE(*t->ToStorage(kPlain, kKey), *stored);  // fresh nonce each time
    auto wrong = NewAesGcmTransformer(Bytes(2, size))->FromStorage(*stored, kKey, nullptr);
    EXPECT_EQ(wrong.status().message(), "cipher: message authentication failed");
    std::string bad = *stored;
    bad[20] ^= 1;
    EXPECT_FALSE(t->FromStorage(bad, kKey, nullptr).ok());
  }
  auto t = NewAesGcmTransformer(Bytes(1, 16));
  EXPECT_EQ(t->FromStorage("short", kKey, nullptr).status().message(),
            "the stored data was shorter than the required size");
  EXPECT_EQ(*t->FromStorage(*t->ToStorage("", kKey), kKey, nullptr), "");
}

TEST(AesCbc, ReadsAValueMadeElsewhere) {
  // iv 32..41, key 01..20, PKCS#7 padding.
  std::string stored = Hex(
      "32333435363738393a3b3c3d3e3f40410bf5ab03aa9ed86d82c59621aeb629e30e5603a900b1621f37f921660062d4f394e25f05a57171c3"
      "9e7891126d1ee494");
  auto plain = NewAesCbcTransformer(Bytes(1, 32))->FromStorage(stored, kKey, nullptr);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(*plain, kPlain);
}

TEST(AesCbc, RoundTripsAndReportsKubesErrors) {
  for (int size : {16, 24, 32}) {
    auto t = NewAesCbcTransformer(Bytes(1, size));
    for (size_t n : {size_t{0}, size_t{15}, size_t{16}, size_t{17}, size_t{100}}) {
      std::string v(n, 'v');
      auto stored = t->ToStorage(v, kKey);
      ASSERT_TRUE(stored.ok());
      EXPECT_EQ(stored->size() % 16, 0u);
      EXPECT_EQ(*t->FromStorage(*stored, kKey, nullptr), v);
    }
  }
  auto t = NewAesCbcTransformer(Bytes(1, 16));
  EXPECT_EQ(t->FromStorage("short", kKey, nullptr).status().message(),
            "the stored data was shorter than the required size");
  EXPECT_EQ(t->FromStorage(std::string(20, 'x'), kKey, nullptr).status().message(),
            "the stored data is not a multiple of the block size");
  // A wrong key decrypts to garbage whose padding almost never checks out.
  auto stored = t->ToStorage(kPlain, kKey);
  int refused = 0;
  for (int k = 2; k < 12; ++k) refused += !NewAesCbcTransformer(Bytes(k, 16))->FromStorage(*stored, kKey, nullptr).ok();
  EXPECT_GE(refused, 8);
}

}  // namespace
}  // namespace capstan::storage::transformers
