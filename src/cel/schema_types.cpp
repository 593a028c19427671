#include "cel/schema_types.h"

#include <algorithm>
#include <set>

#include "apimachinery/time_util.h"
#include "cel/time_values.h"
#include "util/duration.h"
#include "util/strings.h"

namespace capstan::cel {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

const std::set<std::string, std::less<>> kReservedSymbols = {
    "true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if",
    "import", "let", "loop", "package", "namespace", "return", "var", "void", "while"};

bool IsIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

std::string_view TypeOf(const am::Schema& d) { return d.SingleType(); }

TypePtr StringField() { return Primitive(TypeKind::kString); }

// apiVersion, kind and metadata (name, generateName): what rules see at a resource root.
void AddTypeAndObjectMeta(Type& obj) {
  if (!obj.Field("apiVersion")) obj.fields.emplace_back("apiVersion", StringField());
  if (!obj.Field("kind")) obj.fields.emplace_back("kind", StringField());
  auto meta = std::make_shared<Type>();
  meta->kind = TypeKind::kObject;
  meta->name = "object";
  meta->fields = {{"name", StringField()}, {"generateName", StringField()}};
  for (auto& f : obj.fields) {
    if (f.first == "metadata") {
      f.second = meta;
      return;
    }
  }
  obj.fields.emplace_back("metadata", meta);
}

}  // namespace

std::optional<std::string> EscapeFieldName(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return std::nullopt;
  if (kReservedSymbols.count(name)) return "__" + std::string(name) + "__";
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (c == '_' && i + 1 < name.size() && name[i + 1] == '_') {
      out += "__underscores__";
      ++i;
    } else if (c == '.') {
      out += "__dot__";
    } else if (c == '-') {
      out += "__dash__";
    } else if (c == '/') {
      out += "__slash__";
    } else if (IsIdentChar(c)) {
      out.push_back(c);
    } else {
      return std::nullopt;
    }
  }
  return out;
}

namespace {

// kube's estimates (apiserver/pkg/cel/common/schemas.go) for what fits in one request.
constexpr int64_t kMaxRequestSizeBytes = 3 * 1024 * 1024;
int64_t NonNegative(int64_t v) { return v < 0 ? 0 : v; }
int64_t MaxItemsFromMinSize(int64_t min) { return (kMaxRequestSizeBytes - 2) / (min + 1); }
int64_t MaxPropertiesFromMinSize(int64_t min) { return (kMaxRequestSizeBytes - 2) / (min + 6); }

TypePtr Sized(TypePtr base, std::optional<int64_t> max, int64_t min) {
  auto t = std::make_shared<Type>(*base);
  t->max_size = max;
  t->min_size = min;
  return t;
}

}  // namespace

TypePtr SchemaType(const am::Schema* s, bool resource_root) {
  if (!s) return nullptr;
  const am::Schema& d = s->Deref();
  if (s->int_or_string || d.int_or_string) return Sized(DynType(), kMaxRequestSizeBytes - 2, 1);
  std::string_view type = TypeOf(d);
  if (resource_root && type.empty()) type = "object";
  if (type == "array") {
    if (!d.items) return nullptr;
    TypePtr elem = SchemaType(d.items, d.items->EmbeddedResource());
    if (!elem) return nullptr;
    int64_t max = d.max_items ? NonNegative(*d.max_items) : MaxItemsFromMinSize(elem->min_size);
    return Sized(ListOf(elem), max, 2);
  }
  if (type == "object") {
    if (d.additional_properties && !resource_root) {
      TypePtr v = SchemaType(d.additional_properties, d.additional_properties->EmbeddedResource());
      if (!v) return nullptr;
      int64_t max = d.max_properties ? NonNegative(*d.max_properties) : MaxPropertiesFromMinSize(v->min_size);
      // kube declares the keys as a plain string type without a size, which its estimator reads as 0.
      return Sized(MapOf(Sized(StringField(), 0, 2), v), max, 2);
    }
    auto t = std::make_shared<Type>();
    t->kind = TypeKind::kObject;
    t->name = "object";
    t->min_size = 2;
    for (const auto& [name, prop] : d.properties) {
      TypePtr ft = SchemaType(prop, prop->EmbeddedResource());
      if (!ft) continue;
      bool required = std::find(d.required.begin(), d.required.end(), name) != d.required.end();
      if (required && !prop->Default()) t->min_size += static_cast<int64_t>(name.size()) + ft->min_size + 4;
      if (auto esc = EscapeFieldName(name)) t->fields.emplace_back(*esc, std::move(ft));
    }
    if (resource_root) AddTypeAndObjectMeta(*t);
    return t;
  }
  if (type == "string") {
    if (d.format == "byte") {
      return Sized(Primitive(TypeKind::kBytes), d.max_length ? NonNegative(*d.max_length) : kMaxRequestSizeBytes - 2, 2);
    }
    if (d.format == "duration") return Sized(Primitive(TypeKind::kDuration), 32, 3);
    if (d.format == "date") return Sized(Primitive(TypeKind::kTimestamp), 12, 12);
    if (d.format == "date-time") return Sized(Primitive(TypeKind::kTimestamp), 32, 21);
    int64_t max = kMaxRequestSizeBytes - 2;
    if (d.max_length) {
      max = NonNegative(*d.max_length) * 4;  // maxLength counts code points; sizes are bytes
    } else if (d.has_enum) {
      max = 0;
      for (const auto& e : d.enum_values) {
        if (e.is_string()) max = std::max<int64_t>(max, static_cast<int64_t>(e.get_string().size()));
      }
    }
    return Sized(StringField(), max, 2);
  }
  if (type == "boolean") return Sized(Primitive(TypeKind::kBool), std::nullopt, 4);
  if (type == "number") return Sized(Primitive(TypeKind::kDouble), std::nullopt, 1);
  if (type == "integer") return Sized(Primitive(TypeKind::kInt), std::nullopt, 1);
  return nullptr;
}

