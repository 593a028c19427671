#include "apimachinery/json_patch.h"

#include <optional>
#include <vector>

#include "apimachinery/errors.h"
#include "apimachinery/patch_common.h"
#include "apimachinery/schema_go_format.h"
#include "util/strings.h"

namespace capstan::apimachinery {

namespace json = boost::json;

namespace {

constexpr const char* kMissing = "missing value";
constexpr const char* kInvalidIndex = "invalid index referenced";
constexpr const char* kTestFailed = "test failed";

std::string Decode(std::string_view k) {
  std::string out;
  for (size_t i = 0; i < k.size(); ++i) {
    if (k[i] == '~' && i + 1 < k.size() && (k[i + 1] == '1' || k[i + 1] == '0')) {
      out.push_back(k[i + 1] == '1' ? '/' : '~');
      ++i;
    } else {
      out.push_back(k[i]);
    }
  }
  return out;
}

// Go's strconv.Atoi; on failure `err` holds Go's text.
bool Atoi(std::string_view s, int64_t& out, std::string& err) {
  size_t i = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
  bool neg = !s.empty() && s[0] == '-';
  if (i == s.size()) {
    err = "strconv.Atoi: parsing " + GoQuote(s) + ": invalid syntax";
    return false;
  }
  unsigned __int128 v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') {
      err = "strconv.Atoi: parsing " + GoQuote(s) + ": invalid syntax";
      return false;
    }
    if (v <= (static_cast<unsigned __int128>(1) << 64)) v = v * 10 + static_cast<unsigned>(s[i] - '0');
  }
  unsigned __int128 lim = static_cast<unsigned __int128>(1) << 63;
  if (neg ? v > lim : v >= lim) {
    err = "strconv.Atoi: parsing " + GoQuote(s) + ": value out of range";
    return false;
  }
  out = neg ? -static_cast<int64_t>(v - 1) - 1 : static_cast<int64_t>(v);
  return true;
}

std::string InvalidIndex(int64_t idx) { return "Unable to access invalid index: " + std::to_string(idx) + ": " + kInvalidIndex; }

// A value slot that is nil in evanphx's terms: absent or JSON null.
using Node = std::optional<json::value>;

struct Location {
  json::value* container = nullptr;  // an object or an array
  std::string key;
};

// Array index for get/set/remove (`len` elements); "" when valid, else the error text.
std::string ArrayIndex(const std::string& key, size_t len, int64_t& idx) {
  std::string err;
  if (!Atoi(key, idx, err)) return err;
  if (idx < 0) {
    if (idx < -static_cast<int64_t>(len)) return InvalidIndex(idx);
    idx += static_cast<int64_t>(len);
  }
  if (idx >= static_cast<int64_t>(len)) return InvalidIndex(idx);
  return "";
}

// evanphx's container.get: a nil node for a missing or null member; an error only for arrays.
std::string Get(json::value& c, const std::string& key, Node& out) {
  out.reset();
  if (c.is_object()) {
    if (json::value* v = c.get_object().if_contains(key); v != nullptr && !v->is_null()) out = *v;
    return "";
  }
  json::array& arr = c.get_array();
  int64_t idx;
  if (std::string err = ArrayIndex(key, arr.size(), idx); !err.empty()) return err;
  if (!arr[idx].is_null()) out = arr[idx];
  return "";
}

std::string Add(json::value& c, const std::string& key, Node val) {
  json::value v = val ? std::move(*val) : json::value(nullptr);
  if (c.is_object()) {
    c.get_object()[key] = std::move(v);
    return "";
  }
  json::array& arr = c.get_array();
  if (key == "-") {
    arr.push_back(std::move(v));
    return "";
  }
  int64_t idx;
  std::string err;
  if (!Atoi(key, idx, err)) return "value was not a proper array index: '" + key + "': " + err;
  auto sz = static_cast<int64_t>(arr.size()) + 1;
  if (idx >= sz) return InvalidIndex(idx);
  if (idx < 0) {
    if (idx < -sz) return InvalidIndex(idx);
    idx += sz;
  }
  arr.insert(arr.begin() + idx, std::move(v));
  return "";
}

std::string Set(json::value& c, const std::string& key, Node val) {
  json::value v = val ? std::move(*val) : json::value(nullptr);
  if (c.is_object()) {
    c.get_object()[key] = std::move(v);
    return "";
  }
  json::array& arr = c.get_array();
  int64_t idx;
  if (std::string err = ArrayIndex(key, arr.size(), idx); !err.empty()) return err;
  arr[idx] = std::move(v);
  return "";
}

std::string Remove(json::value& c, const std::string& key) {
  if (c.is_object()) {
    if (!c.get_object().contains(key)) return "Unable to remove nonexistent key: " + key + ": " + kMissing;
    c.get_object().erase(key);
    return "";
  }
  json::array& arr = c.get_array();
  int64_t idx;
  if (std::string err = ArrayIndex(key, arr.size(), idx); !err.empty()) return err;
  arr.erase(arr.begin() + idx);
  return "";
}

