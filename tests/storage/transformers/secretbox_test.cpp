// NaCl secretbox against vectors from an independent implementation (libsodium's
// crypto_secretbox_easy, key 01..20, nonce 64..7b, message byte i = 7i+3).
#include "storage/transformers/secretbox.h"

#include <gtest/gtest.h>

namespace capstan::storage::transformers {
namespace {

std::string Hex(std::string_view h) {
  std::string out;
  for (size_t i = 0; i + 1 < h.size(); i += 2) out.push_back(static_cast<char>(std::stoi(std::string(h.substr(i, 2)), nullptr, 16)));
  return out;
}

std::string Key() {
  std::string k;
  for (int i = 1; i <= 32; ++i) k.push_back(static_cast<char>(i));
  return k;
}

std::string Nonce() {
  std::string n;
  for (int i = 100; i < 124; ++i) n.push_back(static_cast<char>(i));
  return n;
}

std::string Message(size_t n) {
  std::string m;
  for (size_t i = 0; i < n; ++i) m.push_back(static_cast<char>((i * 7 + 3) & 0xff));
  return m;
}

struct Vector {
  size_t len;
  const char* box;
};

const Vector kVectors[] = {
    {0, "abfd22090e17877a2f1aed5b4bb81653"},
    {1, "18d822f262376369662678f12b94851057"},
    {31, "8ad5eca6b9f28d656427aa1baf733f6c575c249ccce5713e05c86b1b2f7a44c553bb7f40e748d5158c4d652811ed93"},
    {32, "367813e1e74998f118b90b87566a3e2b575c249ccce5713e05c86b1b2f7a44c553bb7f40e748d5158c4d652811ed9396"},
    {33, "1fdf0e755df60dd7a64a66d189af92f8575c249ccce5713e05c86b1b2f7a44c553bb7f40e748d5158c4d652811ed939685"},
    {64,
     "6065ef6dff4d2b0b2944e8f6390c51a8575c249ccce5713e05c86b1b2f7a44c553bb7f40e748d5158c4d652811ed939685b25f3ba9e5f64fe8"
     "82bb6bba0fc48a514288e4681a834d31cc0b1a24b76fb6"},
    {65,
     "de2da859a3a60192f2e5ae4519a5966b575c249ccce5713e05c86b1b2f7a44c553bb7f40e748d5158c4d652811ed939685b25f3ba9e5f64fe8"
     "82bb6bba0fc48a514288e4681a834d31cc0b1a24b76fb654"},
    {200,
     "1ea9038e8013a867eec3c9228b5ba80a575c249ccce5713e05c86b1b2f7a44c553bb7f40e748d5158c4d652811ed939685b25f3ba9e5f64fe8"
     "82bb6bba0fc48a514288e4681a834d31cc0b1a24b76fb654e984837a8c61f5ba75d800cc74bed0a245894ae290d204d64c36fc3de098026e"
     "e6b7e6d27bdf3aabe850545f91acf5058d8652f4a1283d48e8ca764b977cbc70fb2347eb53fc9dd7506c8c863f4dc10e5897c679a8c7d319"
     "a07e57994fed3782fe864920ead21340987bb9826c671098c2a9b7a8b5d83df6e125fb75f973971668a1d636494e48"},
};

TEST(Secretbox, SealMatchesLibsodium) {
  for (const auto& v : kVectors) {
    EXPECT_EQ(SecretboxSeal(Message(v.len), Nonce(), Key()), Hex(v.box)) << "length " << v.len;
  }
}

TEST(Secretbox, OpenReadsLibsodiumBoxes) {
  for (const auto& v : kVectors) {
    auto plain = SecretboxOpen(Hex(v.box), Nonce(), Key());
    ASSERT_TRUE(plain) << "length " << v.len;
    EXPECT_EQ(*plain, Message(v.len));
  }
}

TEST(Secretbox, OpenRefusesTamperingWrongKeysAndShortBoxes) {
  std::string box = Hex(kVectors[5].box);
  for (size_t i : {size_t{0}, size_t{15}, size_t{16}, box.size() - 1}) {
    std::string bad = box;
    bad[i] ^= 1;
    EXPECT_FALSE(SecretboxOpen(bad, Nonce(), Key())) << "flipped byte " << i;
  }
  std::string other = Key();
  other[0] ^= 1;
  EXPECT_FALSE(SecretboxOpen(box, Nonce(), other));
  std::string nonce = Nonce();
  nonce[23] ^= 1;
  EXPECT_FALSE(SecretboxOpen(box, nonce, Key()));
  EXPECT_FALSE(SecretboxOpen(box.substr(0, 15), Nonce(), Key()));
}

TEST(Secretbox, TransformerRoundTripsWithFreshNonces) {
  auto t = NewSecretboxTransformer(Key());
  auto a = t->ToStorage("hello secret", "/registry/secrets/a");
  auto b = t->ToStorage("hello secret", "/registry/secrets/a");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(*a, *b);
  EXPECT_EQ(a->size(), kSecretboxNonceSize + kSecretboxOverhead + 12);
  bool stale = true;
  auto back = t->FromStorage(*a, "/registry/secrets/a", &stale);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, "hello secret");
  EXPECT_FALSE(stale);
  auto short_data = t->FromStorage(a->substr(0, 39), "k", nullptr);
  EXPECT_EQ(short_data.status().message(), "the stored data was shorter than the required size");
  std::string other = Key();
  other[5] ^= 0x40;
  auto wrong = NewSecretboxTransformer(other)->FromStorage(*a, "k", nullptr);
  EXPECT_EQ(wrong.status().message(), "output array was not large enough for encryption");
}

}  // namespace
}  // namespace capstan::storage::transformers
