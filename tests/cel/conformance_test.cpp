// Runs google/cel-spec's simple conformance tests (testdata/cel-spec/*.textproto, Apache 2.0) against
// the engine. Cases that need protobuf message types, containers or unknowns are skipped by rule;
// cases Capstan is known to get wrong are listed in kKnownFailures and must keep failing (so the
// list shrinks as the engine improves).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "cel/program.h"
#include "textproto.h"

namespace capstan::cel {
namespace {

using testing::TextNode;

const std::set<std::string> kKnownFailures = {
    // reverse() is ext.Strings version 3; kube-apiserver 1.32 enables version 2.
    "string_ext/reverse/empty", "string_ext/reverse/single_character", "string_ext/reverse/multiple",
    // Backquoted field names came with cel-go 0.23; kube-apiserver 1.32 vendors 0.22.
    "fields/quoted_map_fields/field_access_slash", "fields/quoted_map_fields/field_access_dash",
    "fields/quoted_map_fields/field_access_dot", "fields/quoted_map_fields/has_field_slash",
    "fields/quoted_map_fields/has_field_dash", "fields/quoted_map_fields/has_field_dot",
};

struct Unsupported {};

Value ToValue(const TextNode& v) {
  for (const auto& f : v.fields) {
    const std::string& n = f.name;
    if (n == "null_value") return Value::Null();
    if (n == "bool_value") return Value::Bool(f.scalar == "true");
    if (n == "int64_value") return Value::Int(std::stoll(f.scalar));
    if (n == "uint64_value") return Value::Uint(std::stoull(f.scalar));
    if (n == "double_value") {
      std::string s = f.scalar;
      if (s == "inf" || s == "infinity") return Value::Double(INFINITY);
      if (s == "-inf" || s == "-infinity") return Value::Double(-INFINITY);
      if (s == "nan") return Value::Double(NAN);
      return Value::Double(std::stod(s));
    }
    if (n == "string_value") return Value::String(f.scalar);
    if (n == "bytes_value") return Value::Bytes(f.scalar);
    if (n == "type_value") return Value::Type(f.scalar);
    if (n == "list_value") {
      std::vector<Value> items;
      for (const TextNode* e : f.All("values")) items.push_back(ToValue(*e));
      return Value::List(std::move(items));
    }
    if (n == "map_value") {
      auto m = std::make_shared<MapValue>();
      for (const TextNode* e : f.All("entries")) {
        const TextNode* k = e->Get("key");
        const TextNode* x = e->Get("value");
        if (!k || !x) throw Unsupported{};
        m->entries.emplace_back(ToValue(*k), ToValue(*x));
      }
      return Value::Map(std::move(m));
    }
    throw Unsupported{};
  }
  throw Unsupported{};
}

// Same kind and value, recursively (NaN equals NaN here).
bool SameValue(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return false;
  if (a.kind() == Kind::kDouble && std::isnan(a.double_value())) return std::isnan(b.double_value());
  if (a.kind() == Kind::kList) {
    if (a.list().items.size() != b.list().items.size()) return false;
    for (size_t i = 0; i < a.list().items.size(); ++i) {
      if (!SameValue(a.list().items[i], b.list().items[i])) return false;
    }
    return true;
  }
  if (a.kind() == Kind::kMap) {
    if (a.map().entries.size() != b.map().entries.size()) return false;
    for (const auto& [k, v] : a.map().entries) {
      const Value* o = b.map().Find(k);
      if (!o || !SameValue(v, *o)) return false;
    }
    return true;
  }
  return Equal(a, b);
}

class Runner {
 public:
  int passed = 0, skipped = 0;
  std::vector<std::string> failures;

  void RunFile(const std::string& file) {
    std::ifstream in(std::string(std::getenv("CAPSTAN_SOURCE_DIR")) + "/tests/cel/testdata/cel-spec/" + file + ".textproto");
    ASSERT_TRUE(in) << file;
    std::stringstream ss;
    ss << in.rdbuf();
    TextNode root;
    std::string err;
    ASSERT_TRUE(testing::ParseTextProto(ss.str(), root, err)) << file << ": " << err;
    for (const TextNode* sec : root.All("section")) {
      std::string sname = sec->Get("name") ? sec->Get("name")->scalar : "";
      for (const TextNode* t : sec->All("test")) RunTest(file + "/" + sname + "/" + (t->Get("name") ? t->Get("name")->scalar : ""), *t);
    }
  }

