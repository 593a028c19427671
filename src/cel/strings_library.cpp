// cel-go's ext.Strings, version 2 (what kube-apiserver 1.29+ enables): charAt, indexOf,
// lastIndexOf, lowerAscii, upperAscii, replace, split, substring, trim, join, strings.quote and
// format. Indexes count code points, as cel-go's do; error texts are cel-go's.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "util/go_float.h"
#include "apimachinery/utf8.h"
#include "cel/functions.h"
#include "cel/time_values.h"

namespace capstan::cel {

namespace {

namespace am = capstan::apimachinery;

std::vector<uint32_t> Runes(std::string_view s) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < s.size();) {
    size_t len = 0;
    out.push_back(am::DecodeUtf8(s.substr(i), len));
    i += len ? len : 1;
  }
  return out;
}

std::string FromRunes(const std::vector<uint32_t>& r, size_t from, size_t to) {
  std::string out;
  for (size_t i = from; i < to && i < r.size(); ++i) am::AppendUtf8(out, r[i]);
  return out;
}

Value OutOfRange(int64_t i) { return Value::Error("index out of range: " + std::to_string(i)); }

Value CharAt(EvalContext&, const Value* a, size_t n) {
  if (n != 2 || a[0].kind() != Kind::kString || a[1].kind() != Kind::kInt) return NoSuchOverload();
  auto r = Runes(a[0].str());
  int64_t i = a[1].int_value();
  if (i < 0 || i > static_cast<int64_t>(r.size())) return OutOfRange(i);
  return Value::String(FromRunes(r, static_cast<size_t>(i), static_cast<size_t>(i) + 1));
}

int64_t FindRunes(const std::vector<uint32_t>& s, const std::vector<uint32_t>& sub, int64_t from, bool last) {
  int64_t n = static_cast<int64_t>(s.size()), m = static_cast<int64_t>(sub.size());
  if (!last) {
    for (int64_t i = from; i + m <= n; ++i) {
      if (std::equal(sub.begin(), sub.end(), s.begin() + i)) return i;
    }
    return -1;
  }
  for (int64_t i = std::min(from, n - m); i >= 0; --i) {
    if (std::equal(sub.begin(), sub.end(), s.begin() + i)) return i;
  }
  return -1;
}

template <bool kLast>
Value IndexOf(EvalContext& ctx, const Value* a, size_t n) {
  if (n < 2 || n > 3 || a[0].kind() != Kind::kString || a[1].kind() != Kind::kString) return NoSuchOverload();
  if (n == 3 && a[2].kind() != Kind::kInt) return NoSuchOverload();
  ctx.Charge(SizeCost(a[0]));
  auto s = Runes(a[0].str());
  auto sub = Runes(a[1].str());
  int64_t len = static_cast<int64_t>(s.size());
  int64_t off = kLast ? len : 0;
  if (n == 3) {
    off = a[2].int_value();
    if (off < 0 || off > len) return OutOfRange(off);
  }
  if (sub.empty()) return Value::Int(off);
  if (kLast && n == 3 && off >= len) off = len;
  return Value::Int(FindRunes(s, sub, off, kLast));
}