int64_t MaxCardinality(const TypePtr& t) { return kMaxRequestSizeBytes / ((t ? t->min_size : 1) + 1); }

namespace {

Value Invalid(std::string what) { return Value::Error("invalid data, " + std::move(what)); }

std::string GoTypeName(const json::value& v) {
  switch (v.kind()) {
    case json::kind::string: return "string";
    case json::kind::int64: case json::kind::uint64: return "int64";
    case json::kind::double_: return "float64";
    case json::kind::bool_: return "bool";
    case json::kind::array: return "[]interface {}";
    case json::kind::object: return "map[string]interface {}";
    default: return "<nil>";
  }
}

Value PlainValue(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null: return Value::Null();
    case json::kind::bool_: return Value::Bool(v.get_bool());
    case json::kind::int64: return Value::Int(v.get_int64());
    case json::kind::uint64: return Value::Uint(v.get_uint64());
    case json::kind::double_: return Value::Double(v.get_double());
    case json::kind::string: return Value::String(std::string(v.get_string()));
    case json::kind::array: {
      std::vector<Value> items;
      for (const auto& x : v.get_array()) items.push_back(PlainValue(x));
      return Value::List(std::move(items));
    }
    case json::kind::object: {
      auto m = std::make_shared<MapValue>();
      for (const auto& [k, x] : v.get_object()) m->entries.emplace_back(Value::String(std::string(k)), PlainValue(x));
      return Value::Map(std::move(m));
    }
  }
  return Value::Null();
}

// "2006-01-02" as a timestamp at midnight UTC.
std::optional<Value> ParseFullDate(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return std::nullopt;
  for (size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u}) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
  }
  int y = std::stoi(std::string(s.substr(0, 4)));
  int m = std::stoi(std::string(s.substr(5, 2)));
  int d = std::stoi(std::string(s.substr(8, 2)));
  if (m < 1 || m > 12 || d < 1 || d > 31) return std::nullopt;
  return Value::Timestamp(DaysFromCivil(y, m, d) * 86400, 0);
}

Value MetadataValue(const json::value& v) {
  auto m = std::make_shared<MapValue>();
  m->object_type = "object";
  if (v.is_object()) {
    for (const char* k : {"name", "generateName"}) {
      if (const auto* x = v.get_object().if_contains(k); x && x->is_string()) {
        m->entries.emplace_back(Value::String(k), Value::String(std::string(x->get_string())));
      }
    }
  }
  return Value::Map(std::move(m));
}

}  // namespace

