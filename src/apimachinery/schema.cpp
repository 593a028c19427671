// Parsing of schema JSON into Schema nodes (the parser behind SchemaRegistry and ParseSchema).
#include "apimachinery/schema.h"

#include <re2/re2.h>

#include <cmath>

#include "apimachinery/go_regexp.h"
#include "apimachinery/schema_formats.h"
#include "apimachinery/schema_registry.h"
#include "util/strings.h"

namespace capstan::apimachinery {

namespace json = boost::json;

std::string_view ProtoTypeName(ProtoType t) {
  switch (t) {
    case ProtoType::kNone: return "";
    case ProtoType::kString: return "string";
    case ProtoType::kBytes: return "bytes";
    case ProtoType::kBool: return "bool";
    case ProtoType::kInt32: return "int32";
    case ProtoType::kInt64: return "int64";
    case ProtoType::kUint32: return "uint32";
    case ProtoType::kUint64: return "uint64";
    case ProtoType::kFloat: return "float";
    case ProtoType::kDouble: return "double";
    case ProtoType::kMessage: return "message";
    case ProtoType::kMap: return "map";
  }
  return "";
}

std::optional<ProtoType> ParseProtoType(std::string_view name) {
  static constexpr ProtoType kAll[] = {ProtoType::kString, ProtoType::kBytes,  ProtoType::kBool,
                                       ProtoType::kInt32,  ProtoType::kInt64,  ProtoType::kUint32,
                                       ProtoType::kUint64, ProtoType::kFloat,  ProtoType::kDouble,
                                       ProtoType::kMessage, ProtoType::kMap};
  for (ProtoType t : kAll) {
    if (ProtoTypeName(t) == name) return t;
  }
  return std::nullopt;
}

namespace {

constexpr int kMaxSchemaDepth = 256;

Status ParseError(const std::string& where, const std::string& msg) {
  return Status(400, "BadRequest", "invalid schema at " + (where.empty() ? std::string("<root>") : where) + ": " + msg);
}

std::string ChildPath(const std::string& where, std::string_view child) {
  return where.empty() ? std::string(child) : where + "." + std::string(child);
}

// A keyword's path, spelled out only when an error names it (parsing thousands of nodes at start-up
// must not build a string per keyword).
struct At {
  const std::string& where;
  std::string_view key;
  std::string Str() const { return ChildPath(where, key); }
};

Status ParseError(const At& at, const std::string& msg) { return ParseError(at.Str(), msg); }

StatusOr<std::string> AsString(const json::value& v, const At& where) {
  if (!v.is_string()) return ParseError(where, "must be a string");
  return std::string(v.get_string());
}

StatusOr<bool> AsBool(const json::value& v, const At& where) {
  if (!v.is_bool()) return ParseError(where, "must be a boolean");
  return v.get_bool();
}

StatusOr<double> AsNumber(const json::value& v, const At& where) {
  if (v.is_int64()) return static_cast<double>(v.get_int64());
  if (v.is_uint64()) return static_cast<double>(v.get_uint64());
  if (v.is_double()) return v.get_double();
  return ParseError(where, "must be a number");
}

StatusOr<int64_t> AsInt(const json::value& v, const At& where) {
  if (v.is_int64()) return v.get_int64();
  if (v.is_double()) {
    double d = v.get_double();
    if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 9.2e18) return static_cast<int64_t>(d);
  }
  return ParseError(where, "must be an integer");
}

StatusOr<std::vector<std::string>> AsStringList(const json::value& v, const At& where) {
  if (!v.is_array()) return ParseError(where, "must be an array of strings");
  std::vector<std::string> out;
  for (const auto& e : v.get_array()) {
    if (!e.is_string()) return ParseError(where, "must be an array of strings");
    out.emplace_back(e.get_string());
  }
  return out;
}

std::string ValidationFormat(const Schema& s) {
  if (s.format.empty()) return "";
  std::string_view t = s.validation_type.size() == 1 ? std::string_view(s.validation_type[0]) : "";
  if (t.empty() || t == "string") return LookupStringFormat(s.format) != StringFormat::kNone ? s.format : "";
  if (t == "integer") return s.format == "int32" || s.format == "int64" ? s.format : "";
  if (t == "number") return s.format == "float" || s.format == "double" ? s.format : "";
  return "";
}

// A kube v3 document attaches a default (or description) to a reference as {"allOf": [{"$ref"}]}.
const json::value* SingleRefAllOf(const json::object& o) {
  auto it = o.find("allOf");
  if (it == o.end() || !it->value().is_array() || it->value().get_array().size() != 1) return nullptr;
  const json::value& only = it->value().get_array()[0];
  if (!only.is_object() || only.get_object().size() != 1) return nullptr;
  auto ref = only.get_object().find("$ref");
  if (ref == only.get_object().end() || !ref->value().is_string()) return nullptr;
  for (const char* structural : {"type", "properties", "items", "additionalProperties", "$ref"}) {
    if (o.contains(structural)) return nullptr;
  }
  return &ref->value();
}

}  // namespace