template <bool kUpper>
Value CaseAscii(EvalContext& ctx, const Value* a, size_t n) {
  if (n != 1 || a[0].kind() != Kind::kString) return NoSuchOverload();
  ctx.Charge(SizeCost(a[0]));
  std::string s = a[0].str();
  for (auto& c : s) {
    if (kUpper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
    if (!kUpper && c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  return Value::String(std::move(s));
}

// Go's strings.Replace(s, old, new, n): an empty `old` matches before every code point and at the end.
std::string GoReplace(const std::string& s, const std::string& old, const std::string& with, int64_t limit) {
  if (limit == 0 || (old == with)) return s;
  std::string out;
  int64_t done = 0;
  if (old.empty()) {
    size_t i = 0;
    while (i <= s.size()) {
      if (limit < 0 || done < limit) {
        out += with;
        ++done;
      }
      if (i == s.size()) break;
      size_t len = am::Utf8SequenceLength(std::string_view(s).substr(i));
      if (len == 0) len = 1;
      out.append(s, i, len);
      i += len;
    }
    return out;
  }
  size_t i = 0;
  while (limit < 0 || done < limit) {
    size_t p = s.find(old, i);
    if (p == std::string::npos) break;
    out.append(s, i, p - i);
    out += with;
    i = p + old.size();
    ++done;
  }
  out.append(s, i, std::string::npos);
  return out;
}

Value Replace(EvalContext& ctx, const Value* a, size_t n) {
  if (n < 3 || n > 4 || a[0].kind() != Kind::kString || a[1].kind() != Kind::kString || a[2].kind() != Kind::kString) return NoSuchOverload();
  if (n == 4 && a[3].kind() != Kind::kInt) return NoSuchOverload();
  const std::string& str = a[0].str();
  const std::string& old = a[1].str();
  const std::string& with = a[2].str();
  int64_t limit = n == 4 ? a[3].int_value() : -1;
  // Charge for the result before building it: an empty `old` inserts `with` at every code point,
  // so the output can be far larger than the inputs.
  uint64_t count = 0;
  if (old.empty()) {
    count = static_cast<uint64_t>(CodePointCount(str)) + 1;
  } else {
    for (size_t p = str.find(old); p != std::string::npos; p = str.find(old, p + old.size())) ++count;
  }
  if (limit >= 0 && static_cast<uint64_t>(limit) < count) count = static_cast<uint64_t>(limit);
  uint64_t out_size = str.size() + count * with.size();
  if (!ctx.Charge(SizeCost(a[0]) + (out_size + 9) / 10)) return NoSuchOverload();
  return Value::String(GoReplace(str, old, with, limit));
}

Value Split(EvalContext& ctx, const Value* a, size_t n) {
  if (n < 2 || n > 3 || a[0].kind() != Kind::kString || a[1].kind() != Kind::kString) return NoSuchOverload();
  if (n == 3 && a[2].kind() != Kind::kInt) return NoSuchOverload();
  ctx.Charge(SizeCost(a[0]));
  int64_t limit = n == 3 ? a[2].int_value() : -1;
  std::vector<Value> out;
  if (limit == 0) return Value::List(std::move(out));
  const std::string& s = a[0].str();
  const std::string& sep = a[1].str();
  if (sep.empty()) {
    auto r = Runes(s);
    for (size_t i = 0; i < r.size(); ++i) {
      if (limit > 0 && static_cast<int64_t>(out.size()) == limit - 1) {
        out.push_back(Value::String(FromRunes(r, i, r.size())));
        break;
      }
      out.push_back(Value::String(FromRunes(r, i, i + 1)));
    }
    return Value::List(std::move(out));
  }
  size_t i = 0;
  while (limit < 0 || static_cast<int64_t>(out.size()) < limit - 1) {
    size_t p = s.find(sep, i);
    if (p == std::string::npos) break;
    out.push_back(Value::String(s.substr(i, p - i)));
    i = p + sep.size();
  }
  out.push_back(Value::String(s.substr(i)));
  return Value::List(std::move(out));
}

Value Substring(EvalContext& ctx, const Value* a, size_t n) {
  if (n < 2 || n > 3 || a[0].kind() != Kind::kString || a[1].kind() != Kind::kInt) return NoSuchOverload();
  if (n == 3 && a[2].kind() != Kind::kInt) return NoSuchOverload();
  ctx.Charge(SizeCost(a[0]));
  auto r = Runes(a[0].str());
  int64_t len = static_cast<int64_t>(r.size());
  int64_t start = a[1].int_value();
  int64_t end = n == 3 ? a[2].int_value() : len;
  if (start < 0 || start > len) return OutOfRange(start);
  if (end < 0 || end > len) return OutOfRange(end);
  if (start > end) {
    return Value::Error("invalid substring range. start: " + std::to_string(start) + ", end: " + std::to_string(end));
  }
  return Value::String(FromRunes(r, static_cast<size_t>(start), static_cast<size_t>(end)));
}

bool IsUnicodeSpace(uint32_t c) {
  switch (c) {
    case '\t': case '\n': case '\v': case '\f': case '\r': case ' ': case 0x85: case 0xA0: case 0x1680:
    case 0x2028: case 0x2029: case 0x202F: case 0x205F: case 0x3000:
      return true;
    default:
      return c >= 0x2000 && c <= 0x200A;
  }
}

Value Trim(EvalContext& ctx, const Value* a, size_t n) {
  if (n != 1 || a[0].kind() != Kind::kString) return NoSuchOverload();
  ctx.Charge(SizeCost(a[0]));
  auto r = Runes(a[0].str());
  size_t b = 0, e = r.size();
  while (b < e && IsUnicodeSpace(r[b])) ++b;
  while (e > b && IsUnicodeSpace(r[e - 1])) --e;
  return Value::String(FromRunes(r, b, e));
}

Value Join(EvalContext& ctx, const Value* a, size_t n) {
  if (n < 1 || n > 2 || a[0].kind() != Kind::kList) return NoSuchOverload();
  if (n == 2 && a[1].kind() != Kind::kString) return NoSuchOverload();
  std::string sep = n == 2 ? a[1].str() : "";
  std::string out;
  bool first = true;
  for (const auto& x : a[0].list().items) {
    if (x.kind() != Kind::kString) return NoSuchOverload();
    if (!first) out += sep;
    out += x.str();
    first = false;
  }
  ctx.Charge((out.size() + 9) / 10);
  return Value::String(std::move(out));
}

std::string QuoteString(const std::string& s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    size_t len = am::Utf8SequenceLength(std::string_view(s).substr(i));
    if (len == 0) {
      out += "\xef\xbf\xbd";
      ++i;
      continue;
    }
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (len == 1) {
      switch (c) {
        case '\a': out += "\\a"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\v': out += "\\v"; break;
        case '\\': out += "\\\\"; break;
        case '"': out += "\\\""; break;
        default: out.push_back(static_cast<char>(c));
      }
    } else {
      out.append(s, i, len);
    }
    i += len;
  }
  return out + "\"";
}

Value Quote(EvalContext& ctx, const Value* a, size_t n) {
  if (n != 1 || a[0].kind() != Kind::kString) return NoSuchOverload();
  ctx.Charge(SizeCost(a[0]));
  return Value::String(QuoteString(a[0].str()));
}

// format(): %s %d %f %e %b %o %x %X with cel-go's per-verb rules and error texts.
std::string FormatString(const Value& v, std::string& err);

std::string FormatListForS(const Value& v, std::string& err) {
  std::string out = "[";
  for (size_t i = 0; i < v.list().items.size(); ++i) {
    if (i) out += ", ";
    const Value& x = v.list().items[i];
    out += FormatString(x, err);
  }
  return out + "]";
}

std::string FormatString(const Value& v, std::string& err) {
  switch (v.kind()) {
    case Kind::kString: return v.str();
    case Kind::kBytes: return v.str();
    case Kind::kInt: return std::to_string(v.int_value());
    case Kind::kUint: return std::to_string(v.uint_value());
    case Kind::kDouble: {
      double d = v.double_value();
      if (std::isnan(d)) return "NaN";
      if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
      return FormatFloatG(d);
    }
    case Kind::kBool: return v.bool_value() ? "true" : "false";
    case Kind::kNull: return "null";
    case Kind::kTimestamp: return FormatTimestamp(v);
    case Kind::kDuration: return FormatDurationSeconds(v.duration_nanos());
    case Kind::kType: return v.str();
    case Kind::kList: return FormatListForS(v, err);
    case Kind::kMap: {
      std::vector<std::pair<std::string, std::string>> kv;
      for (const auto& [k, x] : v.map().entries) {
        kv.emplace_back(FormatString(k, err), FormatString(x, err));
      }
      std::sort(kv.begin(), kv.end());
      std::string out = "{";
      for (size_t i = 0; i < kv.size(); ++i) out += (i ? ", " : "") + kv[i].first + ": " + kv[i].second;
      return out + "}";
    }
    default:
      err = "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given " + TypeName(v);
      return "";
  }
}

Value Format(EvalContext& ctx, const Value* a, size_t n) {
  if (n != 2 || a[0].kind() != Kind::kString || a[1].kind() != Kind::kList) return NoSuchOverload();
  const std::string& f = a[0].str();
  const auto& args = a[1].list().items;
  ctx.Charge(SizeCost(a[0]));
  std::string out;
  size_t argi = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%') {
      out.push_back(f[i]);
      continue;
    }
    if (i + 1 < f.size() && f[i + 1] == '%') {
      out.push_back('%');
      ++i;
      continue;
    }
    size_t j = i + 1;
    int precision = -1;
    if (j < f.size() && f[j] == '.') {
      ++j;
      precision = 0;
      while (j < f.size() && std::isdigit(static_cast<unsigned char>(f[j]))) precision = precision * 10 + (f[j++] - '0');
    }
    if (j >= f.size()) return Value::Error("could not parse formatting clause: unexpected end of string");
    char verb = f[j];
    if (argi >= args.size()) return Value::Error("index " + std::to_string(argi) + " out of range");
    const Value& x = args[argi++];
    std::string err;
    char buf[512];
    switch (verb) {
      case 's': out += FormatString(x, err); break;
      case 'd':
        if (x.kind() == Kind::kInt) out += std::to_string(x.int_value());
        else if (x.kind() == Kind::kUint) out += std::to_string(x.uint_value());
        else if (x.kind() == Kind::kDouble && (std::isnan(x.double_value()) || std::isinf(x.double_value()))) out += FormatString(x, err);
        else err = "decimal clause can only be used on integers, was given " + TypeName(x);
        break;
      case 'f': case 'e': {
        double d;
        if (x.kind() == Kind::kDouble) d = x.double_value();
        else if (x.kind() == Kind::kInt) d = static_cast<double>(x.int_value());
        else if (x.kind() == Kind::kUint) d = static_cast<double>(x.uint_value());
        else {
          err = std::string(verb == 'f' ? "fixed-point" : "scientific") + " clause can only be used on doubles, was given " + TypeName(x);
          break;
        }
        if (std::isnan(d) || std::isinf(d)) {
          out += FormatString(Value::Double(d), err);
          break;
        }
        std::snprintf(buf, sizeof buf, verb == 'f' ? "%.*f" : "%.*e", precision < 0 ? 6 : std::min(precision, 100), d);
        out += buf;
        break;
      }
      case 'b': case 'o': case 'x': case 'X': {
        if (x.kind() == Kind::kInt || x.kind() == Kind::kUint || x.kind() == Kind::kBool) {
          bool neg = x.kind() == Kind::kInt && x.int_value() < 0;
          uint64_t u = x.kind() == Kind::kInt ? (neg ? 0 - static_cast<uint64_t>(x.int_value()) : static_cast<uint64_t>(x.int_value()))
                       : x.kind() == Kind::kUint ? x.uint_value() : (x.bool_value() ? 1 : 0);
          int base = verb == 'b' ? 2 : (verb == 'o' ? 8 : 16);
          const char* digits = verb == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
          std::string d;
          do {
            d.insert(d.begin(), digits[u % static_cast<uint64_t>(base)]);
            u /= static_cast<uint64_t>(base);
          } while (u);
          out += (neg ? "-" : "") + d;
        } else if ((verb == 'x' || verb == 'X') && (x.kind() == Kind::kString || x.kind() == Kind::kBytes)) {
          const char* digits = verb == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
          for (unsigned char c : x.str()) {
            out.push_back(digits[c >> 4]);
            out.push_back(digits[c & 15]);
          }
        } else {
          err = std::string(verb == 'b' ? "only integers and bools can be formatted as binary" : verb == 'o' ? "octal clause can only be used on integers, was given " + TypeName(x) : "only integers, byte buffers, and strings can be formatted as hex, was given " + TypeName(x));
        }
        break;
      }
      default:
        return Value::Error(std::string("could not parse formatting clause: unrecognized formatting clause \"") + verb + "\"");
    }
    if (!err.empty()) return Value::Error("error during formatting: " + err);
    i = j;
  }
  ctx.Charge((out.size() + 9) / 10);
  return Value::String(std::move(out));
}

}  // namespace

void RegisterStringsLibrary(FunctionRegistry& r) {
  r.AddMember("charAt", CharAt);
  r.AddMember("indexOf", IndexOf<false>);
  r.AddMember("lastIndexOf", IndexOf<true>);
  r.AddMember("lowerAscii", CaseAscii<false>);
  r.AddMember("upperAscii", CaseAscii<true>);
  r.AddMember("replace", Replace);
  r.AddMember("split", Split);
  r.AddMember("substring", Substring);
  r.AddMember("trim", Trim);
  r.AddMember("join", Join);
  r.AddGlobal("strings.quote", Quote);
  r.AddMember("format", Format);
}

}  // namespace capstan::cel
