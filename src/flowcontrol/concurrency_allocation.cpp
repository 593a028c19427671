#include "flowcontrol/concurrency_allocation.h"

#include <algorithm>
#include <string>

namespace capstan::flowcontrol {

namespace {
constexpr double kMinTarget = 0.001;
constexpr double kEpsilon = 0.0000001;

double Clamp(double lo, double hi, double x) { return std::max(lo, std::min(hi, x)); }
}  // namespace

StatusOr<Allocation> ComputeConcurrencyAllocation(int required_sum, const std::vector<AllocationItem>& items) {
  auto bad = [](std::string m) { return Status(400, "BadRequest", std::move(m)); };
  if (required_sum < 0) return bad("negative sums are not supported");
  const double required = required_sum;
  double low_sum = 0, high_sum = 0;
  std::vector<double> targets(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    const auto& it = items[i];
    if (it.lower_bound < 0) return bad("lower bound " + std::to_string(i) + " is negative");
    if (it.target < it.lower_bound) return bad("target " + std::to_string(i) + " is below its lower bound");
    if (it.upper_bound < it.lower_bound) return bad("upper bound " + std::to_string(i) + " is below its lower bound");
    targets[i] = std::max(it.target, kMinTarget);
    low_sum += it.lower_bound;
    high_sum += it.upper_bound;
  }
  if (low_sum - required > kEpsilon) return bad("lower bounds sum above the required sum");
  if (required - high_sum > kEpsilon) return bad("upper bounds sum below the required sum");
  Allocation out;
  out.seats.assign(items.size(), 0);
  if (required_sum == 0) return out;
  if (low_sum - required > -kEpsilon) {  // no room: everyone at the lower bound
    for (size_t i = 0; i < items.size(); ++i) out.seats[i] = items[i].lower_bound;
    out.fair_proportion = items.empty() ? 0 : items[0].lower_bound / targets[0];
    for (size_t i = 0; i < items.size(); ++i) out.fair_proportion = std::min(out.fair_proportion, items[i].lower_bound / targets[i]);
    return out;
  }
  if (required - high_sum > -kEpsilon) {  // no room: everyone at the upper bound
    for (size_t i = 0; i < items.size(); ++i) {
      out.seats[i] = items[i].upper_bound;
      out.fair_proportion = std::max(out.fair_proportion, items[i].upper_bound / targets[i]);
    }
    return out;
  }
  // sum(p) = Σ clamp(lower_i, upper_i, p·target_i) is continuous, non-decreasing and piecewise linear
  // with breaks at lower_i/target_i and upper_i/target_i: find the segment holding `required` and
  // interpolate on it.
  auto sum_at = [&](double p) {
    double s = 0;
    for (size_t i = 0; i < items.size(); ++i) s += Clamp(items[i].lower_bound, items[i].upper_bound, p * targets[i]);
    return s;
  };
  std::vector<double> breaks;
  for (size_t i = 0; i < items.size(); ++i) {
    breaks.push_back(items[i].lower_bound / targets[i]);
    breaks.push_back(items[i].upper_bound / targets[i]);
  }
  std::sort(breaks.begin(), breaks.end());
  double prev_p = breaks.front();
  double prev_sum = sum_at(prev_p);
  double p = breaks.back();
  for (double b : breaks) {
    double s = sum_at(b);
    if (s >= required) {
      p = s > prev_sum ? prev_p + (b - prev_p) * (required - prev_sum) / (s - prev_sum) : b;
      break;
    }
    prev_p = b;
    prev_sum = s;
  }
  out.fair_proportion = p;
  for (size_t i = 0; i < items.size(); ++i) out.seats[i] = Clamp(items[i].lower_bound, items[i].upper_bound, p * targets[i]);
  return out;
}

}  // namespace capstan::flowcontrol