// evanphx's findObject: the container of the last path segment, through objects and arrays only.
std::optional<Location> FindObject(json::value& doc, std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t slash = path.find('/', start);
    parts.push_back(path.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  if (parts.size() < 2) return std::nullopt;
  json::value* cur = &doc;
  for (size_t i = 1; i + 1 < parts.size(); ++i) {
    std::string key = Decode(parts[i]);
    json::value* next = nullptr;
    if (cur->is_object()) {
      next = cur->get_object().if_contains(key);
    } else {
      int64_t idx;
      if (!ArrayIndex(key, cur->get_array().size(), idx).empty()) return std::nullopt;
      next = &cur->get_array()[idx];
    }
    if (next == nullptr || !(next->is_object() || next->is_array())) return std::nullopt;
    cur = next;
  }
  return Location{cur, Decode(parts.back())};
}

// An operation member decoded as a string: "" error when fine, else an error text.
std::string StringMember(const json::object& op, std::string_view name, std::string& out, const std::string& missing) {
  const json::value* v = op.if_contains(name);
  if (v == nullptr || v->is_null()) return missing;
  if (!v->is_string()) return "json: cannot unmarshal " + std::string(v->is_number() ? "number" : v->is_bool() ? "bool" : v->is_array() ? "array" : "object") + " into Go value of type string";
  out = std::string(v->get_string());
  return "";
}

Node ValueMember(const json::object& op) {
  const json::value* v = op.if_contains("value");
  if (v == nullptr || v->is_null()) return std::nullopt;
  return *v;
}

class Applier {
 public:
  Applier(json::value& doc, int64_t max_copy_bytes) : doc_(doc), max_copy_bytes_(max_copy_bytes) {}

  std::string Apply(const json::object& op) {
    std::string kind = "unknown";
    if (const json::value* k = op.if_contains("op"); k != nullptr && k->is_string()) kind = std::string(k->get_string());
    if (kind == "add") return AddOp(op);
    if (kind == "remove") return RemoveOp(op);
    if (kind == "replace") return ReplaceOp(op);
    if (kind == "move") return MoveOp(op);
    if (kind == "test") return TestOp(op);
    if (kind == "copy") return CopyOp(op);
    return "Unexpected kind: " + kind;
  }

 private:
  static std::string MissingPath() { return std::string("operation missing path field: ") + kMissing; }
  static std::string MissingFrom() { return std::string("operation, missing from field: ") + kMissing; }

  std::string AddOp(const json::object& op) {
    std::string path;
    if (!StringMember(op, "path", path, MissingPath()).empty()) return std::string("add operation failed to decode path: ") + kMissing;
    auto loc = FindObject(doc_, path);
    if (!loc) return "add operation does not apply: doc is missing path: \"" + path + "\": " + kMissing;
    if (std::string err = Add(*loc->container, loc->key, ValueMember(op)); !err.empty()) {
      return "error in add for path: '" + path + "': " + err;
    }
    return "";
  }

  std::string RemoveOp(const json::object& op) {
    std::string path;
    if (!StringMember(op, "path", path, MissingPath()).empty()) return std::string("remove operation failed to decode path: ") + kMissing;
    auto loc = FindObject(doc_, path);
    if (!loc) return "remove operation does not apply: doc is missing path: \"" + path + "\": " + kMissing;
    if (std::string err = Remove(*loc->container, loc->key); !err.empty()) return "error in remove for path: '" + path + "': " + err;
    return "";
  }

  std::string ReplaceOp(const json::object& op) {
    std::string path;
    if (std::string err = StringMember(op, "path", path, MissingPath()); !err.empty()) {
      return "replace operation failed to decode path: " + err;
    }
    if (path.empty()) {
      Node val = ValueMember(op);
      if (!val || !(val->is_object() || val->is_array())) return "replace operation value must be object or array: %!w(<nil>)";
      doc_ = std::move(*val);
      return "";
    }
    auto loc = FindObject(doc_, path);
    if (!loc) return "replace operation does not apply: doc is missing path: " + path + ": " + kMissing;
    Node unused;
    if (!Get(*loc->container, loc->key, unused).empty()) {
      return "replace operation does not apply: doc is missing key: " + path + ": " + kMissing;
    }
    if (std::string err = Set(*loc->container, loc->key, ValueMember(op)); !err.empty()) {
      return "error in remove for path: '" + path + "': " + err;
    }
    return "";
  }

  std::string MoveOp(const json::object& op) {
    std::string from, path;
    if (std::string err = StringMember(op, "from", from, MissingFrom()); !err.empty()) return "move operation failed to decode from: " + err;
    auto loc = FindObject(doc_, from);
    if (!loc) return "move operation does not apply: doc is missing from path: " + from + ": " + kMissing;
    Node val;
    if (std::string err = Get(*loc->container, loc->key, val); !err.empty()) return "error in move for path: '" + loc->key + "': " + err;
    if (std::string err = Remove(*loc->container, loc->key); !err.empty()) return "error in move for path: '" + loc->key + "': " + err;
    if (std::string err = StringMember(op, "path", path, MissingPath()); !err.empty()) return "move operation failed to decode path: " + err;
    loc = FindObject(doc_, path);
    if (!loc) return "move operation does not apply: doc is missing destination path: " + path + ": " + kMissing;
    if (std::string err = Add(*loc->container, loc->key, std::move(val)); !err.empty()) return "error in move for path: '" + path + "': " + err;
    return "";
  }

  std::string TestOp(const json::object& op) {
    std::string path;
    if (std::string err = StringMember(op, "path", path, MissingPath()); !err.empty()) return "test operation failed to decode path: " + err;
    const json::value* want = op.if_contains("value");
    std::string failed = "testing value " + path + " failed: " + kTestFailed;
    if (path.empty()) return want != nullptr && *want == doc_ ? "" : failed;
    auto loc = FindObject(doc_, path);
    if (!loc) return "test operation does not apply: is missing path: " + path + ": " + kMissing;
    Node val;
    if (std::string err = Get(*loc->container, loc->key, val); !err.empty()) return "error in test for path: '" + path + "': " + err;
    if (!val) return want == nullptr || want->is_null() ? "" : failed;
    if (want == nullptr) return failed;
    return *val == *want ? "" : failed;
  }

  std::string CopyOp(const json::object& op) {
    std::string from, path;
    if (std::string err = StringMember(op, "from", from, MissingFrom()); !err.empty()) return "copy operation failed to decode from: " + err;
    auto loc = FindObject(doc_, from);
    if (!loc) return "copy operation does not apply: doc is missing from path: " + from + ": " + kMissing;
    Node val;
    if (std::string err = Get(*loc->container, loc->key, val); !err.empty()) return "error in copy for from: '" + from + "': " + err;
    if (!StringMember(op, "path", path, MissingPath()).empty()) return std::string("copy operation failed to decode path: ") + kMissing;
    loc = FindObject(doc_, path);
    if (!loc) return "copy operation does not apply: doc is missing destination path: " + path + ": " + kMissing;
    copied_ += val ? static_cast<int64_t>(GoJsonMarshal(*val).size()) : 0;
    if (max_copy_bytes_ > 0 && copied_ > max_copy_bytes_) {
      return "Unable to complete the copy, the accumulated size increase of copy is " + std::to_string(copied_) +
             ", exceeding the limit " + std::to_string(max_copy_bytes_);
    }
    if (std::string err = Add(*loc->container, loc->key, std::move(val)); !err.empty()) return "error while adding value during copy: " + err;
    return "";
  }

  json::value& doc_;
  int64_t max_copy_bytes_;
  int64_t copied_ = 0;
};

std::string JsonKindWord(const json::value& v) {
  if (v.is_object()) return "object";
  if (v.is_array()) return "array";
  if (v.is_string()) return "string";
  if (v.is_bool()) return "bool";
  return "number";
}

}  // namespace

