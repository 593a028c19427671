#include "cmd/kube_flags.h"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <vector>

#include "util/duration.h"
#include "util/strings.h"

namespace capstan::cmd {
namespace {

constexpr KubeFlag kFlags[] = {
#include "cmd/kube_flags_table.inc"
};

// An error with pflag's wording, before the "invalid argument" prefix is added.
using Check = std::optional<std::string>;

// ---- Go strconv ----------------------------------------------------------------------------------

std::string SyntaxError(std::string_view fn, std::string_view s) {
  return "strconv." + std::string(fn) + ": parsing " + GoQuote(s) + ": invalid syntax";
}
std::string RangeError(std::string_view fn, std::string_view s) {
  return "strconv." + std::string(fn) + ": parsing " + GoQuote(s) + ": value out of range";
}

char Lower(char c) { return static_cast<char>(c | 0x20); }

// Go's underscoreOK: in a base-0 literal, underscores must sit between digits (the base prefix counts
// as a digit).
bool UnderscoreOk(std::string_view s) {
  char saw = '^';
  size_t i = 0;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  bool hex = false;
  if (s.size() >= 2 && s[0] == '0' && (Lower(s[1]) == 'b' || Lower(s[1]) == 'o' || Lower(s[1]) == 'x')) {
    i = 2;
    saw = '0';
    hex = Lower(s[1]) == 'x';
  }
  for (; i < s.size(); ++i) {
    char c = s[i];
    if ((c >= '0' && c <= '9') || (hex && Lower(c) >= 'a' && Lower(c) <= 'f')) {
      saw = '0';
      continue;
    }
    if (c == '_') {
      if (saw != '0') return false;
      saw = '_';
      continue;
    }
    if (saw == '_') return false;
    saw = '!';
  }
  return saw != '_';
}

// strconv.ParseUint(s, base, 64); base 0 takes Go's literal prefixes (0x, 0o, 0b, 0) and underscores.
// nullopt with *syntax or *range set on failure.
std::optional<uint64_t> ParseUnsigned(std::string_view s, int base, bool* syntax, bool* range) {
  *syntax = *range = false;
  if (s.empty()) return *syntax = true, std::nullopt;
  std::string_view s0 = s;
  bool base0 = base == 0;
  if (base0) {
    base = 10;
    if (s[0] == '0') {
      if (s.size() >= 3 && Lower(s[1]) == 'b') {
        base = 2, s.remove_prefix(2);
      } else if (s.size() >= 3 && Lower(s[1]) == 'o') {
        base = 8, s.remove_prefix(2);
      } else if (s.size() >= 3 && Lower(s[1]) == 'x') {
        base = 16, s.remove_prefix(2);
      } else {
        base = 8, s.remove_prefix(1);
      }
    }
  }
  uint64_t v = 0;
  bool underscores = false;
  for (char c : s) {
    int d;
    if (c == '_' && base0) {
      underscores = true;
      continue;
    } else if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (Lower(c) >= 'a' && Lower(c) <= 'z') {
      d = Lower(c) - 'a' + 10;
    } else {
      return *syntax = true, std::nullopt;
    }
    if (d >= base) return *syntax = true, std::nullopt;
    if (v > (UINT64_MAX - static_cast<uint64_t>(d)) / static_cast<uint64_t>(base)) return *range = true, std::nullopt;
    v = v * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
  }
  if (underscores && !UnderscoreOk(s0)) return *syntax = true, std::nullopt;
  return v;
}

Check GoParseInt(std::string_view s, int bits) {
  std::string_view body = s;
  bool neg = false;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) neg = body[0] == '-', body.remove_prefix(1);
  bool syntax = false, range = false;
  std::optional<uint64_t> u = ParseUnsigned(body, 0, &syntax, &range);
  if (syntax) return SyntaxError("ParseInt", s);
  uint64_t limit = uint64_t{1} << (bits - 1);
  if (range || *u > (neg ? limit : limit - 1)) return RangeError("ParseInt", s);
  return std::nullopt;
}

Check GoParseUint(std::string_view s, int bits, std::string_view fn, int base) {
  bool syntax = false, range = false;
  std::optional<uint64_t> u = ParseUnsigned(s, base, &syntax, &range);
  if (syntax) return SyntaxError(fn, s);
  if (range || (bits < 64 && *u >= (uint64_t{1} << bits))) return RangeError(fn, s);
  return std::nullopt;
}

// strconv.Atoi: base 10, optional sign.
std::optional<long long> GoAtoi(std::string_view s, std::string* err) {
  std::string_view body = s;
  bool neg = false;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) neg = body[0] == '-', body.remove_prefix(1);
  bool syntax = false, range = false;
  std::optional<uint64_t> u = ParseUnsigned(body, 10, &syntax, &range);
  if (syntax) return *err = SyntaxError("Atoi", s), std::nullopt;
  if (range || *u > static_cast<uint64_t>(INT64_MAX)) return *err = RangeError("Atoi", s), std::nullopt;
  return neg ? -static_cast<long long>(*u) : static_cast<long long>(*u);
}