 private:
  void RunTest(const std::string& name, const TextNode& t) {
    const TextNode* expr = t.Get("expr");
    if (!expr) return;
    const std::string& src = expr->scalar;
    if (t.Get("container") || t.Get("unknown") || t.Get("check_only") || t.Get("any_unknowns") ||
        src.find("TestAllTypes") != std::string::npos || src.find("google.protobuf.") != std::string::npos ||
        src.find("cel.expr.") != std::string::npos || src.find("proto") != std::string::npos) {
      ++skipped;
      return;
    }
    Value want;
    bool want_error = t.Get("eval_error") != nullptr || t.Get("any_eval_errors") != nullptr;
    std::vector<VariableDecl> decls;
    MapActivation act;
    try {
      if (const TextNode* v = t.Get("value")) want = ToValue(*v);
      else if (!want_error) want = Value::Bool(true);
      for (const TextNode* b : t.All("bindings")) {
        const TextNode* k = b->Get("key");
        const TextNode* ev = b->Get("value");
        const TextNode* v = ev ? ev->Get("value") : nullptr;
        if (!k || !v) throw Unsupported{};
        act.Bind(k->scalar, ToValue(*v));
        decls.push_back({k->scalar, nullptr});
      }
      for (const TextNode* d : t.All("type_env")) {
        const TextNode* n = d->Get("name");
        if (n && d->Get("ident")) {
          bool dup = false;
          for (const auto& x : decls) dup |= x.name == n->scalar;
          if (!dup) decls.push_back({n->scalar, nullptr});
        } else {
          throw Unsupported{};
        }
      }
    } catch (const Unsupported&) {
      ++skipped;
      return;
    }
    Env env = Env::Standard()->Extend(decls);
    bool check = !(t.Get("disable_check") && t.Get("disable_check")->scalar == "true");
    CompileResult c = Compile(src, env, check);
    std::string got;
    bool ok = false;
    if (!c.program) {
      got = "compile: " + c.error;
    } else {
      EvalResult r = c.program->Eval(act);
      if (want_error) {
        ok = r.value.IsError();
        got = DebugString(r.value);
      } else {
        ok = !r.value.IsError() && SameValue(r.value, want);
        got = (r.value.IsError() ? "error: " : "") + DebugString(r.value) + " (" + TypeName(r.value) + ")";
      }
    }
    bool known = kKnownFailures.count(name) > 0;
    if (ok && !known) {
      ++passed;
    } else if (!ok && known) {
      ++skipped;
    } else if (ok && known) {
      failures.push_back(name + ": passes now; remove it from kKnownFailures");
    } else {
      failures.push_back(name + ": `" + src + "` got " + got + ", want " + (want_error ? "an error" : DebugString(want)));
    }
  }
};

class CelSpecConformance : public ::testing::TestWithParam<std::string> {};

TEST_P(CelSpecConformance, File) {
  Runner r;
  r.RunFile(GetParam());
  std::string all;
  for (const auto& f : r.failures) all += "  \"" + f + "\"\n";
  EXPECT_TRUE(r.failures.empty()) << r.failures.size() << " failures:\n" << all;
  EXPECT_GT(r.passed, 0);
  std::printf("%s: %d passed, %d skipped\n", GetParam().c_str(), r.passed, r.skipped);
}

INSTANTIATE_TEST_SUITE_P(CelSpec, CelSpecConformance,
                         ::testing::Values("basic", "comparisons", "conversions", "fp_math", "integer_math", "lists",
                                           "logic", "macros", "parse", "plumbing", "string", "string_ext", "timestamps",
                                           "optionals", "fields"));

}  // namespace
}  // namespace capstan::cel
