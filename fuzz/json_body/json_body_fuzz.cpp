// Fuzzes the body codecs: whatever bytes arrive, parsing returns a value or a Status (never a crash or
// a hang), and what was read writes out as JSON and YAML that read back. Whatever a body parser
// accepted, the stored-bytes parser reads back (one depth limit for every decode path), and Go's
// base64 error offset for the bytes lies within them.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "apimachinery/go_base64.h"
#include "apimachinery/json.h"
#include "apimachinery/json_stored.h"
#include "apimachinery/yaml.h"

using namespace capstan::apimachinery;

namespace {

[[noreturn]] void Fail(const char* what) {
  __builtin_trap();
  (void)what;
}

// A key "<<" anywhere: go-yaml v2 writes it plain and then reads it as a merge key, so such YAML
// does not read back in Go either (Capstan writes what Go writes).
bool HasMergeKey(const boost::json::value& v) {
  if (v.is_array()) {
    for (const auto& e : v.get_array()) {
      if (HasMergeKey(e)) return true;
    }
  } else if (v.is_object()) {
    for (const auto& kv : v.get_object()) {
      if (kv.key() == "<<" || HasMergeKey(kv.value())) return true;
    }
  }
  return false;
}

void CheckWriters(const boost::json::value& v) {
  std::string text = ToJson(v);
  if (!ParseJson(text).ok()) Fail("written JSON does not parse");
  if (!ParseStoredJson(text).ok()) Fail("written JSON does not read back as stored bytes");
  if (JsonDepth(text) > kJsonMaxDepth) Fail("a value deeper than the limit was accepted");
  std::string yaml = JsonToYaml(v);
  if (!YamlToJson(yaml).ok() && !HasMergeKey(v)) Fail("written YAML does not parse");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  JsonParseOptions strict;
  strict.strict = true;
  auto lenient = ParseJson(in);
  auto checked = ParseJson(in, strict);
  if (lenient.ok() != checked.ok()) Fail("strict and lenient JSON disagree");
  if (lenient.ok()) CheckWriters(lenient->value);

  YamlParseOptions ystrict;
  ystrict.strict = true;
  auto y = YamlToJson(in);
  auto ys = YamlToJson(in, ystrict);
  if (y.ok() != ys.ok()) Fail("strict and lenient YAML disagree");
  if (y.ok()) CheckWriters(y->value);
  (void)SplitYamlDocuments(in);
  int64_t at = GoBase64CorruptOffset(in);
  if (at > static_cast<int64_t>(in.size())) Fail("base64 error offset past the input");
  return 0;
}
