#include "apimachinery/schema_validator.h"

#include <re2/re2.h>

#include <cmath>
#include <limits>

#include "apimachinery/schema_formats.h"
#include "apimachinery/schema_go_format.h"
#include "util/strings.h"

namespace capstan::apimachinery {

namespace json = boost::json;
using Code = OpenApiError::Code;

void OpenApiResult::Add(OpenApiError e) {
  for (const auto& x : errors) {
    if (x.message == e.message) return;
  }
  errors.push_back(std::move(e));
}

void OpenApiResult::Merge(OpenApiResult other) {
  for (auto& e : other.errors) Add(std::move(e));
  match_count += other.match_count;
}

namespace {

constexpr int kMaxDepth = 2000;

// A value's kube-openapi path ("spec.ports[0].port"), built only when an error needs its text.
struct Path {
  enum class Kind { kRoot, kProperty, kKey, kIndex };
  const Path* parent = nullptr;
  Kind kind = Kind::kRoot;
  std::string_view name;  // kProperty, kKey
  size_t index = 0;       // kIndex
  const std::string* root = nullptr;

  std::string Str() const {
    switch (kind) {
      case Kind::kRoot: return *root;
      case Kind::kProperty: {  // "name" at the root, "parent.name" below
        std::string p = parent->Str();
        return p.empty() ? std::string(name) : p + "." + std::string(name);
      }
      case Kind::kKey: return parent->Str() + "." + std::string(name);  // additional properties
      case Kind::kIndex: return parent->Str() + "[" + std::to_string(index) + "]";
    }
    return "";
  }
};

// A decoded JSON value as Go sees it: integers that fit int64, every other number a float64.
enum class GoKind { kNull, kBool, kInt, kFloat, kString, kSlice, kMap };

GoKind KindOf(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null: return GoKind::kNull;
    case json::kind::bool_: return GoKind::kBool;
    case json::kind::int64: return GoKind::kInt;
    case json::kind::uint64:
    case json::kind::double_: return GoKind::kFloat;
    case json::kind::string: return GoKind::kString;
    case json::kind::array: return GoKind::kSlice;
    case json::kind::object: return GoKind::kMap;
  }
  return GoKind::kNull;
}

double AsFloat(const json::value& v) {
  if (v.is_int64()) return static_cast<double>(v.get_int64());
  if (v.is_uint64()) return static_cast<double>(v.get_uint64());
  return v.is_double() ? v.get_double() : 0;
}

// Go's int64(f) on amd64 (out of range gives the "integer indefinite" value).
int64_t GoInt64(double f) {
  if (std::isnan(f) || f >= 9223372036854775808.0 || f < -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(f);
}

bool Contains(const std::vector<std::string>& types, std::string_view t) {
  for (const auto& x : types) {
    if (x == t) return true;
  }
  return false;
}

std::string JoinTypes(const std::vector<std::string>& types) { return Join(types, ","); }

std::string In(const std::string& path) { return path + " in body"; }

OpenApiResult Single(OpenApiError e) {
  OpenApiResult r;
  r.errors.push_back(std::move(e));
  return r;
}

OpenApiError MakeError(Code code, std::string name, std::optional<json::value> value, std::string message) {
  OpenApiError e;
  e.code = code;
  e.name = std::move(name);
  e.value = std::move(value);
  e.message = std::move(message);
  return e;
}

OpenApiError InvalidType(const std::string& path, const std::string& type_name, const std::string& value) {
  return MakeError(Code::kInvalidType, path, json::value(value),
                   In(path) + " must be of type " + type_name + ": " + GoQuote(value));
}

OpenApiError Plain(std::string message) { return MakeError(Code::kPlain, "", std::nullopt, std::move(message)); }

// strconv.ParseInt(s, 10, bits) succeeds.
bool ParsesAsInt(const std::string& s, int bits) {
  if (s.empty()) return false;
  size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (i == s.size()) return false;
  __int128 v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
    if (v > (static_cast<__int128>(1) << 64)) return false;
  }
  if (s[0] == '-') v = -v;
  __int128 lim = static_cast<__int128>(1) << (bits - 1);
  return v >= -lim && v < lim;
}

// kube-openapi's IsValueValidAgainstRange: an empty string means valid.
std::string RangeError(const json::value& val, const std::string& type_name, const std::string& format,
                       const std::string& prefix, const Path& path) {
  std::string rep = val.is_int64() ? std::to_string(val.get_int64()) : GoFloatF(AsFloat(val));
  bool ok = true;
  if (type_name == "integer") {
    ok = ParsesAsInt(rep, format == "int32" ? 32 : 64);
  } else if (format == "float") {
    double d = AsFloat(val);
    ok = std::isfinite(static_cast<float>(d)) || !std::isfinite(d);
  }
  if (ok) return "";
  if (!format.empty()) return prefix + " value must be of type " + type_name + " with format " + format + " in " + path.Str();
  return prefix + " value must be of type " + type_name + " (default format) in " + path.Str();
}

// reflect's Convert of the data value to the enum value's type, then DeepEqual.
bool EnumMatches(const json::value& data, const json::value& enum_value) {
  GoKind dk = KindOf(data), ek = KindOf(enum_value);
  if (ek == GoKind::kNull) return false;
  if (dk == ek) {
    if (dk == GoKind::kFloat) return AsFloat(data) == AsFloat(enum_value);
    return data == enum_value;
  }
  if (dk == GoKind::kInt && ek == GoKind::kFloat) return static_cast<double>(data.get_int64()) == AsFloat(enum_value);
  if (dk == GoKind::kFloat && ek == GoKind::kInt) return GoInt64(AsFloat(data)) == enum_value.get_int64();
  if (dk == GoKind::kInt && ek == GoKind::kString) {
    // Go converts an integer to the string of that rune.
    int64_t r = data.get_int64();
    if (r < 0 || r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF)) r = 0xFFFD;
    std::string s;
    auto c = static_cast<uint32_t>(r);
    if (c < 0x80) {
      s.push_back(static_cast<char>(c));
    } else if (c < 0x800) {
      s.push_back(static_cast<char>(0xC0 | (c >> 6)));
      s.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
      s.push_back(static_cast<char>(0xE0 | (c >> 12)));
      s.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      s.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else {
      s.push_back(static_cast<char>(0xF0 | (c >> 18)));
      s.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
      s.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      s.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
    return s == std::string_view(enum_value.get_string());
  }
  return false;
}

size_t RuneCount(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

class Validator {
 public:
  OpenApiResult Validate(const Schema& node, const json::value& data, const Path& path, int depth) {
    if (depth > kMaxDepth) return Single(Plain("schema validation nested too deeply at " + path.Str()));
    const Schema& s = node.Deref();
    OpenApiResult result;
    if (data.is_null()) {
      result.Merge(TypeOf(s, node.Nullable(), data, path));
      result.Merge(Common(s, data, path));
      return result;
    }
    GoKind kind = KindOf(data);
    if (!s.validation_type.empty() || !s.validation_format.empty()) {
      result.Merge(TypeOf(s, node.Nullable(), data, path));
      result.match_count++;
    }
    result.Merge(Junctors(s, data, path, depth));
    result.match_count++;
    if (kind == GoKind::kString) {
      result.Merge(String(s, data.get_string(), path));
      result.match_count++;
      StringFormat f = s.validation_format.empty() ? StringFormat::kNone : LookupStringFormat(s.validation_format);
      if (f != StringFormat::kNone) {
        if (!IsValidStringFormat(f, data.get_string())) {
          result.Add(InvalidType(path.Str(), s.validation_format, std::string(data.get_string())));
        }
        result.match_count++;
      }
    }
    if (kind == GoKind::kInt || kind == GoKind::kFloat) {
      result.Merge(Number(s, data, path));
      result.match_count++;
    }
    if (kind == GoKind::kSlice) {
      result.Merge(Slice(s, data.get_array(), path, depth));
      result.match_count++;
    }
    result.Merge(Common(s, data, path));
    result.match_count++;
    if (kind == GoKind::kMap) {
      result.Merge(Object(s, data.get_object(), path, depth));
      result.match_count++;
    }
    result.match_count++;
    return result;
  }

 private:
  OpenApiResult TypeOf(const Schema& s, bool nullable, const json::value& data, const Path& path) {
    OpenApiResult ok;
    ok.match_count = 1;
    const auto& types = s.validation_type;
    if (data.is_null()) {
      if (!types.empty() && !Contains(types, "null") && !nullable) return Single(InvalidType(path.Str(), JoinTypes(types), "null"));
      return ok;
    }
    GoKind kind = KindOf(data);
    std::string sch_type, format;
    switch (kind) {
      case GoKind::kBool: sch_type = "boolean"; break;
      case GoKind::kInt: sch_type = "integer", format = "int64"; break;
      case GoKind::kFloat: sch_type = "number", format = "float64"; break;
      case GoKind::kString: sch_type = "string"; break;
      case GoKind::kSlice: sch_type = "array"; break;
      case GoKind::kMap: sch_type = "object"; break;
      case GoKind::kNull: break;
    }
    const std::string& t_format = s.validation_format;
    bool is_float_int = kind == GoKind::kFloat && IsFloat64AJSONInteger(AsFloat(data)) && Contains(types, "integer");
    bool is_int_float = kind == GoKind::kInt && Contains(types, "number");
    bool stringish = kind == GoKind::kString || kind == GoKind::kSlice;
    if (!stringish && !t_format.empty() &&
        !(Contains(types, sch_type) || format == t_format || is_float_int || is_int_float)) {
      return Single(InvalidType(path.Str(), t_format, format));
    }
    if (!(Contains(types, "number") || Contains(types, "integer")) && !t_format.empty() && stringish) return ok;
    if (!(Contains(types, sch_type) || is_float_int || is_int_float)) {
      return Single(InvalidType(path.Str(), JoinTypes(types), sch_type));
    }
    return ok;
  }

  OpenApiResult Common(const Schema& s, const json::value& data, const Path& path) {
    if (!s.has_enum || s.enum_values.empty()) return {};
    for (const auto& e : s.enum_values) {
      if (!data.is_null() && EnumMatches(data, e)) return {};
    }
    OpenApiError err = MakeError(Code::kEnum, path.Str(), data, In(path.Str()) + " should be one of " +
                                                             GoSprint(json::value(json::array(s.enum_values.begin(), s.enum_values.end()))));
    if (data.is_null()) err.value = std::nullopt;
    err.enum_values = s.enum_values;
    return Single(std::move(err));
  }

  OpenApiResult String(const Schema& s, json::string_view data, const Path& path) {
    if (!s.max_length && !s.min_length && s.pattern.empty()) return {};
    auto value = [&] { return json::value(data); };
    size_t n = RuneCount(data);
    if (s.max_length && static_cast<int64_t>(n) > *s.max_length) {
      auto e = MakeError(Code::kTooLong, path.Str(), value(),
                         In(path.Str()) + " should be at most " + std::to_string(*s.max_length) + " chars long");
      e.valid = *s.max_length;
      return Single(std::move(e));
    }
    if (s.min_length && static_cast<int64_t>(n) < *s.min_length) {
      auto e = MakeError(Code::kTooShort, path.Str(), value(),
                         In(path.Str()) + " should be at least " + std::to_string(*s.min_length) + " chars long");
      e.valid = *s.min_length;
      return Single(std::move(e));
    }
    if (!s.pattern.empty()) {
      if (!s.pattern_re) {
        return Single(MakeError(Code::kPattern, path.Str(), value(),
                                In(path.Str()) + " should match '" + s.pattern + ", but pattern is invalid: " + s.pattern_error + "'"));
      }
      if (!RE2::PartialMatch(re2::StringPiece(data.data(), data.size()), *s.pattern_re)) {
        return Single(MakeError(Code::kPattern, path.Str(), value(), In(path.Str()) + " should match '" + s.pattern + "'"));
      }
    }
    return {};
  }

  OpenApiResult Number(const Schema& s, const json::value& val, const Path& path) {
    std::string type_name, format;
    if (s.validation_type.size() == 1) {
      const std::string& t = s.validation_type[0];
      if (t == "integer") {
        type_name = t;
        if (s.validation_format == "int32" || s.validation_format == "int64") format = s.validation_format;
      } else if (t == "number") {
        type_name = t;
        if (s.validation_format == "float" || s.validation_format == "double") format = s.validation_format;
      }
    }
    OpenApiResult res, res_multiple, res_minimum, res_maximum;
    bool is_int = val.is_int64();
    double data = AsFloat(val);
    if (std::string e = RangeError(val, type_name, format, "Checked", path); !e.empty()) res.Add(Plain(e));

    if (s.multiple_of) {
      double factor = *s.multiple_of;
      std::string range = RangeError(json::value(factor), type_name, format, "MultipleOf", path);
      if (!range.empty()) res_multiple.Add(Plain(range));
      if (range.empty() && is_int) {
        int64_t f = GoInt64(factor);
        if (f <= 0) {
          res_multiple.Add(MakeError(Code::kMultipleOfMustBePositive, path.Str(), json::value(f),
                                     "factor MultipleOf declared for " + path.Str() + " must be positive: " + std::to_string(f)));
        } else if ((val.get_int64() / f) * f != val.get_int64()) {
          res_multiple.Add(MakeError(Code::kMultipleOf, path.Str(), val, In(path.Str()) + " should be a multiple of " + std::to_string(f)));
        }
      } else if (factor <= 0) {
        res_multiple.Add(MakeError(Code::kMultipleOfMustBePositive, path.Str(), json::value(factor),
                                   "factor MultipleOf declared for " + path.Str() + " must be positive: " + GoFloatV(factor)));
      } else {
        double mult = factor < 1 ? 1 / factor * data : data / factor;
        if (!IsFloat64AJSONInteger(mult)) {
          res_multiple.Add(MakeError(Code::kMultipleOf, path.Str(), val, In(path.Str()) + " should be a multiple of " + GoFloatV(factor)));
        }
      }
    }
    if (s.minimum) {
      Bound(val, data, is_int, *s.minimum, s.exclusive_minimum, false, type_name, format, path, res_minimum);
    }
    if (s.maximum) {
      Bound(val, data, is_int, *s.maximum, s.exclusive_maximum, true, type_name, format, path, res_maximum);
    }
    res.Merge(std::move(res_multiple));
    res.Merge(std::move(res_minimum));
    res.Merge(std::move(res_maximum));
    res.match_count++;
    return res;
  }

  static void Bound(const json::value& val, double data, bool is_int, double limit, bool exclusive, bool is_max,
                    const std::string& type_name, const std::string& format, const Path& path, OpenApiResult& out) {
    std::string range = RangeError(json::value(limit), type_name, format, is_max ? "Maximum boundary" : "Minimum boundary", path);
    if (!range.empty()) out.Add(Plain(range));
    bool fails;
    std::string limit_text;
    if (range.empty() && is_int) {
      int64_t l = GoInt64(limit), v = val.get_int64();
      fails = is_max ? (exclusive ? v >= l : v > l) : (exclusive ? v <= l : v < l);
      limit_text = std::to_string(l);
    } else {
      fails = is_max ? (exclusive ? data >= limit : data > limit) : (exclusive ? data <= limit : data < limit);
      limit_text = GoFloatV(limit);
    }
    if (!fails) return;
    std::string relation = is_max ? (exclusive ? " should be less than " : " should be less than or equal to ")
                                   : (exclusive ? " should be greater than " : " should be greater than or equal to ");
    out.Add(MakeError(is_max ? Code::kMaximum : Code::kMinimum, path.Str(), val, In(path.Str()) + relation + limit_text));
  }

  OpenApiResult Slice(const Schema& s, const json::array& arr, const Path& path, int depth) {
    OpenApiResult result;
    if (s.items != nullptr) {
      for (size_t i = 0; i < arr.size(); ++i) {
        result.Merge(Validate(*s.items, arr[i], Path{&path, Path::Kind::kIndex, {}, i}, depth + 1));
      }
    }
    auto size = static_cast<int64_t>(arr.size());
    if (s.min_items && size < *s.min_items) {
      auto e = MakeError(Code::kMinItems, path.Str(), json::value(size),
                         In(path.Str()) + " should have at least " + std::to_string(*s.min_items) + " items");
      e.valid = *s.min_items;
      result.Add(std::move(e));
    }
    if (s.max_items && size > *s.max_items) {
      auto e = MakeError(Code::kMaxItems, path.Str(), json::value(size),
                         In(path.Str()) + " should have at most " + std::to_string(*s.max_items) + " items");
      e.valid = *s.max_items;
      result.Add(std::move(e));
    }
    if (s.unique_items) {
      bool dup = false;
      for (size_t i = 0; i < arr.size() && !dup; ++i) {
        for (size_t j = 0; j < i && !dup; ++j) dup = DeepEqual(arr[i], arr[j]);
      }
      if (dup) result.Add(MakeError(Code::kUniqueItems, path.Str(), std::nullopt, In(path.Str()) + " shouldn't contain duplicates"));
    }
    result.match_count++;
    return result;
  }

  // reflect.DeepEqual of decoded values: an int64 never equals a float64.
  static bool DeepEqual(const json::value& a, const json::value& b) {
    GoKind ka = KindOf(a), kb = KindOf(b);
    if (ka != kb) return false;
    switch (ka) {
      case GoKind::kFloat: return AsFloat(a) == AsFloat(b);
      case GoKind::kSlice: {
        const auto &x = a.get_array(), &y = b.get_array();
        if (x.size() != y.size()) return false;
        for (size_t i = 0; i < x.size(); ++i) {
          if (!DeepEqual(x[i], y[i])) return false;
        }
        return true;
      }
      case GoKind::kMap: {
        const auto &x = a.get_object(), &y = b.get_object();
        if (x.size() != y.size()) return false;
        for (const auto& kv : x) {
          const json::value* o = y.if_contains(kv.key());
          if (o == nullptr || !DeepEqual(kv.value(), *o)) return false;
        }
        return true;
      }
      default: return a == b;
    }
  }

  OpenApiResult Object(const Schema& s, const json::object& obj, const Path& path, int depth) {
    OpenApiResult res;
    auto n = static_cast<int64_t>(obj.size());
    if (s.min_properties && n < *s.min_properties) {
      auto e = MakeError(Code::kTooFewProperties, path.Str(), json::value(n),
                         In(path.Str()) + " should have at least " + std::to_string(*s.min_properties) + " properties");
      e.valid = *s.min_properties;
      res.Add(std::move(e));
    }
    if (s.max_properties && n > *s.max_properties) {
      auto e = MakeError(Code::kTooManyProperties, path.Str(), json::value(n),
                         In(path.Str()) + " should have at most " + std::to_string(*s.max_properties) + " properties");
      e.valid = *s.max_properties;
      res.Add(std::move(e));
    }
    if (s.additional_properties_kind == AdditionalPropertiesKind::kFalse) {
      for (const auto& kv : obj) {
        if (s.Property(kv.key()) != nullptr) continue;
        res.Add(MakeError(Code::kUnallowedProperty, path.Str(), json::value(kv.key()),
                          path.Str() + "." + std::string(kv.key()) + " in body is a forbidden property"));
      }
    } else if (s.additional_properties_kind == AdditionalPropertiesKind::kSchema) {
      for (const auto& kv : obj) {
        if (s.Property(kv.key()) != nullptr) continue;
        res.Merge(Validate(*s.additional_properties, kv.value(), Path{&path, Path::Kind::kKey, kv.key()}, depth + 1));
      }
    }
    for (const auto& [name, prop] : s.properties) {
      const json::value* v = obj.if_contains(name);
      if (v == nullptr) continue;
      res.Merge(Validate(*prop, *v, Path{&path, Path::Kind::kProperty, name}, depth + 1));
    }
    for (const auto& k : s.required) {
      if (!obj.contains(k)) res.Add(MakeError(Code::kRequired, path.Str() + "." + k, std::nullopt, In(path.Str() + "." + k) + " is required"));
    }
    return res;
  }

  OpenApiResult Junctors(const Schema& s, const json::value& data, const Path& path, int depth) {
    OpenApiResult main;
    if (!s.any_of.empty()) {
      std::optional<OpenApiResult> best, first_success;
      bool succeeded = false;
      for (const Schema* sub : s.any_of) {
        OpenApiResult r = Validate(*sub, data, path, depth + 1);
        if (r.ok()) {
          best.reset();
          succeeded = true;
          first_success = std::move(r);
          break;
        }
        if (!best || r.match_count > best->match_count) best = std::move(r);
      }
      if (!succeeded) main.Add(MakeError(Code::kComposite, "", std::nullopt, GoQuote(path.Str()) + " must validate at least one schema (anyOf)"));
      if (best) {
        main.Merge(std::move(*best));
      } else if (first_success) {
        main.Merge(std::move(*first_success));
      }
    }
    if (!s.one_of.empty()) {
      std::optional<OpenApiResult> best, first_success;
      int validated = 0;
      for (const Schema* sub : s.one_of) {
        OpenApiResult r = Validate(*sub, data, path, depth + 1);
        if (r.ok()) {
          ++validated;
          best.reset();
          if (!first_success) first_success = std::move(r);
          continue;
        }
        if (validated == 0 && (!best || r.match_count > best->match_count)) best = std::move(r);
      }
      if (validated != 1) {
        std::string extra = validated == 0 ? "Found none valid" : "Found " + std::to_string(validated) + " valid alternatives";
        main.Add(MakeError(Code::kComposite, "", std::nullopt,
                           GoQuote(path.Str()) + " must validate one and only one schema (oneOf). " + extra));
        if (best) main.Merge(std::move(*best));
      } else if (first_success) {
        main.Merge(std::move(*first_success));
      }
    }
    if (!s.all_of.empty()) {
      size_t validated = 0;
      for (const Schema* sub : s.all_of) {
        OpenApiResult r = Validate(*sub, data, path, depth + 1);
        if (r.ok()) ++validated;
        main.Merge(std::move(r));
      }
      if (validated != s.all_of.size()) {
        main.Add(MakeError(Code::kComposite, "", std::nullopt,
                           GoQuote(path.Str()) + " must validate all the schemas (allOf)" + (validated == 0 ? ". None validated" : "")));
      }
    }
    if (s.not_schema != nullptr && Validate(*s.not_schema, data, path, depth + 1).ok()) {
      main.Add(MakeError(Code::kComposite, "", std::nullopt, GoQuote(path.Str()) + " must not validate the schema (not)"));
    }
    main.match_count++;
    return main;
  }
};

}  // namespace

OpenApiResult ValidateOpenApi(const Schema& schema, const json::value& value, const std::string& path) {
  Validator v;
  Path root;
  root.root = &path;
  return v.Validate(schema, value, root, 0);
}

}  // namespace capstan::apimachinery
