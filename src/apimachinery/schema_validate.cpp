#include "apimachinery/schema_validate.h"

#include <algorithm>
#include <charconv>
#include <string>
#include <unordered_map>

#include "apimachinery/schema_go_format.h"
#include "apimachinery/schema_validator.h"

namespace capstan::apimachinery {

namespace json = boost::json;

namespace {

// Go marshals map keys in sorted order; field errors render complex values that way.
json::value SortedCopy(const json::value& v) {
  if (v.is_array()) {
    json::array out;
    for (const auto& e : v.get_array()) out.push_back(SortedCopy(e));
    return out;
  }
  if (!v.is_object()) return v;
  std::vector<const json::key_value_pair*> kvs;
  for (const auto& kv : v.get_object()) kvs.push_back(&kv);
  std::sort(kvs.begin(), kvs.end(), [](auto* a, auto* b) { return a->key() < b->key(); });
  json::object out;
  for (const auto* kv : kvs) out.emplace(kv->key(), SortedCopy(kv->value()));
  return out;
}

// Custom resources are validated as map[string]interface{}: their values render as Go's %#v.
FieldError Unstructured(FieldError e) {
  e.unstructured_value = true;
  return e;
}

FieldError AtNil(FieldError e, bool nil) {
  if (nil) e.field = "<nil>";
  return e;
}

FieldError ToFieldError(const OpenApiError& err, const FieldPath& root) {
  using Code = OpenApiError::Code;
  bool nil = root.str().empty();
  if (err.code == Code::kPlain || err.code == Code::kComposite) return AtNil(InvalidError(root, "", err.message), nil);
  FieldPath p = root;
  if (!err.name.empty() && err.name != ".") {
    p = root.Child(err.name[0] == '.' ? std::string_view(err.name).substr(1) : std::string_view(err.name));
    nil = false;
  }
  json::value value = err.value ? SortedCopy(*err.value) : json::value("");
  switch (err.code) {
    case Code::kRequired: return AtNil(RequiredError(p, ""), nil);
    case Code::kEnum: {
      std::vector<std::string> values;
      for (const auto& v : err.enum_values) values.push_back(v.is_string() ? std::string(v.get_string()) : GoJsonMarshal(v));
      return AtNil(NotSupportedError(p, err.value ? value : json::value(nullptr), values), nil);
    }
    case Code::kTooLong: return AtNil(TooLongError(p, err.valid ? static_cast<int>(*err.valid) : -1), nil);
    case Code::kMaxItems:
    case Code::kTooManyProperties: {
      int actual = err.value && err.value->is_int64() ? static_cast<int>(err.value->get_int64()) : -1;
      return AtNil(TooManyError(p, actual, err.valid ? static_cast<int>(*err.valid) : -1), nil);
    }
    case Code::kInvalidType: return AtNil(TypeInvalidError(p, value, err.message), nil);
    default: return AtNil(InvalidError(p, value, err.message), nil);
  }
}

// --- list-type set and map (kube's listtype package)

// A key under which Go's map[interface{}] (scalars) or the JSON text (compounds) compares values.
std::string SetKey(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null: return "n";
    case json::kind::bool_: return v.get_bool() ? "b1" : "b0";
    case json::kind::int64: return "i" + std::to_string(v.get_int64());
    case json::kind::uint64:
    case json::kind::double_: {
      double f = v.is_double() ? v.get_double() : static_cast<double>(v.get_uint64());
      if (f == 0) return "f0";
      char buf[64];
      auto r = std::to_chars(buf, buf + sizeof buf, f);
      return "f" + std::string(buf, r.ptr);
    }
    case json::kind::string: return "s" + std::string(v.get_string());
    default: return "c" + GoJsonMarshal(v);
  }
}

// Indexes of the second appearance of each repeated key.
std::vector<size_t> NonUnique(const std::vector<std::string>& keys) {
  std::unordered_map<std::string, int> seen;
  std::vector<size_t> out;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (++seen[keys[i]] == 2) out.push_back(i);
  }
  return out;
}

// A path segment on the recursion stack; the field path text is built only for an error.
struct Seg {
  enum class Kind { kRoot, kChild, kKey, kIndex };
  const Seg* parent = nullptr;
  Kind kind = Kind::kRoot;
  std::string_view name;
  size_t index = 0;
  const FieldPath* root = nullptr;

