// util/duration.h: Go's time.Duration text form ("1m30s", "500ms", "1h"), as kube's flags and query
// parameters use it. Pure functions.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace capstan {

// Parses like Go's time.ParseDuration (units ns, us, µs, ms, s, m, h; a sign; fractions; "0").
std::optional<std::chrono::nanoseconds> ParseGoDuration(std::string_view s);
// Formats like Go's Duration.String(): "1m0s", "1.5s", "100ms", "0s".
std::string FormatGoDuration(std::chrono::nanoseconds d);

}  // namespace capstan
