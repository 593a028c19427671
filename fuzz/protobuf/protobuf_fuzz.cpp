// Fuzzes the protobuf codec with the built-in schemas: whatever bytes arrive, decoding returns a JSON
// value or a 400 Status (never a crash, a hang or an unbounded allocation); what was decoded encodes,
// and after one more round trip decoding is a fixed point (up to the UTF-8 repair every JSON writer
// does) with deterministic bytes.
//
// The first input byte picks the message (protobuf_fuzz_targets.h): an enveloped object of any kind,
// or one definition's bare message (ConfigMap, Pod, Deployment, WatchEvent, CRD).
#include <boost/json/value.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "api/schemas/builtin_schemas.h"
#include "apimachinery/json_write.h"
#include "apimachinery/protobuf_codec.h"
#include "protobuf_fuzz_targets.h"

using namespace capstan;
using namespace capstan::apimachinery;

namespace {

[[noreturn]] void Fail(const char* what) {
  (void)what;
  __builtin_trap();
}

const ProtobufCodec& Codec() {
  static const std::unique_ptr<SchemaRegistry> registry = [] {
    auto r = std::make_unique<SchemaRegistry>();
    for (const auto& f : api::BuiltinSchemaFiles()) {
      if (!r->AddDocumentJson(f.text).ok()) Fail("schema does not load");
    }
    if (!r->Resolve().ok()) Fail("schemas do not resolve");
    return r;
  }();
  static const std::unique_ptr<const ProtobufCodec> codec = [] {
    auto c = ProtobufCodec::Create(*registry);
    if (!c.ok()) Fail("codec does not compile");
    return std::move(*c);
  }();
  return *codec;
}

// Equal as kube would write them: strings keep the bytes they arrived with, and an embedded object
// that was re-encoded as JSON text has had invalid UTF-8 replaced, as every JSON writer does.
bool SameJson(const boost::json::value& a, const boost::json::value& b) { return a == b || ToJson(a) == ToJson(b); }

const boost::json::value& JsonOf(const boost::json::value& v) { return v; }
const boost::json::value& JsonOf(const ProtobufDecodedObject& o) { return o.object; }

// Go's decoder accepts times its JSON encoder cannot read back (years past 9999); the same holds here.
bool ToleratedEncodeFailure(const Status& st) { return st.message().find("parsing time") != std::string::npos; }

}  // namespace

// v1 = decode(input); v2 = decode(encode(v1)); v3 = decode(encode(v2)): v3 must equal v2, and equal
// values must encode to equal bytes. (v2 need not equal v1: a set pointer to a zero Time decodes to
// null, which encodes as an unset pointer, as in Go.)
template <class Value, class EncodeFn, class DecodeFn>
void CheckRoundTrips(Value v1, EncodeFn encode, DecodeFn decode) {
  auto e1 = encode(v1);
  if (!e1.ok()) {
    if (!ToleratedEncodeFailure(e1.status())) Fail("decoded value does not encode");
    return;
  }
  auto v2 = decode(*e1);
  if (!v2.ok()) Fail("encoded value does not decode");
  auto e2 = encode(*v2);
  if (!e2.ok()) Fail("second encoding fails");
  auto v3 = decode(*e2);
  if (!v3.ok()) Fail("second decoding fails");
  if (!SameJson(JsonOf(*v3), JsonOf(*v2))) Fail("round trip is not a fixed point");
  if (JsonOf(*v3) == JsonOf(*v2)) {
    auto e3 = encode(*v3);
    if (!e3.ok() || *e3 != *e2) Fail("encoding is not deterministic");
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const ProtobufCodec& codec = Codec();
  const std::string_view message = fuzz::kProtobufFuzzMessages[data[0] % fuzz::kProtobufFuzzMessageCount];
  const std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);

  if (message.empty()) {
    auto v1 = codec.DecodeObject(bytes);
    if (!v1.ok()) {
      if (v1.status().code() != 400) Fail("decode error is not a 400");
      return 0;
    }
    const GroupVersionKind gvk = v1->gvk;
    CheckRoundTrips(
        std::move(*v1), [&](const ProtobufDecodedObject& o) { return codec.EncodeObject(gvk, o.object); },
        [&](std::string_view b) {
          auto o = codec.DecodeObject(b);
          if (o.ok() && o->gvk != gvk) Fail("kind changed");
          return o;
        });
    return 0;
  }
  auto v1 = codec.Decode(message, bytes);
  if (!v1.ok()) {
    if (v1.status().code() != 400) Fail("decode error is not a 400");
    return 0;
  }
  CheckRoundTrips(
      std::move(*v1), [&](const boost::json::value& v) { return codec.Encode(message, v); },
      [&](std::string_view b) { return codec.Decode(message, b); });
  return 0;
}
