#include "auth/authn/digest.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace capstan::authn {
namespace {

std::string Hex(const std::string& raw) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : raw) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

TEST(DigestTest, Sha256KnownAnswers) {
  EXPECT_EQ(Hex(Sha256Digest("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Hex(Sha256Digest("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

// RFC 4231 test cases 1 and 2.
TEST(DigestTest, HmacSha256KnownAnswers) {
  HmacSha256 jefe("Jefe");
  EXPECT_EQ(Hex(jefe.Sum("what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  HmacSha256 tc1(std::string(20, '\x0b'));
  EXPECT_EQ(Hex(tc1.Sum("Hi There")), "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  // The keyed context is reused: a second message gives its own answer, the first again the same.
  EXPECT_EQ(Hex(jefe.Sum("what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(DigestTest, HmacFromManyThreadsAgrees) {
  HmacSha256 mac("k");
  const std::string want = mac.Sum("message");
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) mismatches[t] += mac.Sum("message") != want;
    });
  }
  for (auto& th : threads) th.join();
  for (int m : mismatches) EXPECT_EQ(m, 0);
}

}  // namespace
}  // namespace capstan::authn
