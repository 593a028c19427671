// apimachinery/time_util.h: metav1.Time and metav1.MicroTime text forms.
//
// kube writes Time as RFC 3339 in UTC to the second ("2024-05-01T10:20:30Z") and MicroTime with six
// fraction digits ("2024-05-01T10:20:30.123456Z"). Parsing is Go's time.Parse with those layouts,
// including its leniency (offsets, fractions on Time, one-digit hours) and its error texts:
//   parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"
//   parsing time "2024-13-01T00:00:00Z": month out of range
// Pure functions; thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "apimachinery/status.h"

namespace capstan::apimachinery {

inline constexpr std::string_view kRfc3339Layout = "2006-01-02T15:04:05Z07:00";
inline constexpr std::string_view kRfc3339MicroLayout = "2006-01-02T15:04:05.000000Z07:00";

// An instant: seconds since the Unix epoch plus nanoseconds in [0, 1e9).
struct Timestamp {
  int64_t seconds = 0;
  int32_t nanos = 0;
  auto operator<=>(const Timestamp&) const = default;
  static Timestamp FromTimePoint(std::chrono::system_clock::time_point tp);
  std::chrono::system_clock::time_point ToTimePoint() const;
  static Timestamp Now() { return FromTimePoint(std::chrono::system_clock::now()); }
};

std::string FormatRfc3339(Timestamp t);       // truncated to seconds
std::string FormatRfc3339Micro(Timestamp t);  // truncated to microseconds

// A 400 BadRequest with Go's message on failure.
StatusOr<Timestamp> ParseRfc3339(std::string_view s);
StatusOr<Timestamp> ParseRfc3339Micro(std::string_view s);

}  // namespace capstan::apimachinery
