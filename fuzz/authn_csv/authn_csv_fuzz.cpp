// Fuzzes the CSV reader of kube's credential files and the token and password files built on it: any
// bytes give records or a Status, never a crash. Every token the token file accepted must then be
// found by its own value.
#include <cstdint>
#include <string>
#include <string_view>

#include "auth/authn/basic_auth.h"
#include "auth/authn/csv.h"
#include "auth/authn/token_file.h"

using namespace capstan::authn;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto records = ParseCsv(in);
  if (records.ok()) {
    int last_line = 0;
    for (const auto& r : *records) {
      if (r.line <= last_line || r.fields.empty()) __builtin_trap();
      last_line = r.line;
    }
  }
  auto tokens = StaticTokenAuthenticator::FromCsv(in, "fuzz");
  if (tokens.ok() && records.ok()) {
    for (const auto& r : *records) {
      if (r.fields.size() < 3 || r.fields[0].empty()) continue;
      if (!(*tokens)->Lookup(r.fields[0])) __builtin_trap();
    }
  }
  auto basic = BasicAuthAuthenticator::FromCsv(in, "fuzz");
  if (basic.ok() && records.ok() && !records->empty()) {
    const auto& r = records->front();
    if (r.fields.size() >= 3) (void)(*basic)->Check(r.fields[1], r.fields[0]);
  }
  return 0;
}
