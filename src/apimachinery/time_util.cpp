#include "apimachinery/time_util.h"

#include <cstdio>

namespace capstan::apimachinery {
namespace {

// Days since 1970-01-01 for a proleptic Gregorian date (H. Hinnant's algorithm).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void CivilFromDays(int64_t z, int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
}

int DaysIn(int month, int64_t year) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month == 2 && ((year % 4 == 0 && year % 100 != 0) || year % 400 == 0)) return 29;
  return kDays[month - 1];
}

std::string Format(Timestamp t, bool micro) {
  int64_t days = t.seconds / 86400;
  int64_t rem = t.seconds % 86400;
  if (rem < 0) {
    rem += 86400;
    --days;
  }
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, y, m, d);
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02d:%02d:%02d", static_cast<long long>(y), m, d,
                        static_cast<int>(rem / 3600), static_cast<int>(rem / 60 % 60), static_cast<int>(rem % 60));
  std::string out(buf, n);
  if (micro) {
    std::snprintf(buf, sizeof buf, ".%06d", t.nanos / 1000);
    out += buf;
  }
  out += 'Z';
  return out;
}

// Go's time package quote(): non-ASCII and control bytes as \xNN.
std::string TimeQuote(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c >= 0x80 || c < ' ') {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xf]);
    } else {
      if (c == '"' || c == '\\') out.push_back('\\');
      out.push_back(static_cast<char>(c));
    }
  }
  return out + "\"";
}

bool IsDigitAt(std::string_view s, size_t i) { return i < s.size() && s[i] >= '0' && s[i] <= '9'; }

// Go's getnum: one or two digits (exactly two when fixed).
bool GetNum(std::string_view& s, bool fixed, int& out) {
  if (!IsDigitAt(s, 0)) return false;
  if (!IsDigitAt(s, 1)) {
    if (fixed) return false;
    out = s[0] - '0';
    s.remove_prefix(1);
    return true;
  }
  out = (s[0] - '0') * 10 + (s[1] - '0');
  s.remove_prefix(2);
  return true;
}

// Go's time.Parse for the RFC 3339 layouts (the generic layout walk, element by element).
StatusOr<Timestamp> Parse(std::string_view value_in, bool micro) {
  const std::string_view layout = micro ? kRfc3339MicroLayout : kRfc3339Layout;
  auto fail = [&](std::string_view layout_elem, std::string_view value_elem) {
    return Status(400, "BadRequest", "parsing time " + TimeQuote(value_in) + " as " + TimeQuote(layout) +
                                         ": cannot parse " + TimeQuote(value_elem) + " as " + TimeQuote(layout_elem));
  };
  auto range = [&](std::string_view what) {
    return Status(400, "BadRequest", "parsing time " + TimeQuote(value_in) + ": " + std::string(what) + " out of range");
  };
  std::string_view v = value_in;
  auto skip = [&](char c) -> bool {
    if (v.empty() || v[0] != c) return false;
    v.remove_prefix(1);
    return true;
  };
  int64_t year = 0;
  int month = 0, day = 0, hour = 0, minute = 0, sec = 0;
  int64_t nsec = 0, offset = 0;

  // 2006
  if (v.size() < 4) return fail("2006", v);
  {
    std::string_view p = v.substr(0, 4);
    bool neg = false;
    if (p[0] == '-' || p[0] == '+') {
      neg = p[0] == '-';
      p.remove_prefix(1);
    }
    if (p.empty()) return fail("2006", v);
    for (char c : p) {
      if (c < '0' || c > '9') return fail("2006", v);
      year = year * 10 + (c - '0');
    }
    if (neg) year = -year;
    v.remove_prefix(4);
  }
  if (!skip('-')) return fail("-", v);
  std::string_view hold = v;
  if (!GetNum(v, true, month)) return fail("01", hold);
  if (month <= 0 || month > 12) return range("month");
  if (!skip('-')) return fail("-", v);
  hold = v;
  if (!GetNum(v, true, day)) return fail("02", hold);
  if (!skip('T')) return fail("T", v);
  hold = v;
  if (!GetNum(v, false, hour)) return fail("15", hold);
  if (hour >= 24) return range("hour");
  if (!skip(':')) return fail(":", v);
  hold = v;
  if (!GetNum(v, true, minute)) return fail("04", hold);
  if (minute >= 60) return range("minute");
  if (!skip(':')) return fail(":", v);
  hold = v;
  if (!GetNum(v, true, sec)) return fail("05", hold);
  if (sec >= 60) return range("second");
  auto parse_nanos = [&](size_t n) -> bool {
    // v[0] is '.' or ','; n bytes including it.
    size_t use = std::min<size_t>(n, 10);
    int64_t ns = 0;
    for (size_t i = 1; i < use; ++i) {
      if (!IsDigitAt(v, i)) return false;
      ns = ns * 10 + (v[i] - '0');
    }
    for (size_t i = use; i < 10; ++i) ns *= 10;
    nsec = ns;
    v.remove_prefix(n);
    return true;
  };
  if (micro) {
    hold = v;
    if (v.size() < 7 || (v[0] != '.' && v[0] != ',') || !parse_nanos(7)) return fail(".000000", hold);
  } else if (v.size() >= 2 && (v[0] == '.' || v[0] == ',') && IsDigitAt(v, 1)) {
    size_t n = 2;
    while (IsDigitAt(v, n)) ++n;
    parse_nanos(n);
  }
  // Z07:00
  hold = v;
  if (!v.empty() && v[0] == 'Z') {
    v.remove_prefix(1);
  } else {
    if (v.size() < 6 || v[3] != ':') return fail("Z07:00", hold);
    std::string_view hh = v.substr(1, 2), mm = v.substr(4, 2);
    int hr, mi;
    if (!GetNum(hh, true, hr) || !GetNum(mm, true, mi)) return fail("Z07:00", hold);
    if (hr > 24) return range("time zone offset hour");
    if (mi > 60) return range("time zone offset minute");
    offset = (hr * 60 + mi) * 60;
    if (v[0] == '-') {
      offset = -offset;
    } else if (v[0] != '+') {
      return fail("Z07:00", hold);
    }
    v.remove_prefix(6);
  }
  if (!v.empty()) {
    return Status(400, "BadRequest", "parsing time " + TimeQuote(value_in) + ": extra text: " + TimeQuote(v));
  }
  if (day < 1 || day > DaysIn(month, year)) return range("day");
  Timestamp t;
  t.seconds = DaysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + sec - offset;
  t.nanos = static_cast<int32_t>(nsec);
  return t;
}

}  // namespace

Timestamp Timestamp::FromTimePoint(std::chrono::system_clock::time_point tp) {
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(tp.time_since_epoch()).count();
  Timestamp t;
  t.seconds = ns / 1000000000;
  int64_t rem = ns % 1000000000;
  if (rem < 0) {
    rem += 1000000000;
    --t.seconds;
  }
  t.nanos = static_cast<int32_t>(rem);
  return t;
}

std::chrono::system_clock::time_point Timestamp::ToTimePoint() const {
  return std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::seconds(seconds) +
                                                                      std::chrono::nanoseconds(nanos)));
}

std::string FormatRfc3339(Timestamp t) { return Format(t, false); }
std::string FormatRfc3339Micro(Timestamp t) { return Format(t, true); }
StatusOr<Timestamp> ParseRfc3339(std::string_view s) { return Parse(s, false); }
StatusOr<Timestamp> ParseRfc3339Micro(std::string_view s) { return Parse(s, true); }

}  // namespace capstan::apimachinery
