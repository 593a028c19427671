#include "cel/regex_cache.h"

#include <re2/re2.h>

#include <mutex>
#include <unordered_map>

#include "apimachinery/go_regexp.h"

namespace capstan::cel {

namespace {

constexpr size_t kMaxCached = 512;

struct Cache {
  std::mutex mu;
  std::unordered_map<std::string, CompiledRegex> entries;  // guarded by mu
};

Cache& TheCache() {
  static Cache c;
  return c;
}

}  // namespace

CompiledRegex CompileRegex(std::string_view pattern) {
  Cache& c = TheCache();
  std::string key(pattern);
  {
    std::lock_guard<std::mutex> l(c.mu);
    auto it = c.entries.find(key);
    if (it != c.entries.end()) return it->second;
  }
  RE2::Options opts;
  opts.set_log_errors(false);
  auto re = std::make_shared<RE2>(key, opts);
  CompiledRegex out;
  if (re->ok()) {
    out.re = std::move(re);
  } else {
    out.error = apimachinery::GoRegexpCompileError(*re);
  }
  std::lock_guard<std::mutex> l(c.mu);
  if (c.entries.size() >= kMaxCached) c.entries.clear();
  c.entries.emplace(std::move(key), out);
  return out;
}

}  // namespace capstan::cel
