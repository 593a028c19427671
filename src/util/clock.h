// util/clock.h: time sources. Components take a Clock& so tests can use FakeClock instead of sleeping.
// Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace capstan {

class Clock {
 public:
  virtual ~Clock() = default;
  // Wall-clock time (for timestamps written into objects).
  virtual std::chrono::system_clock::time_point Now() const = 0;
  // Monotonic time (for durations, TTLs and timeouts).
  virtual std::chrono::steady_clock::time_point Monotonic() const = 0;
};

class RealClock : public Clock {
 public:
  std::chrono::system_clock::time_point Now() const override { return std::chrono::system_clock::now(); }
  std::chrono::steady_clock::time_point Monotonic() const override { return std::chrono::steady_clock::now(); }
  static RealClock& Get() {
    static RealClock clock;
    return clock;
  }
};

class FakeClock : public Clock {
 public:
  FakeClock() : wall_ns_(1'700'000'000'000'000'000LL), mono_ns_(1'000'000'000LL) {}
  std::chrono::system_clock::time_point Now() const override {
    return std::chrono::system_clock::time_point(
        std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::nanoseconds(wall_ns_.load())));
  }
  std::chrono::steady_clock::time_point Monotonic() const override {
    return std::chrono::steady_clock::time_point(
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::nanoseconds(mono_ns_.load())));
  }
  void Advance(std::chrono::nanoseconds d) {
    wall_ns_ += d.count();
    mono_ns_ += d.count();
  }

 private:
  std::atomic<int64_t> wall_ns_;
  std::atomic<int64_t> mono_ns_;
};

}  // namespace capstan