Value JsonToValue(const json::value& v, const am::Schema* s, bool resource_root) {
  if (!s) return PlainValue(v);
  const am::Schema& d = s->Deref();
  if (v.is_null()) {
    if (s->Nullable()) return Value::Null();
    return Invalid("got null for schema with nullable=false");
  }
  if (s->int_or_string || d.int_or_string) {
    if (v.is_string()) return Value::String(std::string(v.get_string()));
    if (v.is_int64()) return Value::Int(v.get_int64());
    if (v.is_uint64() && v.get_uint64() <= static_cast<uint64_t>(INT64_MAX)) return Value::Int(static_cast<int64_t>(v.get_uint64()));
    return Invalid("expected XIntOrString value to be either a string or integer");
  }
  std::string_view type = TypeOf(d);
  if (resource_root && type.empty()) type = "object";
  if (type == "object") {
    if (!v.is_object()) return Invalid("expected a map for the provided schema with type=object");
    const json::object& o = v.get_object();
    auto m = std::make_shared<MapValue>();
    if (resource_root || !d.properties.empty()) {
      m->object_type = "object";
      for (const auto& [k, x] : o) {
        if (resource_root && (k == "apiVersion" || k == "kind") && !d.Property(k)) {
          m->entries.emplace_back(Value::String(std::string(k)), x.is_string() ? Value::String(std::string(x.get_string())) : PlainValue(x));
          continue;
        }
        if (resource_root && k == "metadata") {
          m->entries.emplace_back(Value::String("metadata"), MetadataValue(x));
          continue;
        }
        const am::Schema* p = d.Property(k);
        if (!p) continue;
        auto esc = EscapeFieldName(k);
        if (!esc) continue;
        m->entries.emplace_back(Value::String(*esc), JsonToValue(x, p, p->EmbeddedResource()));
      }
    } else if (d.additional_properties) {
      for (const auto& [k, x] : o) {
        m->entries.emplace_back(Value::String(std::string(k)),
                                JsonToValue(x, d.additional_properties, d.additional_properties->EmbeddedResource()));
      }
    } else {
      for (const auto& [k, x] : o) m->entries.emplace_back(Value::String(std::string(k)), PlainValue(x));
    }
    return Value::Map(std::move(m));
  }
  if (type == "array") {
    if (!v.is_array()) return Invalid("expected an array for the provided schema with type=array");
    if (!d.items) return Value::Error("invalid array type, expected Items with a non-empty Schema");
    auto l = std::make_shared<ListValue>();
    for (const auto& x : v.get_array()) l->items.push_back(JsonToValue(x, d.items, d.items->EmbeddedResource()));
    if (d.list_type == am::ListType::kSet) {
      l->flavor = ListFlavor::kSet;
    } else if (d.list_type == am::ListType::kMap) {
      l->flavor = ListFlavor::kMap;
      for (const auto& k : d.list_map_keys) l->map_keys.push_back(EscapeFieldName(k).value_or(k));
    }
    return Value::List(std::move(l));
  }
  if (type == "string") {
    if (!v.is_string()) return Invalid("expected string, got " + GoTypeName(v));
    std::string str(v.get_string());
    if (d.format == "duration") {
      auto dur = ParseGoDuration(str);
      if (!dur) return Value::Error("Invalid duration " + str + ": time: invalid duration \"" + str + "\"");
      return Value::Duration(dur->count());
    }
    if (d.format == "date") {
      auto t = ParseFullDate(str);
      if (!t) return Value::Error("Invalid date formatted string " + str);
      return *t;
    }
    if (d.format == "date-time") {
      auto t = ParseTimestamp(str);
      if (!t) return Value::Error("Invalid date-time formatted string " + str);
      return *t;
    }
    if (d.format == "byte") {
      std::string out;
      if (!Base64Decode(str, out)) return Value::Error("Invalid byte formatted string " + str);
      return Value::Bytes(std::move(out));
    }
    return Value::String(std::move(str));
  }
  if (type == "number") {
    if (v.is_double()) return Value::Double(v.get_double());
    if (v.is_int64()) return Value::Double(static_cast<double>(v.get_int64()));
    if (v.is_uint64()) return Value::Double(static_cast<double>(v.get_uint64()));
    return Invalid("expected float, got " + GoTypeName(v));
  }
  if (type == "integer") {
    if (v.is_int64()) return Value::Int(v.get_int64());
    if (v.is_uint64() && v.get_uint64() <= static_cast<uint64_t>(INT64_MAX)) return Value::Int(static_cast<int64_t>(v.get_uint64()));
    return Invalid("expected int, got " + GoTypeName(v));
  }
  if (type == "boolean") {
    if (!v.is_bool()) return Invalid("expected bool, got " + GoTypeName(v));
    return Value::Bool(v.get_bool());
  }
  return PlainValue(v);
}

}  // namespace capstan::cel