std::string JsonPatchOperations(json::value& doc, const json::array& ops, int64_t max_copy_bytes) {
  if (!doc.is_object() && !doc.is_array()) return "json: cannot unmarshal " + JsonKindWord(doc) + " into Go value of type jsonpatch.partialDoc";
  Applier a(doc, max_copy_bytes);
  static const json::object kNilOperation;
  for (const auto& op : ops) {
    std::string err = a.Apply(op.is_object() ? op.get_object() : kNilOperation);
    if (!err.empty()) return err;
  }
  return "";
}

StatusOr<json::value> ApplyJsonPatch(const json::value& doc, std::string_view patch_body, const JsonPatchOptions& opts) {
  ASSIGN_OR_RETURN(json::value patch, ParsePatchBody(patch_body));
  if (patch.is_null()) return doc;
  if (!patch.is_array()) {
    return NewBadRequest("json: cannot unmarshal " + JsonKindWord(patch) + " into Go value of type jsonpatch.Patch");
  }
  const json::array& ops = patch.get_array();
  for (const auto& op : ops) {
    if (!op.is_object() && !op.is_null()) {
      return NewBadRequest("json: cannot unmarshal " + JsonKindWord(op) + " into Go value of type jsonpatch.Operation");
    }
  }
  if (ops.size() > opts.max_operations) {
    return NewRequestEntityTooLargeError("The allowed maximum operations in a JSON patch is " +
                                         std::to_string(opts.max_operations) + ", got " + std::to_string(ops.size()));
  }
  json::value out = doc;
  if (!JsonPatchOperations(out, ops, opts.max_copy_bytes).empty()) return PatchUnprocessable();
  return out;
}

}  // namespace capstan::apimachinery
