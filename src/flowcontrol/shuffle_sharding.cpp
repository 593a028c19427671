#include "flowcontrol/shuffle_sharding.h"

#include <cmath>
#include <string>

namespace capstan::flowcontrol {

int RequiredEntropyBits(int deck_size, int hand_size) {
  return static_cast<int>(std::ceil(std::log2(static_cast<double>(deck_size)) * hand_size));
}

StatusOr<Dealer> Dealer::Make(int deck, int hand) {
  auto bad = [](std::string m) { return Status(400, "BadRequest", std::move(m)); };
  if (deck <= 0 || hand <= 0) {
    return bad("deckSize " + std::to_string(deck) + " or handSize " + std::to_string(hand) + " is not positive");
  }
  if (hand > deck) return bad("handSize " + std::to_string(hand) + " is greater than deckSize " + std::to_string(deck));
  if (deck > (1 << 26)) return bad("deckSize " + std::to_string(deck) + " is impractically large");
  if (RequiredEntropyBits(deck, hand) > kMaxHashBits) {
    return bad("required entropy bits of deckSize " + std::to_string(deck) + " and handSize " + std::to_string(hand) +
               " is greater than " + std::to_string(kMaxHashBits));
  }
  return Dealer(deck, hand);
}

std::vector<int> Dealer::Deal(uint64_t hash) const {
  // Mixed-radix digits of the hash: digit i has radix deck-i (the cards not yet dealt); then, as in
  // kube, each digit is bumped once for every earlier digit it is not below, giving distinct cards.
  std::vector<int> remainders(hand_size_);
  for (int i = 0; i < hand_size_; ++i) {
    uint64_t radix = static_cast<uint64_t>(deck_size_ - i);
    remainders[i] = static_cast<int>(hash % radix);
    hash /= radix;
  }
  std::vector<int> hand(hand_size_);
  for (int i = 0; i < hand_size_; ++i) {
    int card = remainders[i];
    for (int j = i; j > 0; --j) {
      if (card >= remainders[j - 1]) ++card;
    }
    hand[i] = card;
  }
  return hand;
}

}  // namespace capstan::flowcontrol