class SchemaParser {
 public:
  explicit SchemaParser(SchemaRegistry& reg) : reg_(reg) {}

  StatusOr<const Schema*> Parse(const json::value& v, const std::string& where, int depth) {
    if (depth > kMaxSchemaDepth) return ParseError(where, "nested too deeply");
    if (!v.is_object()) return ParseError(where, "must be an object");
    const json::object& o = v.get_object();
    Schema& s = reg_.nodes_.emplace_back();
    const json::value* collapsed_ref = SingleRefAllOf(o);
    for (const auto& kv : o) {
      std::string_view key = kv.key();
      if (collapsed_ref != nullptr && key == "allOf") continue;
      RETURN_IF_ERROR(ParseKeyword(s, key, kv.value(), where, depth));
    }
    if (collapsed_ref != nullptr) s.ref = std::string(collapsed_ref->get_string());
    s.validation_type = s.int_or_string ? std::vector<std::string>{"integer", "string"} : s.type;
    s.validation_format = ValidationFormat(s);
    return &s;
  }

 private:
  Status ParseKeyword(Schema& s, std::string_view key, const json::value& v, const std::string& where, int depth) {
    const At at{where, key};
    if (key == "type") {
      if (v.is_string()) {
        s.type = {std::string(v.get_string())};
      } else {
        ASSIGN_OR_RETURN(s.type, AsStringList(v, at));
      }
    } else if (key == "format") {
      ASSIGN_OR_RETURN(s.format, AsString(v, at));
    } else if (key == "description") {
      ASSIGN_OR_RETURN(s.description, AsString(v, at));
    } else if (key == "title") {
      ASSIGN_OR_RETURN(s.title, AsString(v, at));
    } else if (key == "nullable") {
      ASSIGN_OR_RETURN(s.nullable, AsBool(v, at));
    } else if (key == "default") {
      if (!v.is_null()) s.default_value = v;
    } else if (key == "example") {
      s.example = v;
    } else if (key == "properties") {
      if (!v.is_object()) return ParseError(at, "must be an object");
      const std::string props = at.Str();
      for (const auto& p : v.get_object()) {
        ASSIGN_OR_RETURN(const Schema* child, Parse(p.value(), ChildPath(props, p.key()), depth + 1));
        std::string name(p.key());
        if (s.property_index.emplace(name, child).second) s.properties.emplace_back(std::move(name), child);
      }
    } else if (key == "items") {
      if (v.is_array()) {
        s.unsupported_keywords.emplace_back("items");
      } else {
        ASSIGN_OR_RETURN(s.items, Parse(v, at.Str(), depth + 1));
      }
    } else if (key == "additionalProperties") {
      if (v.is_bool()) {
        s.additional_properties_kind = v.get_bool() ? AdditionalPropertiesKind::kTrue : AdditionalPropertiesKind::kFalse;
      } else {
        ASSIGN_OR_RETURN(s.additional_properties, Parse(v, at.Str(), depth + 1));
        s.additional_properties_kind = AdditionalPropertiesKind::kSchema;
      }
    } else if (key == "maximum") {
      ASSIGN_OR_RETURN(s.maximum, AsNumber(v, at));
    } else if (key == "minimum") {
      ASSIGN_OR_RETURN(s.minimum, AsNumber(v, at));
    } else if (key == "exclusiveMaximum") {
      ASSIGN_OR_RETURN(s.exclusive_maximum, AsBool(v, at));
    } else if (key == "exclusiveMinimum") {
      ASSIGN_OR_RETURN(s.exclusive_minimum, AsBool(v, at));
    } else if (key == "maxLength") {
      ASSIGN_OR_RETURN(s.max_length, AsInt(v, at));
    } else if (key == "minLength") {
      ASSIGN_OR_RETURN(s.min_length, AsInt(v, at));
    } else if (key == "maxItems") {
      ASSIGN_OR_RETURN(s.max_items, AsInt(v, at));
    } else if (key == "minItems") {
      ASSIGN_OR_RETURN(s.min_items, AsInt(v, at));
    } else if (key == "maxProperties") {
      ASSIGN_OR_RETURN(s.max_properties, AsInt(v, at));
    } else if (key == "minProperties") {
      ASSIGN_OR_RETURN(s.min_properties, AsInt(v, at));
    } else if (key == "pattern") {
      ASSIGN_OR_RETURN(s.pattern, AsString(v, at));
      CompilePattern(s);
    } else if (key == "uniqueItems") {
      ASSIGN_OR_RETURN(s.unique_items, AsBool(v, at));
    } else if (key == "multipleOf") {
      ASSIGN_OR_RETURN(s.multiple_of, AsNumber(v, at));
    } else if (key == "enum") {
      if (!v.is_array()) return ParseError(at, "must be an array");
      s.has_enum = true;
      s.enum_values.assign(v.get_array().begin(), v.get_array().end());
    } else if (key == "required") {
      ASSIGN_OR_RETURN(s.required, AsStringList(v, at));
    } else if (key == "allOf" || key == "anyOf" || key == "oneOf") {
      if (!v.is_array()) return ParseError(at, "must be an array");
      auto& list = key == "allOf" ? s.all_of : key == "anyOf" ? s.any_of : s.one_of;
      size_t i = 0;
      for (const auto& e : v.get_array()) {
        ASSIGN_OR_RETURN(const Schema* child, Parse(e, at.Str() + "[" + std::to_string(i++) + "]", depth + 1));
        list.push_back(child);
      }
    } else if (key == "not") {
      ASSIGN_OR_RETURN(s.not_schema, Parse(v, at.Str(), depth + 1));
    } else if (key == "$ref") {
      ASSIGN_OR_RETURN(s.ref, AsString(v, at));
    } else if (key == "x-kubernetes-preserve-unknown-fields") {
      ASSIGN_OR_RETURN(bool b, AsBool(v, at));
      s.preserve_unknown_fields = b;
    } else if (key == "x-kubernetes-int-or-string") {
      ASSIGN_OR_RETURN(s.int_or_string, AsBool(v, at));
    } else if (key == "x-kubernetes-embedded-resource") {
      ASSIGN_OR_RETURN(s.embedded_resource, AsBool(v, at));
    } else if (key == "x-kubernetes-list-type") {
      ASSIGN_OR_RETURN(std::string t, AsString(v, at));
      s.list_type = t == "atomic" ? ListType::kAtomic : t == "set" ? ListType::kSet : t == "map" ? ListType::kMap : ListType::kOther;
      s.list_type_name = std::move(t);
    } else if (key == "x-kubernetes-list-map-keys") {
      ASSIGN_OR_RETURN(s.list_map_keys, AsStringList(v, at));
    } else if (key == "x-kubernetes-map-type") {
      ASSIGN_OR_RETURN(std::string t, AsString(v, at));
      s.map_type = t == "atomic" ? MapType::kAtomic : t == "granular" ? MapType::kGranular : MapType::kOther;
      s.map_type_name = std::move(t);
    } else if (key == "x-kubernetes-patch-merge-key") {
      ASSIGN_OR_RETURN(s.patch_merge_key, AsString(v, at));
    } else if (key == "x-kubernetes-patch-strategy") {
      ASSIGN_OR_RETURN(std::string t, AsString(v, at));
      if (!t.empty()) s.patch_strategies = Split(t, ',');
    } else if (key == "x-kubernetes-validations") {
      s.validations = v;
    } else if (key == "x-proto") {
      ASSIGN_OR_RETURN(s.proto, ParseProto(v, at));
    } else if (key == "id" || key == "$schema" || key == "patternProperties" || key == "dependencies" ||
               key == "additionalItems" || key == "definitions") {
      s.unsupported_keywords.emplace_back(key);
    } else if (StartsWith(key, "x-")) {
      s.extensions.emplace(key, v);
    }
    // Other keywords (externalDocs, readOnly, ...) carry nothing the algorithms use and are ignored;
    // other x-* keys are kept as written in `extensions`.
    return Status::Ok();
  }

