#include "flowcontrol/shuffle_sharding.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

namespace capstan::flowcontrol {
namespace {

std::vector<int> Hand(uint64_t hash, int deck, int hand) {
  auto d = Dealer::Make(deck, hand);
  EXPECT_TRUE(d.ok()) << d.status().message();
  return d->Deal(hash);
}

// Hands worked out with kube's algorithm (mixed-radix digits of the hash, each card moved past the
// earlier digits it is not below), in deal order.
TEST(DealerTest, DealsKubesHandsForKnownHashes) {
  EXPECT_EQ(Hand(0, 8, 3), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(Hand(12345678901234567ULL, 128, 4), (std::vector<int>{7, 14, 94, 102}));
  EXPECT_EQ(Hand(0xdeadbeefcafebabeULL, 64, 8), (std::vector<int>{62, 52, 53, 30, 23, 46, 45, 27}));
  EXPECT_EQ(Hand((1ULL << 60) - 1, 1024, 6), (std::vector<int>{1023, 0, 32, 92, 67, 16}));
  EXPECT_EQ(Hand(7, 6, 6), (std::vector<int>{1, 2, 0, 3, 4, 5}));
}

TEST(DealerTest, RejectsWhatKubeRejects) {
  EXPECT_EQ(Dealer::Make(-100, 8).status().message(), "deckSize -100 or handSize 8 is not positive");
  EXPECT_EQ(Dealer::Make(100, 0).status().message(), "deckSize 100 or handSize 0 is not positive");
  EXPECT_EQ(Dealer::Make(100, 101).status().message(), "handSize 101 is greater than deckSize 100");
  EXPECT_EQ(Dealer::Make(1 << 27, 2).status().message(), "deckSize 134217728 is impractically large");
  EXPECT_EQ(Dealer::Make(512, 8).status().message(),
            "required entropy bits of deckSize 512 and handSize 8 is greater than 60");
  EXPECT_TRUE(Dealer::Make(1024, 6).ok());
  EXPECT_EQ(RequiredEntropyBits(1024, 6), 60);
  EXPECT_EQ(RequiredEntropyBits(512, 8), 72);
}

TEST(DealerTest, HandsHaveDistinctCardsInRange) {
  auto d = Dealer::Make(128, 8);
  ASSERT_TRUE(d.ok());
  for (uint64_t h : {0ULL, 1ULL, 99ULL, 0xffffffffffffffffULL, 0x0123456789abcdefULL}) {
    auto hand = d->Deal(h);
    ASSERT_EQ(hand.size(), 8u);
    std::set<int> distinct(hand.begin(), hand.end());
    EXPECT_EQ(distinct.size(), 8u);
    for (int c : hand) EXPECT_TRUE(c >= 0 && c < 128);
  }
}

// Every hand appears equally often when the hashes run over a multiple of the number of deals
// (kube's TestUniformDistribution for deck 50, hand 4).
TEST(DealerTest, DealsEveryHandEquallyOften) {
  const int deck = 50, hand = 4;
  auto d = Dealer::Make(deck, hand);
  ASSERT_TRUE(d.ok());
  const uint64_t deals = 50ULL * 49 * 48 * 47;
  std::map<std::vector<int>, int> seen;
  for (uint64_t h = 0; h < deals; ++h) {
    auto cards = d->Deal(h);
    std::sort(cards.begin(), cards.end());
    seen[cards]++;
  }
  EXPECT_EQ(seen.size(), deals / 24);  // C(50,4) unordered hands
  for (const auto& [cards, n] : seen) ASSERT_EQ(n, 24);  // each in its 4! orders
}

}  // namespace
}  // namespace capstan::flowcontrol