Check ParseBoolCheck(std::string_view s) {
  if (capstan::GoParseBool(s).has_value()) return std::nullopt;
  return SyntaxError("ParseBool", s);
}

Check GoParseFloat(std::string_view s, int bits) {
  std::string t(s);
  std::string lower = ToLower(t);
  std::string_view unsigned_part = lower;
  if (!unsigned_part.empty() && (unsigned_part[0] == '+' || unsigned_part[0] == '-')) unsigned_part.remove_prefix(1);
  if (unsigned_part == "inf" || unsigned_part == "infinity" || unsigned_part == "nan") return std::nullopt;
  // strtod also takes leading blanks, "nan(...)" and "infinity" spellings Go rejects; screen them out.
  if (t.empty() || !(std::isdigit(static_cast<unsigned char>(unsigned_part.empty() ? 'x' : unsigned_part[0])) ||
                     unsigned_part[0] == '.')) {
    return SyntaxError("ParseFloat", s);
  }
  std::string no_underscores;
  for (char c : t) {
    if (c != '_') no_underscores.push_back(c);
  }
  if (no_underscores.size() != t.size() && !UnderscoreOk(t)) return SyntaxError("ParseFloat", s);
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(no_underscores.c_str(), &end);
  if (end != no_underscores.c_str() + no_underscores.size()) return SyntaxError("ParseFloat", s);
  if (errno == ERANGE && std::isinf(v)) return RangeError("ParseFloat", s);
  if (bits == 32 && std::isfinite(v) && std::fabs(v) > 3.40282346638528859811704183484516925440e+38) {
    return RangeError("ParseFloat", s);
  }
  return std::nullopt;
}

// ---- Go time.ParseDuration's error wording -------------------------------------------------------

Check GoDuration(std::string_view s) {
  if (ParseGoDuration(s)) return std::nullopt;
  std::string_view rest = s;
  if (!rest.empty() && (rest[0] == '+' || rest[0] == '-')) rest.remove_prefix(1);
  // Walk number+unit pairs to tell "missing unit" and "unknown unit" from plain garbage.
  while (!rest.empty()) {
    size_t i = 0;
    while (i < rest.size() && (std::isdigit(static_cast<unsigned char>(rest[i])) || rest[i] == '.')) ++i;
    if (i == 0) break;
    size_t j = i;
    while (j < rest.size() && !std::isdigit(static_cast<unsigned char>(rest[j])) && rest[j] != '.') ++j;
    std::string_view unit = rest.substr(i, j - i);
    if (unit.empty()) return "time: missing unit in duration " + GoQuote(s);
    static constexpr std::array<std::string_view, 7> kUnits = {"ns", "us", "\xc2\xb5s", "ms", "s", "m", "h"};
    if (std::find(kUnits.begin(), kUnits.end(), unit) == kUnits.end()) {
      return "time: unknown unit " + GoQuote(unit) + " in duration " + GoQuote(s);
    }
    rest.remove_prefix(j);
  }
  return "time: invalid duration " + GoQuote(s);
}

