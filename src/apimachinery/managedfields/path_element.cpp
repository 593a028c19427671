// apimachinery/managedfields/path_element.cpp: path elements' order, fieldsV1 keys and printed form.
#include "apimachinery/managedfields/path_element.h"

#include <boost/json.hpp>
#include <algorithm>
#include <charconv>

#include "apimachinery/json_parse.h"
#include "apimachinery/json_write.h"

namespace capstan::apimachinery::managedfields {

namespace json = boost::json;

namespace {

int Rank(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null: return 0;
    case json::kind::bool_: return 1;
    case json::kind::int64:
    case json::kind::uint64:
    case json::kind::double_: return 2;
    case json::kind::string: return 3;
    case json::kind::array: return 4;
    case json::kind::object: return 5;
  }
  return 6;
}

double AsDouble(const json::value& v) {
  if (v.is_int64()) return static_cast<double>(v.get_int64());
  if (v.is_uint64()) return static_cast<double>(v.get_uint64());
  return v.get_double();
}

template <class T>
int Cmp(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

}  // namespace

int CompareJson(const json::value& a, const json::value& b) {
  int ra = Rank(a), rb = Rank(b);
  if (ra != rb) return Cmp(ra, rb);
  switch (a.kind()) {
    case json::kind::null: return 0;
    case json::kind::bool_: return Cmp(a.get_bool(), b.get_bool());
    case json::kind::int64:
    case json::kind::uint64:
    case json::kind::double_:
      if (a.is_int64() && b.is_int64()) return Cmp(a.get_int64(), b.get_int64());
      return Cmp(AsDouble(a), AsDouble(b));
    case json::kind::string: return Cmp(std::string_view(a.get_string()), std::string_view(b.get_string()));
    case json::kind::array: {
      const auto& x = a.get_array();
      const auto& y = b.get_array();
      for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
        if (int c = CompareJson(x[i], y[i])) return c;
      }
      return Cmp(x.size(), y.size());
    }
    case json::kind::object: return Cmp(ToJson(a), ToJson(b));
  }
  return 0;
}

PathElement PathElement::Field(std::string name) {
  PathElement e;
  e.kind = Kind::kField;
  e.name = std::move(name);
  return e;
}

PathElement PathElement::Key(std::vector<std::pair<std::string, json::value>> fields) {
  PathElement e;
  e.kind = Kind::kKey;
  std::sort(fields.begin(), fields.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  e.key = std::move(fields);
  return e;
}

PathElement PathElement::Value(json::value v) {
  PathElement e;
  e.kind = Kind::kValue;
  e.value = std::move(v);
  return e;
}

PathElement PathElement::Index(int64_t i) {
  PathElement e;
  e.kind = Kind::kIndex;
  e.index = i;
  return e;
}

int PathElement::Compare(const PathElement& o) const {
  if (kind != o.kind) return Cmp(static_cast<int>(kind), static_cast<int>(o.kind));
  switch (kind) {
    case Kind::kField: return Cmp(name, o.name);
    case Kind::kKey:
      for (size_t i = 0; i < key.size() && i < o.key.size(); ++i) {
        if (int c = Cmp(key[i].first, o.key[i].first)) return c;
        if (int c = CompareJson(key[i].second, o.key[i].second)) return c;
      }
      return Cmp(key.size(), o.key.size());
    case Kind::kValue: return CompareJson(value, o.value);
    case Kind::kIndex: return Cmp(index, o.index);
  }
  return 0;
}

std::string PathElement::Serialize() const {
  switch (kind) {
    case Kind::kField: return "f:" + name;
    case Kind::kKey: {
      std::string out = "k:{";
      for (size_t i = 0; i < key.size(); ++i) {
        if (i) out += ',';
        AppendJsonString(out, key[i].first);
        out += ':';
        AppendJson(out, key[i].second);
      }
      out += '}';
      return out;
    }
    case Kind::kValue: return "v:" + ToJson(value);
    case Kind::kIndex: return "i:" + std::to_string(index);
  }
  return "";
}

std::string PathElement::ToString() const {
  switch (kind) {
    case Kind::kField: return "." + name;
    case Kind::kKey: {
      std::string out = "[";
      for (size_t i = 0; i < key.size(); ++i) {
        if (i) out += ',';
        out += key[i].first + "=" + ToJson(key[i].second);
      }
      out += ']';
      return out;
    }
    case Kind::kValue: return "[=" + ToJson(value) + "]";
    case Kind::kIndex: return "[" + std::to_string(index) + "]";
  }
  return "";
}

std::string PathToString(const Path& p) {
  std::string out;
  for (const auto& e : p) out += e.ToString();
  return out;
}

StatusOr<PathElement> ParsePathElement(std::string_view s) {
  if (s.size() < 2 || s[1] != ':') return Status(400, "BadRequest", "unknown path element type: " + std::string(s));
  std::string_view rest = s.substr(2);
  switch (s[0]) {
    case 'f': return PathElement::Field(std::string(rest));
    case 'i': {
      int64_t i = 0;
      auto [p, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), i);
      if (ec != std::errc() || p != rest.data() + rest.size()) {
        return Status(400, "BadRequest", "invalid index in path element: " + std::string(s));
      }
      return PathElement::Index(i);
    }
    case 'v':
    case 'k': {
      auto parsed = ParseJsonValue(rest);
      if (!parsed.ok()) return Status(400, "BadRequest", "invalid path element " + std::string(s) + ": " + parsed.status().message());
      if (s[0] == 'v') return PathElement::Value(std::move(*parsed));
      if (!parsed->is_object()) return Status(400, "BadRequest", "invalid key in path element: " + std::string(s));
      std::vector<std::pair<std::string, json::value>> fields;
      for (auto& kv : parsed->get_object()) fields.emplace_back(std::string(kv.key()), kv.value());
      return PathElement::Key(std::move(fields));
    }
    default: return Status(400, "BadRequest", "unknown path element type: " + std::string(s));
  }
}

}  // namespace capstan::apimachinery::managedfields
