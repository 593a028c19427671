#include "api/schemas/json_check.h"

#include <cctype>
#include <cmath>
#include <regex>

namespace capstan::api::testing {

namespace json = boost::json;

namespace {

bool IsBase64(std::string_view s) {
  if (s.size() % 4 != 0) return false;
  size_t pad = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '=') {
      ++pad;
      if (i + 2 < s.size()) return false;
      continue;
    }
    if (pad > 0) return false;
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/')) return false;
  }
  return pad <= 2;
}

bool IsDateTime(std::string_view s) {
  static const std::regex re(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2}))");
  return std::regex_match(s.begin(), s.end(), re);
}

bool IsInteger(const json::value& v) {
  if (v.is_int64() || v.is_uint64()) return true;
  return v.is_double() && std::floor(v.get_double()) == v.get_double();
}

const char* KindName(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null: return "null";
    case json::kind::bool_: return "boolean";
    case json::kind::int64:
    case json::kind::uint64: return "integer";
    case json::kind::double_: return "number";
    case json::kind::string: return "string";
    case json::kind::array: return "array";
    case json::kind::object: return "object";
  }
  return "?";
}

bool IsTrue(const json::object& s, std::string_view key) {
  const json::value* v = s.if_contains(key);
  return v != nullptr && v->is_bool() && v->get_bool();
}

class Walker {
 public:
  Walker(const SchemaIndex& index, std::vector<std::string>* errors) : index_(index), errors_(errors) {}

  void Walk(const json::value& v, const json::object& raw_schema, const std::string& path) {
    const json::object* schema = index_.Resolve(raw_schema);
    if (schema == nullptr) return Error(path, "unresolved $ref");
    if (v.is_null()) return;
    if (IsTrue(*schema, "x-kubernetes-int-or-string")) {
      if (!v.is_string() && !IsInteger(v)) Error(path, std::string("int-or-string holds a ") + KindName(v));
      return;
    }
    bool preserve = IsTrue(*schema, "x-kubernetes-preserve-unknown-fields");
    const json::value* type = schema->if_contains("type");
    if (type == nullptr) {
      if (!preserve) Error(path, "schema has no type");
      return;
    }
    std::string_view t = type->get_string();
    if (t == "object") return WalkObject(v, *schema, preserve, path);
    if (t == "array") {
      if (!v.is_array()) return Mismatch(path, t, v);
      const json::value* items = schema->if_contains("items");
      if (items == nullptr) return Error(path, "array schema without items");
      size_t i = 0;
      for (const json::value& e : v.get_array()) Walk(e, items->get_object(), path + "[" + std::to_string(i++) + "]");
      return;
    }
    if (t == "string") {
      if (!v.is_string()) return Mismatch(path, t, v);
      const json::value* format = schema->if_contains("format");
      std::string_view f = format ? std::string_view(format->get_string()) : std::string_view();
      if (f == "byte" && !IsBase64(v.get_string())) Error(path, "not base64");
      if (f == "date-time" && !IsDateTime(v.get_string())) Error(path, "not an RFC 3339 date-time");
      return;
    }
    if (t == "integer") {
      if (!IsInteger(v)) Mismatch(path, t, v);
      return;
    }
    if (t == "number") {
      if (!v.is_number()) Mismatch(path, t, v);
      return;
    }
    if (t == "boolean") {
      if (!v.is_bool()) Mismatch(path, t, v);
      return;
    }
    Error(path, "unknown schema type " + std::string(t));
  }

 private:
  void WalkObject(const json::value& v, const json::object& schema, bool preserve, const std::string& path) {
    if (!v.is_object()) return Mismatch(path, "object", v);
    const json::value* props = schema.if_contains("properties");
    const json::value* additional = schema.if_contains("additionalProperties");
    for (const auto& [key, child] : v.get_object()) {
      std::string child_path = path + "." + std::string(key);
      if (props != nullptr) {
        if (const json::value* p = props->get_object().if_contains(key)) {
          Walk(child, p->get_object(), child_path);
          continue;
        }
      }
      if (additional != nullptr && additional->is_object()) {
        Walk(child, additional->get_object(), child_path);
        continue;
      }
      if (!preserve) Error(child_path, "unknown field (a structural schema would prune it)");
    }
  }

  void Mismatch(const std::string& path, std::string_view want, const json::value& v) {
    Error(path, "schema type " + std::string(want) + ", value is " + KindName(v));
  }
  void Error(const std::string& path, const std::string& message) {
    errors_->push_back((path.empty() ? std::string(".") : path) + ": " + message);
  }

  const SchemaIndex& index_;
  std::vector<std::string>* errors_;
};

}  // namespace

std::vector<std::string> CheckJsonAgainstSchema(const SchemaIndex& index, const std::string& definition,
                                                const json::value& value) {
  std::vector<std::string> errors;
  const json::object* schema = index.Find(definition);
  if (schema == nullptr) return {"no definition " + definition};
  Walker(index, &errors).Walk(value, *schema, "");
  return errors;
}

}  // namespace capstan::api::testing