// ---- values of kube's own flag types -------------------------------------------------------------

bool ParseIp(std::string_view s) {
  std::string t(TrimSpace(s));
  unsigned char buf[16];
  return inet_pton(AF_INET, t.c_str(), buf) == 1 || inet_pton(AF_INET6, t.c_str(), buf) == 1;
}

bool ParseCidr(std::string_view s) {
  size_t slash = s.find('/');
  if (slash == std::string_view::npos || !ParseIp(s.substr(0, slash)) || TrimSpace(s) != s) return false;
  std::string_view bits = s.substr(slash + 1);
  if (bits.empty() || bits.size() > 3 || !std::all_of(bits.begin(), bits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return false;
  }
  bool v4 = s.substr(0, slash).find(':') == std::string_view::npos;
  return std::stoi(std::string(bits)) <= (v4 ? 32 : 128);
}

Check CidrList(std::string_view s) {
  if (s.empty()) return std::nullopt;
  std::vector<std::string> parts = Split(s, ',');
  for (size_t i = 0; i < parts.size(); ++i) {
    if (!ParseCidr(parts[i])) return "service-cluster-ip-range[" + std::to_string(i) + "] is not a valid cidr";
  }
  if (parts.size() > 2) return std::string("--service-cluster-ip-range must not contain more than two entries");
  return std::nullopt;
}

// k8s.io/apimachinery's PortRange.Set.
Check PortRange(std::string_view value) {
  std::string_view v = TrimSpace(value);
  if (v.empty()) return std::nullopt;
  size_t hyphen = v.find('-'), plus = v.find('+');
  std::string err;
  std::optional<long long> low, high;
  if (hyphen == std::string_view::npos && plus == std::string_view::npos) {
    low = high = GoAtoi(v, &err);
  } else if (plus == std::string_view::npos) {
    low = GoAtoi(v.substr(0, hyphen), &err);
    if (low) high = GoAtoi(v.substr(hyphen + 1), &err);
  } else if (hyphen == std::string_view::npos) {
    low = GoAtoi(v.substr(0, plus), &err);
    std::optional<long long> offset = low ? GoAtoi(v.substr(plus + 1), &err) : std::nullopt;
    if (offset) high = *low + *offset;
  } else {
    return "unable to parse port range: " + std::string(v);
  }
  if (!low || !high) return err;
  if (*low > 65535 || *high > 65535) return "the port range cannot be greater than 65535: " + std::string(v);
  if (*high < *low) return "end port cannot be less than start port: " + std::string(v);
  return std::nullopt;
}

// encoding/csv, one record, as pflag's slice flags read their value.
std::optional<std::vector<std::string>> CsvRecord(std::string_view s, std::string* err) {
  std::vector<std::string> out;
  size_t i = 0;
  while (true) {
    std::string field;
    if (i < s.size() && s[i] == '"') {
      ++i;
      while (true) {
        if (i >= s.size()) {
          *err = "parse error on line 1, column " + std::to_string(s.size() + 1) + ": extraneous or missing \" in quoted-field";
          return std::nullopt;
        }
        if (s[i] == '"') {
          if (i + 1 < s.size() && s[i + 1] == '"') {
            field.push_back('"'), i += 2;
            continue;
          }
          ++i;
          break;
        }
        field.push_back(s[i++]);
      }
      if (i < s.size() && s[i] != ',') {
        *err = "parse error on line 1, column " + std::to_string(i + 1) + ": extraneous or missing \" in quoted-field";
        return std::nullopt;
      }
    } else {
      size_t comma = s.find(',', i);
      std::string_view raw = s.substr(i, comma == std::string_view::npos ? std::string_view::npos : comma - i);
      if (raw.find('"') != std::string_view::npos) {
        *err = "parse error on line 1, column " + std::to_string(i + raw.find('"') + 1) + ": bare \" in non-quoted-field";
        return std::nullopt;
      }
      field = std::string(raw);
      i += raw.size();
    }
    out.push_back(std::move(field));
    if (i >= s.size()) break;
    ++i;  // the comma
  }
  return out;
}

Check StringSlice(std::string_view s) {
  if (s.empty()) return std::nullopt;
  std::string err;
  if (!CsvRecord(s, &err)) return err;
  return std::nullopt;
}

// pflag's stringToString: one '=' means a single pair (commas allowed in its value); more are CSV.
Check StringToString(std::string_view s) {
  if (s.empty()) return std::nullopt;
  size_t n = static_cast<size_t>(std::count(s.begin(), s.end(), '='));
  if (n == 0) return std::string(s) + " must be formatted as key=value";
  if (n == 1) return std::nullopt;
  std::string err;
  auto pairs = CsvRecord(s, &err);
  if (!pairs) return err;
  for (const std::string& p : *pairs) {
    if (p.find('=') == std::string::npos) return p + " must be formatted as key=value";
  }
  return std::nullopt;
}

Check MapNoSplit(std::string_view s) {
  if (s.find('=') == std::string_view::npos) return std::string("malformed pair, expect string=string");
  return std::nullopt;
}

// component-base's feature gate Set, after the colon-separated multimap split.
Check FeatureGates(std::string_view s) {
  for (const std::string& item : Split(s, ',')) {
    if (item.empty()) continue;
    std::string_view pair = item;
    size_t colon = pair.find(':');
    if (colon != std::string_view::npos) {
      std::string_view component = TrimSpace(pair.substr(0, colon));
      if (component != "kube") return "component not registered: " + std::string(component);
      pair = pair.substr(colon + 1);
    }
    pair = TrimSpace(pair);
    if (pair.empty()) continue;
    size_t eq = pair.find('=');
    std::string_view key = TrimSpace(pair.substr(0, eq));
    if (eq == std::string_view::npos) return "missing bool value for " + std::string(key);
    std::string_view val = TrimSpace(pair.substr(eq + 1));
    if (Check bad = ParseBoolCheck(val)) {
      return "invalid value of " + std::string(key) + "=" + std::string(val) + ", err: " + *bad;
    }
  }
  return std::nullopt;
}

// resource.ParseQuantity's accepted shapes.
Check Quantity(std::string_view s) {
  static const std::string kFormat =
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  std::string_view v = s;
  if (!v.empty() && (v[0] == '+' || v[0] == '-')) v.remove_prefix(1);
  size_t i = 0, digits = 0, dots = 0;
  while (i < v.size() && (std::isdigit(static_cast<unsigned char>(v[i])) || v[i] == '.')) {
    (v[i] == '.' ? dots : digits)++;
    ++i;
  }
  if (digits == 0 || dots > 1) return kFormat;
  std::string_view suffix = v.substr(i);
  static constexpr std::array<std::string_view, 15> kSuffixes = {"",  "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "n",
                                                                 "u", "m",  "k",  "M",  "G",  "T",  "P"};
  if (std::find(kSuffixes.begin(), kSuffixes.end(), suffix) != kSuffixes.end() || suffix == "E") return std::nullopt;
  if (suffix[0] == 'e' || suffix[0] == 'E') {
    std::string_view exp = suffix.substr(1);
    if (!exp.empty() && (exp[0] == '+' || exp[0] == '-')) exp.remove_prefix(1);
    if (!exp.empty() && std::all_of(exp.begin(), exp.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return std::nullopt;
    }
  }
  bool shape_ok = true;
  size_t k = 0;
  while (k < suffix.size() && std::string_view("eEinumkKMGTP").find(suffix[k]) != std::string_view::npos) ++k;
  if (k < suffix.size() && (suffix[k] == '+' || suffix[k] == '-')) ++k;
  while (k < suffix.size() && std::isdigit(static_cast<unsigned char>(suffix[k]))) ++k;
  shape_ok = k == suffix.size();
  return shape_ok ? std::string("unable to parse quantity's suffix") : kFormat;
}

Check VModule(std::string_view s) {
  for (const std::string& pat : Split(s, ',')) {
    if (pat.empty()) continue;
    std::vector<std::string> pl = Split(pat, '=');
    if (pl.size() != 2 || pl[0].empty() || pl[1].empty()) return GoQuote(pat) + " does not have the pattern=N format";
    if (Check bad = GoParseUint(pl[1], 31, "ParseUint", 10)) return "parsing verbosity in " + GoQuote(pat) + ": " + *bad;
  }
  return std::nullopt;
}

Check Version(std::string_view s) {
  if (s == "raw") return std::nullopt;
  if (!s.empty() && s[0] == 'v') {
    // A semantic version: vMAJOR.MINOR.PATCH with optional -pre and +build parts.
    std::string_view core = s.substr(1);
    core = core.substr(0, core.find_first_of("-+"));
    std::vector<std::string> nums = Split(core, '.');
    bool ok = nums.size() == 3 && std::all_of(nums.begin(), nums.end(), [](const std::string& n) {
                return !n.empty() && std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; });
              });
    if (ok) return std::nullopt;
    return "could not parse " + GoQuote(s) + " as version";
  }
  return ParseBoolCheck(s);
}

