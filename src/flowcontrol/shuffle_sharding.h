// flowcontrol/shuffle_sharding.h: kube's shufflesharding.Dealer. A hash value deals a hand of
// distinct queue indices from a deck of queues, so one flow spreads over a few queues and two flows
// rarely share all of theirs. The same hash always deals the same hand, in the same order, as kube's.
// Immutable after construction; thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "apimachinery/status.h"

namespace capstan::flowcontrol {

// The hash bits a deal may consume (kube's MaxHashBits).
inline constexpr int kMaxHashBits = 60;

// ceil(log2(deck) * hand), kube's RequiredEntropyBits.
int RequiredEntropyBits(int deck_size, int hand_size);

class Dealer {
 public:
  // kube's NewDealer checks: positive sizes, hand <= deck, deck <= 2^26, entropy <= 60 bits.
  static StatusOr<Dealer> Make(int deck_size, int hand_size);

  // The hand for `hash`, in deal order.
  std::vector<int> Deal(uint64_t hash) const;
  int deck_size() const { return deck_size_; }
  int hand_size() const { return hand_size_; }

 private:
  Dealer(int deck, int hand) : deck_size_(deck), hand_size_(hand) {}
  int deck_size_;
  int hand_size_;
};

}  // namespace capstan::flowcontrol
