// Helpers shared by the protobuf codec tests: the built-in schemas in one registry and a codec over
// them, a JSON comparison that treats 1 and 1.0 as equal, and hex literals.
#pragma once

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "api/schemas/builtin_schemas.h"
#include "apimachinery/protobuf_codec.h"
#include "apimachinery/schema_registry.h"

namespace capstan::apimachinery::testing {

inline const SchemaRegistry& BuiltinRegistry() {
  static const SchemaRegistry* registry = [] {
    auto* r = new SchemaRegistry();
    for (const auto& f : api::BuiltinSchemaFiles()) {
      Status st = r->AddDocumentJson(f.text);
      if (!st.ok()) ADD_FAILURE() << f.name << ": " << st.ToString();
    }
    Status st = r->Resolve();
    if (!st.ok()) ADD_FAILURE() << st.ToString();
    return r;
  }();
  return *registry;
}

inline const ProtobufCodec& BuiltinCodec() {
  static const ProtobufCodec* codec = [] {
    auto c = ProtobufCodec::Create(BuiltinRegistry());
    if (!c.ok()) {
      ADD_FAILURE() << c.status().ToString();
      std::abort();
    }
    return std::move(*c).release();
  }();
  return *codec;
}

// The upstream round-trip fixtures (k8s-api-fixtures/HEAD): $CAPSTAN_API_FIXTURES, else
// ../shared/k8s-api-fixtures/HEAD beside the checkout, looked for from the source tree and from the
// working directory up (__FILE__ may be relative to the build directory). nullopt: none here.
inline std::optional<std::filesystem::path> ApiFixtureDir() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("CAPSTAN_API_FIXTURES"); env != nullptr && *env != '\0') {
    return fs::is_directory(env) ? std::optional<fs::path>(env) : std::nullopt;
  }
  std::error_code ec;
  for (fs::path p : {fs::path(__FILE__).parent_path() / ".." / "..", fs::current_path(ec)}) {
    for (p = fs::absolute(p, ec); !p.empty(); p = p.parent_path()) {
      fs::path candidate = p / ".." / "shared" / "k8s-api-fixtures" / "HEAD";
      if (fs::is_directory(candidate, ec)) return fs::weakly_canonical(candidate, ec);
      if (p == p.parent_path()) break;
    }
  }
  return std::nullopt;
}

inline std::string ReadFileBytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string Hex(std::string_view s) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

// "0a 03 61 62 63" -> bytes (spaces ignored).
inline std::string Unhex(std::string_view hex) {
  std::string out;
  int hi = -1;
  for (char c : hex) {
    int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (v < 0) continue;
    if (hi < 0) {
      hi = v;
    } else {
      out.push_back(static_cast<char>(hi * 16 + v));
      hi = -1;
    }
  }
  return out;
}

inline bool NumberValue(const boost::json::value& v, double& d) {
  if (v.is_int64()) d = static_cast<double>(v.get_int64());
  else if (v.is_uint64()) d = static_cast<double>(v.get_uint64());
  else if (v.is_double()) d = v.get_double();
  else return false;
  return true;
}

// "" when equal as JSON values (numbers compared by value, key order ignored), else the first
// difference with its path.
inline std::string JsonDiff(const boost::json::value& want, const boost::json::value& got, const std::string& path = "$") {
  double a, b;
  if (NumberValue(want, a) && NumberValue(got, b)) {
    if (want.is_int64() && got.is_int64()) {
      return want.get_int64() == got.get_int64() ? "" : path + ": want " + boost::json::serialize(want) + ", got " + boost::json::serialize(got);
    }
    return a == b ? "" : path + ": want " + boost::json::serialize(want) + ", got " + boost::json::serialize(got);
  }
  if (want.kind() != got.kind()) {
    return path + ": want " + boost::json::serialize(want) + ", got " + boost::json::serialize(got);
  }
  if (want.is_object()) {
    const auto& wo = want.get_object();
    const auto& go = got.get_object();
    for (const auto& kv : wo) {
      const boost::json::value* g = go.if_contains(kv.key());
      if (g == nullptr) return path + "." + std::string(kv.key()) + ": missing (want " + boost::json::serialize(kv.value()) + ")";
      std::string d = JsonDiff(kv.value(), *g, path + "." + std::string(kv.key()));
      if (!d.empty()) return d;
    }
    for (const auto& kv : go) {
      if (!wo.contains(kv.key())) return path + "." + std::string(kv.key()) + ": unexpected " + boost::json::serialize(kv.value());
    }
    return "";
  }
  if (want.is_array()) {
    const auto& wa = want.get_array();
    const auto& ga = got.get_array();
    if (wa.size() != ga.size()) {
      return path + ": want " + std::to_string(wa.size()) + " elements, got " + std::to_string(ga.size());
    }
    for (size_t i = 0; i < wa.size(); ++i) {
      std::string d = JsonDiff(wa[i], ga[i], path + "[" + std::to_string(i) + "]");
      if (!d.empty()) return d;
    }
    return "";
  }
  return want == got ? "" : path + ": want " + boost::json::serialize(want) + ", got " + boost::json::serialize(got);
}

}  // namespace capstan::apimachinery::testing