Check NamedCertKey(std::string_view value) {
  std::string_view keycert = value;
  size_t colon = value.find(':');
  if (colon != std::string_view::npos) {
    if (TrimSpace(value.substr(colon + 1)).empty()) return std::string("empty names list is not allowed");
    keycert = value.substr(0, colon);
  }
  if (Split(TrimSpace(keycert), ',').size() != 2) {
    return std::string("expected comma separated certificate and key file paths");
  }
  return std::nullopt;
}

Check CheckValue(FlagKind kind, std::string_view v) {
  switch (kind) {
    case FlagKind::kBool: return ParseBoolCheck(v);
    case FlagKind::kString:
    case FlagKind::kStringArray:
    case FlagKind::kConfigMap: return std::nullopt;
    case FlagKind::kInt:
    case FlagKind::kInt64: return GoParseInt(v, 64);
    case FlagKind::kUint: return GoParseUint(v, 64, "ParseUint", 0);
    case FlagKind::kFloat32: return GoParseFloat(v, 32);
    case FlagKind::kFloat64: return GoParseFloat(v, 64);
    case FlagKind::kDuration: return GoDuration(v);
    case FlagKind::kIP:
      if (ParseIp(v)) return std::nullopt;
      return "failed to parse IP: " + GoQuote(v);
    case FlagKind::kCIDRList: return CidrList(v);
    case FlagKind::kPortRange: return PortRange(v);
    case FlagKind::kStringSlice: return StringSlice(v);
    case FlagKind::kStringToString: return StringToString(v);
    case FlagKind::kMapNoSplit: return MapNoSplit(v);
    case FlagKind::kFeatureGates: return FeatureGates(v);
    case FlagKind::kQuantity: return Quantity(v);
    case FlagKind::kVModule: return VModule(v);
    case FlagKind::kLevel: return GoParseUint(v, 31, "ParseUint", 10);
    case FlagKind::kVersion: return Version(v);
    case FlagKind::kNamedCertKey: return NamedCertKey(v);
  }
  return std::nullopt;
}

}  // namespace

