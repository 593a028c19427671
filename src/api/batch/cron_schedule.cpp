#include "api/batch/cron_schedule.h"

#include <charconv>
#include <filesystem>
#include <map>
#include <vector>

#include "util/strings.h"

namespace capstan::api::batch {

namespace {

struct Bounds {
  int64_t min;
  int64_t max;
  const std::map<std::string, int64_t>* names;
};

const std::map<std::string, int64_t> kMonths = {{"jan", 1}, {"feb", 2}, {"mar", 3}, {"apr", 4},  {"may", 5},  {"jun", 6},
                                                {"jul", 7}, {"aug", 8}, {"sep", 9}, {"oct", 10}, {"nov", 11}, {"dec", 12}};
const std::map<std::string, int64_t> kDays = {{"sun", 0}, {"mon", 1}, {"tue", 2}, {"wed", 3},
                                              {"thu", 4}, {"fri", 5}, {"sat", 6}};

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// Go's strings.Fields (ASCII whitespace).
std::vector<std::string> Fields(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && IsSpace(s[i])) ++i;
    size_t j = i;
    while (j < s.size() && !IsSpace(s[j])) ++j;
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

std::vector<std::string> SplitKeep(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.emplace_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

// Go's strconv.Atoi, with its errors.
std::optional<std::string> Atoi(std::string_view s, int64_t* out) {
  std::string_view digits = s;
  bool neg = false;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    neg = digits[0] == '-';
    digits.remove_prefix(1);
  }
  bool ok = !digits.empty();
  for (char c : digits) ok = ok && c >= '0' && c <= '9';
  if (!ok) return "strconv.Atoi: parsing " + GoQuote(s) + ": invalid syntax";
  uint64_t v = 0;
  auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (r.ec != std::errc() || v > (neg ? 9223372036854775808ULL : 9223372036854775807ULL)) {
    return "strconv.Atoi: parsing " + GoQuote(s) + ": value out of range";
  }
  *out = neg ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
  return std::nullopt;
}

std::optional<std::string> MustParseInt(std::string_view expr, int64_t* out) {
  int64_t n = 0;
  if (auto err = Atoi(expr, &n)) return "failed to parse int from " + std::string(expr) + ": " + *err;
  if (n < 0) return "negative number (" + std::to_string(n) + ") not allowed: " + std::string(expr);
  *out = n;
  return std::nullopt;
}

std::optional<std::string> ParseIntOrName(std::string_view expr, const Bounds& b, int64_t* out) {
  if (b.names) {
    auto it = b.names->find(ToLower(expr));
    if (it != b.names->end()) {
      *out = it->second;
      return std::nullopt;
    }
  }
  return MustParseInt(expr, out);
}

std::optional<std::string> GetRange(std::string_view expr, const Bounds& b) {
  std::vector<std::string> range_and_step = SplitKeep(expr, '/');
  std::vector<std::string> low_and_high = SplitKeep(range_and_step[0], '-');
  const bool single = low_and_high.size() == 1;
  int64_t start = 0, end = 0, step = 1;
  if (low_and_high[0] == "*" || low_and_high[0] == "?") {
    start = b.min;
    end = b.max;
  } else {
    if (auto err = ParseIntOrName(low_and_high[0], b, &start)) return err;
    switch (low_and_high.size()) {
      case 1:
        end = start;
        break;
      case 2:
        if (auto err = ParseIntOrName(low_and_high[1], b, &end)) return err;
        break;
      default:
        return "too many hyphens: " + std::string(expr);
    }
  }
  switch (range_and_step.size()) {
    case 1:
      step = 1;
      break;
    case 2:
      if (auto err = MustParseInt(range_and_step[1], &step)) return err;
      if (single) end = b.max;
      break;
    default:
      return "too many slashes: " + std::string(expr);
  }
  const std::string e(expr);
  if (start < b.min) {
    return "beginning of range (" + std::to_string(start) + ") below minimum (" + std::to_string(b.min) + "): " + e;
  }
  if (end > b.max) return "end of range (" + std::to_string(end) + ") above maximum (" + std::to_string(b.max) + "): " + e;
  if (start > end) {
    return "beginning of range (" + std::to_string(start) + ") beyond end of range (" + std::to_string(end) + "): " + e;
  }
  if (step == 0) return "step of range should be a positive number: " + e;
  return std::nullopt;
}

std::optional<std::string> GetField(std::string_view field, const Bounds& b) {
  for (const auto& r : SplitKeep(field, ',')) {
    if (r.empty()) continue;  // strings.FieldsFunc drops empty pieces
    if (auto err = GetRange(r, b)) return err;
  }
  return std::nullopt;
}

// Go's time.ParseDuration, for validation only.
bool ParseGoDuration(std::string_view s) {
  if (s.empty()) return false;
  if (s[0] == '+' || s[0] == '-') s.remove_prefix(1);
  if (s == "0") return true;
  if (s.empty()) return false;
  while (!s.empty()) {
    size_t i = 0;
    bool digits = false;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      ++i;
      digits = true;
    }
    if (i < s.size() && s[i] == '.') {
      ++i;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        ++i;
        digits = true;
      }
    }
    if (!digits) return false;
    size_t u = i;
    while (u < s.size() && !(s[u] >= '0' && s[u] <= '9') && s[u] != '.') ++u;
    std::string_view unit = s.substr(i, u - i);
    if (unit != "ns" && unit != "us" && unit != "µs" && unit != "μs" && unit != "ms" && unit != "s" && unit != "m" &&
        unit != "h") {
      return false;
    }
    s.remove_prefix(u);
  }
  return true;
}

