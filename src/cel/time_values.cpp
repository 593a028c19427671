#include "cel/time_values.h"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "util/go_float.h"
#include "apimachinery/time_util.h"

namespace capstan::cel {

int64_t DaysFromCivil(int64_t y, int m, int d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

Civil ToCivil(int64_t s) {
  int64_t days = s >= 0 ? s / 86400 : -((-s + 86399) / 86400);
  int64_t rem = s - days * 86400;
  Civil c{};
  c.hour = static_cast<int>(rem / 3600);
  c.minute = static_cast<int>(rem % 3600 / 60);
  c.second = static_cast<int>(rem % 60);
  c.weekday = static_cast<int>(((days % 7) + 11) % 7);  // 1970-01-01 was a Thursday
  int64_t z = days + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = yoe + era * 400;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  c.day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  c.month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  c.year = y + (c.month <= 2);
  c.yday = static_cast<int>(days - DaysFromCivil(c.year, 1, 1));
  return c;
}

Value AddTimestamp(const Value& ts, int64_t d) {
  int64_t secs = d / 1000000000;
  int64_t nanos = d % 1000000000;
  int64_t s = ts.seconds() + secs;
  int64_t n = ts.nanos() + nanos;
  if (n >= 1000000000) {
    ++s;
    n -= 1000000000;
  } else if (n < 0) {
    --s;
    n += 1000000000;
  }
  if (s < kMinTimestampSeconds || s > kMaxTimestampSeconds) return Value::Error("timestamp overflow");
  return Value::Timestamp(s, static_cast<int32_t>(n));
}

Value SubTimestamps(const Value& a, const Value& b) {
  __int128 d = (static_cast<__int128>(a.seconds()) - b.seconds()) * 1000000000 + (a.nanos() - b.nanos());
  if (d > INT64_MAX || d < INT64_MIN) return Value::Error("duration overflow");
  return Value::Duration(static_cast<int64_t>(d));
}

std::string FormatTimestamp(const Value& ts) {
  Civil c = ToCivil(ts.seconds());
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04lld-%02d-%02dT%02d:%02d:%02d", static_cast<long long>(c.year), c.month, c.day,
                c.hour, c.minute, c.second);
  std::string out = buf;
  if (ts.nanos() != 0) {
    std::snprintf(buf, sizeof buf, ".%09d", ts.nanos());
    std::string frac = buf;
    while (frac.back() == '0') frac.pop_back();
    out += frac;
  }
  return out + "Z";
}

std::string FormatDurationSeconds(int64_t nanos) {
  // strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
  double secs = static_cast<double>(nanos / 1000000000) + static_cast<double>(nanos % 1000000000) / 1e9;
  std::string g = FormatFloatJson(secs);
  if (g.find('e') != std::string::npos) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9f", secs);
    g = buf;
    while (!g.empty() && g.back() == '0') g.pop_back();
    if (!g.empty() && g.back() == '.') g.pop_back();
  }
  return g + "s";
}

std::optional<Value> ParseTimestamp(std::string_view s) {
  auto t = apimachinery::ParseRfc3339(s);
  if (!t.ok()) return std::nullopt;
  if (t->seconds < kMinTimestampSeconds || t->seconds > kMaxTimestampSeconds) return Value::Error("timestamp overflow");
  return Value::Timestamp(t->seconds, t->nanos);
}

namespace {

// A TZif file's transitions (version 1 data, 32-bit times).
struct Zone {
  std::vector<int64_t> times;
  std::vector<uint8_t> idx;
  std::vector<int32_t> offsets;
  int32_t first_std = 0;
};

uint32_t Be32(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

std::optional<Zone> LoadZone(std::string_view name) {
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '_' || c == '-' || c == '+')) return std::nullopt;
  }
  if (name.find("..") != std::string_view::npos || name.empty() || name[0] == '/') return std::nullopt;
  std::ifstream f("/usr/share/zoneinfo/" + std::string(name), std::ios::binary);
  if (!f) return std::nullopt;
  std::vector<unsigned char> d((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (d.size() < 44 || d[0] != 'T' || d[1] != 'Z' || d[2] != 'i' || d[3] != 'f') return std::nullopt;
  uint32_t isutc = Be32(&d[20]), isstd = Be32(&d[24]), leap = Be32(&d[28]);
  uint32_t timecnt = Be32(&d[32]), typecnt = Be32(&d[36]), charcnt = Be32(&d[40]);
  (void)isutc;
  (void)isstd;
  (void)leap;
  (void)charcnt;
  size_t need = 44 + timecnt * 5 + typecnt * 6;
  if (d.size() < need || typecnt == 0) return std::nullopt;
  Zone z;
  const unsigned char* p = &d[44];
  for (uint32_t i = 0; i < timecnt; ++i) z.times.push_back(static_cast<int32_t>(Be32(p + i * 4)));
  p += timecnt * 4;
  for (uint32_t i = 0; i < timecnt; ++i) z.idx.push_back(std::min<uint8_t>(p[i], static_cast<uint8_t>(typecnt - 1)));
  p += timecnt;
  bool found_std = false;
  for (uint32_t i = 0; i < typecnt; ++i) {
    z.offsets.push_back(static_cast<int32_t>(Be32(p + i * 6)));
    if (!found_std && p[i * 6 + 4] == 0) {
      z.first_std = z.offsets.back();
      found_std = true;
    }
  }
  if (!found_std) z.first_std = z.offsets[0];
  return z;
}

}  // namespace

std::optional<int64_t> ZoneOffset(std::string_view tz, int64_t unix_seconds) {
  if (tz.empty() || tz == "UTC" || tz == "Z") return 0;
  // "+05:30", "-08:00", "05:30"
  {
    std::string_view s = tz;
    int sign = 1;
    if (s[0] == '+' || s[0] == '-') {
      sign = s[0] == '-' ? -1 : 1;
      s.remove_prefix(1);
    }
    if (s.size() == 5 && s[2] == ':' && std::isdigit(static_cast<unsigned char>(s[0])) && std::isdigit(static_cast<unsigned char>(s[1])) &&
        std::isdigit(static_cast<unsigned char>(s[3])) && std::isdigit(static_cast<unsigned char>(s[4]))) {
      int h = (s[0] - '0') * 10 + (s[1] - '0');
      int m = (s[3] - '0') * 10 + (s[4] - '0');
      return sign * (h * 3600 + m * 60);
    }
  }
  static std::mutex mu;
  static std::unordered_map<std::string, std::optional<Zone>> cache;
  std::lock_guard<std::mutex> l(mu);
  auto it = cache.find(std::string(tz));
  if (it == cache.end()) {
    if (cache.size() > 128) cache.clear();
    it = cache.emplace(std::string(tz), LoadZone(tz)).first;
  }
  if (!it->second) return std::nullopt;
  const Zone& z = *it->second;
  int64_t off = z.first_std;
  for (size_t i = 0; i < z.times.size(); ++i) {
    if (z.times[i] > unix_seconds) break;
    off = z.offsets[z.idx[i]];
  }
  return off;
}

}  // namespace capstan::cel