std::span<const KubeFlag> KubeApiserverFlags() { return kFlags; }

std::vector<std::string> StringSliceValues(std::string_view value) {
  if (value.empty()) return {};
  std::string err;
  auto record = CsvRecord(value, &err);
  return record ? *record : std::vector<std::string>{};
}

std::vector<std::pair<std::string, std::string>> StringToStringPairs(std::string_view value) {
  std::vector<std::string> items;
  if (std::count(value.begin(), value.end(), '=') == 1) {
    while (!value.empty() && value.front() == '"') value.remove_prefix(1);
    while (!value.empty() && value.back() == '"') value.remove_suffix(1);
    items.emplace_back(value);
  } else {
    items = StringSliceValues(value);
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& item : items) {
    auto eq = item.find('=');
    if (eq != std::string::npos) out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
  }
  return out;
}

const KubeFlag* FindKubeFlag(std::string_view name) {
  while (!name.empty() && name[0] == '-') name.remove_prefix(1);
  std::string normalized(name);
  std::replace(normalized.begin(), normalized.end(), '_', '-');
  auto it = std::lower_bound(std::begin(kFlags), std::end(kFlags), normalized,
                             [](const KubeFlag& f, const std::string& n) { return f.name < n; });
  if (it == std::end(kFlags) || it->name != normalized) return nullptr;
  return &*it;
}

