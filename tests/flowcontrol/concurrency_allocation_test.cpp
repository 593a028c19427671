#include "flowcontrol/concurrency_allocation.h"

#include <gtest/gtest.h>

namespace capstan::flowcontrol {
namespace {

TEST(ConcurrencyAllocationTest, ProportionalWhenNoBoundBinds) {
  auto a = ComputeConcurrencyAllocation(30, {{10, 0, 100}, {20, 0, 100}});
  ASSERT_TRUE(a.ok());
  EXPECT_NEAR(a->seats[0], 10, 1e-9);
  EXPECT_NEAR(a->seats[1], 20, 1e-9);
  EXPECT_NEAR(a->fair_proportion, 1, 1e-9);
}

TEST(ConcurrencyAllocationTest, BoundsClampAndTheRestIsShared) {
  // A busy level (target 20, at least 10, at most 30) and an idle one (at least 5): 20 seats.
  auto a = ComputeConcurrencyAllocation(20, {{20, 10, 30}, {5, 5, 25}, {0.001, 0, 20}});
  ASSERT_TRUE(a.ok());
  EXPECT_NEAR(a->seats[0], 15 / 20.001 * 20, 1e-6);
  EXPECT_NEAR(a->seats[1], 5, 1e-9);
  EXPECT_NEAR(a->seats[0] + a->seats[1] + a->seats[2], 20, 1e-6);
  // Upper bounds bind: the surplus goes to the one that can take it.
  auto b = ComputeConcurrencyAllocation(50, {{10, 0, 12}, {10, 0, 100}});
  ASSERT_TRUE(b.ok());
  EXPECT_NEAR(b->seats[0], 12, 1e-9);
  EXPECT_NEAR(b->seats[1], 38, 1e-9);
}

TEST(ConcurrencyAllocationTest, NoRoomMeansBounds) {
  auto low = ComputeConcurrencyAllocation(10, {{8, 4, 9}, {7, 6, 9}});
  ASSERT_TRUE(low.ok());
  EXPECT_EQ(low->seats, (std::vector<double>{4, 6}));
  auto high = ComputeConcurrencyAllocation(18, {{8, 4, 9}, {7, 6, 9}});
  ASSERT_TRUE(high.ok());
  EXPECT_EQ(high->seats, (std::vector<double>{9, 9}));
}

TEST(ConcurrencyAllocationTest, ImpossibleProblemsFail) {
  EXPECT_FALSE(ComputeConcurrencyAllocation(5, {{8, 4, 9}, {7, 6, 9}}).ok());
  EXPECT_FALSE(ComputeConcurrencyAllocation(20, {{8, 4, 9}, {7, 6, 9}}).ok());
  EXPECT_FALSE(ComputeConcurrencyAllocation(5, {{1, 2, 9}}).ok());  // target below lower bound
  EXPECT_FALSE(ComputeConcurrencyAllocation(-1, {}).ok());
}

}  // namespace
}  // namespace capstan::flowcontrol
