// kube's regex library (apiserver/pkg/cel/library/regex.go): find and findAll on strings, RE2
// patterns with Go's syntax, "Illegal regex: ..." for a pattern that does not compile.
#include <re2/re2.h>

#include "cel/functions.h"
#include "cel/regex_cache.h"

namespace capstan::cel {

namespace {

Value Find(EvalContext& ctx, const Value* a, size_t n) {
  if (n != 2 || a[0].kind() != Kind::kString || a[1].kind() != Kind::kString) return NoSuchOverload();
  ctx.Charge(SizeCost(a[0]) * (SizeCost(a[1]) + 1));
  auto re = CompileRegex(a[1].str());
  if (!re.ok()) return Value::Error("Illegal regex: " + re.error);
  re2::StringPiece m;
  re2::StringPiece in(a[0].str());
  if (!re.re->Match(in, 0, in.size(), RE2::UNANCHORED, &m, 1)) return Value::String("");
  return Value::String(std::string(m.data(), m.size()));
}

Value FindAll(EvalContext& ctx, const Value* a, size_t n) {
  if (n < 2 || n > 3 || a[0].kind() != Kind::kString || a[1].kind() != Kind::kString) return NoSuchOverload();
  if (n == 3 && a[2].kind() != Kind::kInt) return NoSuchOverload();
  ctx.Charge(SizeCost(a[0]) * (SizeCost(a[1]) + 1));
  int64_t limit = n == 3 ? a[2].int_value() : -1;
  auto re = CompileRegex(a[1].str());
  if (!re.ok()) return Value::Error("Illegal regex: " + re.error);
  std::vector<Value> out;
  re2::StringPiece in(a[0].str());
  size_t pos = 0;
  int64_t prev_end = -1;
  // Go's FindAllString: successive non-overlapping matches; an empty match right after the
  // previous match is skipped.
  while (pos <= in.size() && (limit < 0 || static_cast<int64_t>(out.size()) < limit)) {
    re2::StringPiece m;
    if (!re.re->Match(in, pos, in.size(), RE2::UNANCHORED, &m, 1)) break;
    size_t start = static_cast<size_t>(m.data() - in.data());
    size_t end = start + m.size();
    if (m.empty() && static_cast<int64_t>(start) == prev_end) {
      pos = start + 1;
      continue;
    }
    out.push_back(Value::String(std::string(m.data(), m.size())));
    prev_end = static_cast<int64_t>(end);
    pos = m.empty() ? end + 1 : end;
  }
  if (limit == 0) out.clear();
  return Value::List(std::move(out));
}

}  // namespace

void RegisterKubeRegexLibrary(FunctionRegistry& r) {
  r.AddMember("find", Find);
  r.AddMember("findAll", FindAll);
}

}  // namespace capstan::cel
