// cel/functions.h: the function table a CEL environment offers, and the evaluation context every
// function sees (cost tracking, the cost limit).
//
// A function is a name with a global form (`size(x)`), a member form (`x.size()`), or both; each
// implementation checks its argument kinds and answers "no such overload" when none matches, as
// cel-go's runtime dispatch does. Libraries (stdlib.cpp, the strings extension, kube's libraries)
// add their functions to a registry once; the registry is then read-only and shared by every program.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cel/value.h"

namespace capstan::cel {

inline constexpr std::string_view kNoSuchOverload = "no such overload";
inline constexpr std::string_view kCostLimitExceeded = "operation cancelled: actual cost limit exceeded";

// Per-evaluation state. Not shared between threads.
struct EvalContext {
  uint64_t cost = 0;
  uint64_t cost_limit = UINT64_MAX;
  bool cancelled = false;  // the cost limit was exceeded: every further step fails fast
  // Adds `c` to the running cost; false (and cancelled) once the limit is exceeded.
  bool Charge(uint64_t c) {
    cost = c > UINT64_MAX - cost ? UINT64_MAX : cost + c;
    if (cost > cost_limit) cancelled = true;
    return !cancelled;
  }
};

// args[0] is the receiver for member calls.
using Function = Value (*)(EvalContext& ctx, const Value* args, size_t n);

// Several libraries may define one name (ext.Strings' indexOf on strings, kube's on lists): the
// implementations are tried in order until one does not answer "no such overload".
struct Overloads {
  std::vector<Function> global;
  std::vector<Function> member;
};

class FunctionRegistry {
 public:
  void AddGlobal(std::string name, Function f) { table_[std::move(name)].global.push_back(f); }
  void AddMember(std::string name, Function f) { table_[std::move(name)].member.push_back(f); }
  void AddBoth(const std::string& name, Function f) {
    AddGlobal(name, f);
    AddMember(name, f);
  }
  const Overloads* Find(std::string_view name) const {
    auto it = table_.find(std::string(name));
    return it == table_.end() ? nullptr : &it->second;
  }

 private:
  std::unordered_map<std::string, Overloads> table_;
};

inline Value NoSuchOverload() { return Value::Error(std::string(kNoSuchOverload)); }
inline bool IsNoSuchOverload(const Value& v) { return v.IsError() && v.str() == kNoSuchOverload; }

// Cost of a string or bytes argument as cel-go charges it: 0.1 per byte, rounded up.
inline uint64_t SizeCost(const Value& v) {
  if (v.kind() == Kind::kString || v.kind() == Kind::kBytes) return (v.str().size() + 9) / 10;
  if (v.kind() == Kind::kList) return (v.list().items.size() + 9) / 10;
  return 0;
}

// The libraries. Each adds its functions to `r`.
void RegisterStandardLibrary(FunctionRegistry& r);
void RegisterTimeLibrary(FunctionRegistry& r);
void RegisterOptionalLibrary(FunctionRegistry& r);
void RegisterStringsLibrary(FunctionRegistry& r);  // cel-go ext.Strings version 2
void RegisterSetsLibrary(FunctionRegistry& r);     // cel-go ext.Sets
void RegisterKubeListsLibrary(FunctionRegistry& r);
void RegisterKubeRegexLibrary(FunctionRegistry& r);
void RegisterKubeUrlLibrary(FunctionRegistry& r);
void RegisterKubeQuantityLibrary(FunctionRegistry& r);
void RegisterKubeIpLibrary(FunctionRegistry& r);   // ip and cidr
void RegisterKubeFormatLibrary(FunctionRegistry& r);

}  // namespace capstan::cel
