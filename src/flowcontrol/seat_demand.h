// flowcontrol/seat_demand.h: kube's fairqueuing Integrator. Tracks a piecewise-constant value (the
// seats a priority level uses plus those its queued requests wait for) over time, and yields its
// time-weighted average, standard deviation and maximum since the last Reset; the borrowing
// adjustment reads and resets it every period. Thread-compatible (the Controller's lock guards it).
#pragma once

#include <chrono>

#include "util/clock.h"

namespace capstan::flowcontrol {

struct IntegratorResults {
  double duration_seconds = 0;
  double average = 0;
  double deviation = 0;
  double max = 0;
};

class Integrator {
 public:
  explicit Integrator(const Clock& clock);
  void Set(double x);
  double value() const { return x_; }
  // The statistics since the previous Reset (or construction); starts a new period at the current value.
  IntegratorResults Reset();

 private:
  void Advance();
  const Clock& clock_;
  std::chrono::steady_clock::time_point start_, last_;
  double x_ = 0;
  double max_ = 0;
  double integral_ = 0;     // ∫x dt
  double integral_sq_ = 0;  // ∫x² dt
};

}  // namespace capstan::flowcontrol
