// cel/time_values.h: CEL timestamps and durations: the valid timestamp range (years 0001-9999),
// checked arithmetic ("timestamp overflow", "duration overflow"), Go's text forms (RFC 3339 with
// nanoseconds for string(timestamp), "1.5s" for string(duration)), and time zones for the
// accessors (UTC, fixed offsets "+05:30", IANA names read from the system zoneinfo).
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cel/value.h"

namespace capstan::cel {

inline constexpr int64_t kMinTimestampSeconds = -62135596800;  // 0001-01-01T00:00:00Z
inline constexpr int64_t kMaxTimestampSeconds = 253402300799;  // 9999-12-31T23:59:59Z

Value AddTimestamp(const Value& ts, int64_t duration_nanos);
Value SubTimestamps(const Value& a, const Value& b);
std::string FormatTimestamp(const Value& ts);
std::string FormatDurationSeconds(int64_t nanos);
std::optional<Value> ParseTimestamp(std::string_view s);

// The offset east of UTC, in seconds, of zone `tz` at the instant; nullopt for an unknown zone.
std::optional<int64_t> ZoneOffset(std::string_view tz, int64_t unix_seconds);

struct Civil {
  int64_t year;
  int month;  // 1-12
  int day;    // 1-31
  int hour, minute, second;
  int weekday;  // 0 = Sunday
  int yday;     // 0-based day of the year
};
Civil ToCivil(int64_t unix_seconds);
// Days since 1970-01-01 of a civil date.
int64_t DaysFromCivil(int64_t y, int m, int d);

}  // namespace capstan::cel
