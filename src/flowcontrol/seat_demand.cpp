#include "flowcontrol/seat_demand.h"

#include <algorithm>
#include <cmath>

namespace capstan::flowcontrol {

Integrator::Integrator(const Clock& clock) : clock_(clock), start_(clock.Monotonic()), last_(start_) {}

void Integrator::Advance() {
  auto now = clock_.Monotonic();
  double dt = std::chrono::duration<double>(now - last_).count();
  if (dt > 0) {
    integral_ += x_ * dt;
    integral_sq_ += x_ * x_ * dt;
  }
  last_ = now;
}

void Integrator::Set(double x) {
  Advance();
  x_ = x;
  max_ = std::max(max_, x);
}

IntegratorResults Integrator::Reset() {
  Advance();
  IntegratorResults r;
  r.duration_seconds = std::chrono::duration<double>(last_ - start_).count();
  r.max = max_;
  if (r.duration_seconds > 0) {
    r.average = integral_ / r.duration_seconds;
    double variance = integral_sq_ / r.duration_seconds - r.average * r.average;
    r.deviation = variance > 0 ? std::sqrt(variance) : 0;
  }
  start_ = last_;
  integral_ = integral_sq_ = 0;
  max_ = x_;
  return r;
}

}  // namespace capstan::flowcontrol