  FieldPath Path() const {
    switch (kind) {
      case Kind::kRoot: return *root;
      case Kind::kChild: return parent->Path().Child(name);
      case Kind::kKey: return parent->Path().Key(name);
      case Kind::kIndex: return parent->Path().Index(index);
    }
    return FieldPath();
  }
};

void ListSetsAndMaps(const Seg& path, const Schema* node, const json::value& v, ErrorList& errs);

void ListMap(const Seg& path, const Schema& s, const json::array& arr, ErrorList& errs) {
  for (size_t i = 0; i < arr.size(); ++i) {
    if (!arr[i].is_null() && !arr[i].is_object()) {
      errs.push_back(Unstructured(
          InvalidError(path.Path().Index(i), SortedCopy(arr[i]), "must be an object for an array of list-type map")));
      return;
    }
  }
  if (arr.size() <= 1) return;
  std::vector<std::string> names = s.list_map_keys;
  std::sort(names.begin(), names.end());
  std::vector<json::value> key_values;
  std::vector<std::string> keys;
  for (const auto& x : arr) {
    json::object key;
    if (x.is_object()) {
      for (const auto& k : names) {
        if (const json::value* kv = x.get_object().if_contains(k)) key.emplace(k, *kv);
      }
    }
    if (s.list_map_keys.size() == 1) {
      keys.push_back(key.empty() ? std::string("u") : SetKey(key.begin()->value()));
    } else {
      keys.push_back(SetKey(key));
    }
    key_values.emplace_back(std::move(key));
  }
  for (size_t i : NonUnique(keys)) {
    errs.push_back(Unstructured(DuplicateError(path.Path().Index(i), SortedCopy(key_values[i]))));
  }
}

void ListArray(const Seg& path, const Schema& s, const json::array& arr, ErrorList& errs) {
  if (s.list_type == ListType::kSet && arr.size() > 1) {
    std::vector<std::string> keys;
    for (const auto& x : arr) keys.push_back(SetKey(x));
    for (size_t i : NonUnique(keys)) errs.push_back(Unstructured(DuplicateError(path.Path().Index(i), SortedCopy(arr[i]))));
  } else if (s.list_type == ListType::kMap) {
    ListMap(path, s, arr, errs);
  }
  if (s.items != nullptr) {
    for (size_t i = 0; i < arr.size(); ++i) {
      Seg seg{&path, Seg::Kind::kIndex, {}, i};
      ListSetsAndMaps(seg, s.items, arr[i], errs);
    }
  }
}

void ListObject(const Seg& path, const Schema& s, const json::object& obj, ErrorList& errs) {
  if (s.additional_properties_kind == AdditionalPropertiesKind::kSchema) {
    for (const auto& kv : obj) {
      Seg seg{&path, Seg::Kind::kKey, kv.key()};
      ListSetsAndMaps(seg, s.additional_properties, kv.value(), errs);
    }
  }
  if (!s.properties.empty()) {
    for (const auto& kv : obj) {
      if (const Schema* sub = s.Property(kv.key())) {
        Seg seg{&path, Seg::Kind::kChild, kv.key()};
        ListSetsAndMaps(seg, sub, kv.value(), errs);
      }
    }
  }
}

void ListSetsAndMaps(const Seg& path, const Schema* node, const json::value& v, ErrorList& errs) {
  if (node == nullptr) return;
  const Schema& s = node->Deref();
  if (v.is_array()) ListArray(path, s, v.get_array(), errs);
  if (v.is_object()) ListObject(path, s, v.get_object(), errs);
}

}  // namespace

ErrorList ValidateSchemaValues(const Schema& schema, const json::value& value, const FieldPath& root) {
  OpenApiResult result = ValidateOpenApi(schema, value, "");
  ErrorList out;
  for (const auto& e : result.errors) out.push_back(ToFieldError(e, root));
  return out;
}

ErrorList ValidateListSetsAndMaps(const Schema& schema, const json::value& value, const FieldPath& root) {
  ErrorList errs;
  Seg top;
  top.root = &root;
  if (value.is_object()) ListObject(top, schema.Deref(), value.get_object(), errs);
  return errs;
}

ErrorList ValidateBySchema(const Schema& schema, const json::value& value, const FieldPath& root) {
  ErrorList errs = ValidateSchemaValues(schema, value, root);
  ErrorList lists = ValidateListSetsAndMaps(schema, value, root);
  errs.insert(errs.end(), std::make_move_iterator(lists.begin()), std::make_move_iterator(lists.end()));
  return errs;
}

}  // namespace capstan::apimachinery