const KubeFlag* FindKubeFlagByShorthand(char shorthand) {
  for (const KubeFlag& f : kFlags) {
    if (f.shorthand.size() == 1 && f.shorthand[0] == shorthand) return &f;
  }
  return nullptr;
}

bool FlagValueIsOptional(const KubeFlag& flag) {
  return flag.kind == FlagKind::kBool || flag.kind == FlagKind::kVersion;
}

bool FlagIsRepeatable(const KubeFlag& flag) {
  switch (flag.kind) {
    case FlagKind::kStringSlice:
    case FlagKind::kStringArray:
    case FlagKind::kStringToString:
    case FlagKind::kMapNoSplit:
    case FlagKind::kConfigMap:
    case FlagKind::kFeatureGates:
    case FlagKind::kNamedCertKey: return true;
    default: return false;
  }
}

std::string FlagDisplayName(const KubeFlag& flag) {
  std::string out;
  if (!flag.shorthand.empty()) out = "-" + std::string(flag.shorthand) + ", ";
  return out + "--" + std::string(flag.name);
}

Status ValidateFlagValue(const KubeFlag& flag, std::string_view value) {
  Check bad = CheckValue(flag.kind, value);
  if (!bad) return Status::Ok();
  return Status(400, "BadRequest",
                "invalid argument " + GoQuote(value) + " for " + GoQuote(FlagDisplayName(flag)) + " flag: " + *bad);
}

std::string_view FlagKindName(FlagKind kind) {
  switch (kind) {
    case FlagKind::kBool: return "bool";
    case FlagKind::kString: return "string";
    case FlagKind::kInt: return "int";
    case FlagKind::kInt64: return "int64";
    case FlagKind::kUint: return "uint";
    case FlagKind::kFloat32: return "float32";
    case FlagKind::kFloat64: return "float64";
    case FlagKind::kDuration: return "duration";
    case FlagKind::kIP: return "ip";
    case FlagKind::kCIDRList: return "cidrs";
    case FlagKind::kPortRange: return "portRange";
    case FlagKind::kStringSlice: return "stringSlice";
    case FlagKind::kStringArray: return "stringArray";
    case FlagKind::kStringToString: return "stringToString";
    case FlagKind::kMapNoSplit: return "mapStringString";
    case FlagKind::kConfigMap: return "configurationMap";
    case FlagKind::kFeatureGates: return "featureGates";
    case FlagKind::kQuantity: return "quantity";
    case FlagKind::kVModule: return "vmodule";
    case FlagKind::kLevel: return "level";
    case FlagKind::kVersion: return "version";
    case FlagKind::kNamedCertKey: return "namedCertKey";
  }
  return "unknown";
}

}  // namespace capstan::cmd