std::string GoStringList(const std::vector<std::string>& v) { return "[" + Join(v, " ") + "]"; }

}  // namespace

std::optional<std::string> LoadLocationError(std::string_view name) {
  if (name.empty() || name == "UTC" || name == "Local") return std::nullopt;
  if (name.find("..") != std::string_view::npos || name[0] == '/' || name[0] == '\\') {
    return std::string("time: invalid location name");
  }
  std::error_code ec;
  std::filesystem::path p = std::filesystem::path("/usr/share/zoneinfo") / std::string(name);
  if (std::filesystem::is_regular_file(p, ec)) return std::nullopt;
  return "unknown time zone " + std::string(name);
}

std::optional<std::string> CronScheduleError(std::string_view spec) {
  if (spec.empty()) return std::string("empty spec string");
  if (StartsWith(spec, "TZ=") || StartsWith(spec, "CRON_TZ=")) {
    size_t sp = spec.find(' ');
    size_t eq = spec.find('=');
    std::string_view loc = sp == std::string_view::npos ? spec.substr(eq + 1) : spec.substr(eq + 1, sp - eq - 1);
    if (auto err = LoadLocationError(loc)) return "provided bad location " + std::string(loc) + ": " + *err;
    spec = sp == std::string_view::npos ? std::string_view() : TrimSpace(spec.substr(sp));
  }
  if (StartsWith(spec, "@")) {
    static const char* kDescriptors[] = {"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"};
    for (const char* d : kDescriptors) {
      if (spec == d) return std::nullopt;
    }
    constexpr std::string_view kEvery = "@every ";
    if (StartsWith(spec, kEvery)) {
      if (!ParseGoDuration(spec.substr(kEvery.size()))) {
        return "failed to parse duration " + std::string(spec) + ": time: invalid duration " +
               GoQuote(spec.substr(kEvery.size()));
      }
      return std::nullopt;
    }
    return "unrecognized descriptor: " + std::string(spec);
  }
  std::vector<std::string> fields = Fields(spec);
  if (fields.size() != 5) {
    return "expected exactly 5 fields, found " + std::to_string(fields.size()) + ": " + GoStringList(fields);
  }
  const Bounds bounds[] = {{0, 59, nullptr}, {0, 23, nullptr}, {1, 31, nullptr}, {1, 12, &kMonths}, {0, 6, &kDays}};
  for (size_t i = 0; i < 5; ++i) {
    if (auto err = GetField(fields[i], bounds[i])) return err;
  }
  return std::nullopt;
}

}  // namespace capstan::api::batch