  static StatusOr<ProtoField> ParseProto(const json::value& v, const At& x) {
    const std::string at = x.Str();  // x-proto objects are small; their keys name sub-paths
    if (!v.is_object()) return ParseError(at, "must be an object");
    ProtoField f;
    for (const auto& kv : v.get_object()) {
      std::string_view k = kv.key();
      const At kat{at, k};
      if (k == "tag") {
        ASSIGN_OR_RETURN(int64_t tag, AsInt(kv.value(), kat));
        if (tag < 1 || tag > 536870911) return ParseError(kat, "must be a protobuf field number");
        f.tag = static_cast<int32_t>(tag);
      } else if (k == "ptr") {
        ASSIGN_OR_RETURN(f.ptr, AsBool(kv.value(), kat));
      } else if (k == "omitempty") {
        ASSIGN_OR_RETURN(f.omitempty, AsBool(kv.value(), kat));
      } else if (k == "in") {
        if (!kv.value().is_array()) return ParseError(kat, "must be an array of field numbers");
        for (const auto& e : kv.value().get_array()) {
          ASSIGN_OR_RETURN(int64_t n, AsInt(e, kat));
          if (n < 1 || n > 536870911) return ParseError(kat, "must be an array of field numbers");
          f.in.push_back(static_cast<int32_t>(n));
        }
      } else if (k == "type" || k == "key" || k == "value") {
        ASSIGN_OR_RETURN(std::string name, AsString(kv.value(), kat));
        auto t = ParseProtoType(name);
        if (!t) return ParseError(kat, "unknown proto type " + GoQuote(name));
        (k == "type" ? f.type : k == "key" ? f.key : f.value) = *t;
      }
    }
    if (f.tag == 0 || f.type == ProtoType::kNone) return ParseError(at, "needs a tag and a type");
    return f;
  }

  static void CompilePattern(Schema& s) {
    RE2::Options opts;
    opts.set_log_errors(false);
    auto re = std::make_shared<RE2>(s.pattern, opts);
    if (re->ok()) {
      s.pattern_re = std::move(re);
    } else {
      s.pattern_error = GoRegexpCompileError(*re);
    }
  }

  SchemaRegistry& reg_;
};

// --- SchemaRegistry (declared in schema_registry.h; kept beside its parser).

StatusOr<const Schema*> SchemaRegistry::ParseAnonymous(const json::value& schema_json) {
  if (resolved_) return Status(500, "InternalError", "schema registry is already resolved");
  SchemaParser p(*this);
  return p.Parse(schema_json, "", 0);
}

Status SchemaRegistry::Add(const std::string& name, const json::value& schema_json) {
  if (resolved_) return Status(500, "InternalError", "schema registry is already resolved");
  if (definitions_.count(name)) return Status(400, "BadRequest", "schema definition " + GoQuote(name) + " is defined twice");
  SchemaParser p(*this);
  ASSIGN_OR_RETURN(const Schema* root, p.Parse(schema_json, name, 0));
  definitions_.emplace(name, root);
  return Status::Ok();
}

}  // namespace capstan::apimachinery
