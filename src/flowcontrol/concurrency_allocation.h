// flowcontrol/concurrency_allocation.h: kube's computeConcurrencyAllocation, the arithmetic of seat
// borrowing. Given each non-exempt level's bounds and target, find one "fair proportion" p so that
// the allocations clamp(lower, upper, p x target) sum to the required total, and return them. Pure
// function; thread-safe.
#pragma once

#include <vector>

#include "apimachinery/status.h"

namespace capstan::flowcontrol {

struct AllocationItem {
  double target = 0;  // the demand (smoothed), at least lower_bound
  double lower_bound = 0;
  double upper_bound = 0;
};

struct Allocation {
  std::vector<double> seats;  // per item, in order
  double fair_proportion = 0;
};

// A 400 Status when the bounds cannot reach `required_sum` or an item is inconsistent. Targets below
// 0.001 count as 0.001, as in kube.
StatusOr<Allocation> ComputeConcurrencyAllocation(int required_sum, const std::vector<AllocationItem>& items);

}  // namespace capstan::flowcontrol
