// The schema-driven codec against hand-built bytes: what Go's generated code writes for zero and
// absent values, the JSON kube writes after decoding, special types, maps, embedded messages, lists,
// Status, watch frames, and malformed input.
#include "apimachinery/protobuf_codec.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "apimachinery/protobuf_wire.h"
#include "protobuf_test_util.h"

namespace capstan::apimachinery {
namespace {

namespace json = boost::json;
using protobuf::AppendKey;
using protobuf::AppendLengthDelimited;
using protobuf::AppendVarint;
using protobuf::WireType;
using testing::BuiltinCodec;
using testing::BuiltinRegistry;
using testing::Hex;
using testing::JsonDiff;
using testing::Unhex;

constexpr std::string_view kConfigMap = "io.k8s.api.core.v1.ConfigMap";
const GroupVersionKind kConfigMapGvk{"", "v1", "ConfigMap"};
// ObjectMeta{}: the eight non-pointer fields, empty (name ... resourceVersion, generation, creationTimestamp).
constexpr std::string_view kEmptyObjectMetaHex = "0a00 1200 1a00 2200 2a00 3200 3800 4200";

json::value J(std::string_view text) { return json::parse(text); }

std::string Enc(std::string_view definition, const json::value& v) {
  auto r = BuiltinCodec().Encode(definition, v);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : std::string();
}

json::value Dec(std::string_view definition, std::string_view bytes) {
  auto r = BuiltinCodec().Decode(definition, bytes);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : json::value();
}

Status DecErr(std::string_view definition, std::string_view bytes) {
  auto r = BuiltinCodec().Decode(definition, bytes);
  EXPECT_FALSE(r.ok()) << "decoded to " << json::serialize(*r);
  return r.ok() ? Status() : r.status();
}

TEST(ProtobufCodec, EmptyObjectWritesGoZeroValues) {
  EXPECT_EQ(Hex(Enc(kConfigMap, J("{}"))), "0a10" + Hex(Unhex(kEmptyObjectMetaHex)));
  auto obj = BuiltinCodec().EncodeObject(kConfigMapGvk, J("{}"));
  ASSERT_TRUE(obj.ok()) << obj.status().ToString();
  EXPECT_EQ(Hex(*obj), "6b387300" "0a0f0a0276311209436f6e6669674d6170" "1212" "0a10" + Hex(Unhex(kEmptyObjectMetaHex)) + "1a002200");
  // Decoding writes what encoding/json writes for ConfigMap{}: every ObjectMeta field is omitempty
  // except creationTimestamp, a struct whose zero value is null.
  EXPECT_EQ(JsonDiff(J(R"({"metadata":{"creationTimestamp":null}})"), Dec(kConfigMap, "")), "");
}

TEST(ProtobufCodec, FieldsInNumberOrderMapsSortedPointersWhenSet) {
  const json::value cm = J(R"({"data":{"b":"2","a":"1"},"immutable":false,"metadata":{"name":"a"}})");
  EXPECT_EQ(Hex(Enc(kConfigMap, cm)),
            "0a11" "0a0161" "12001a0022002a00320038004200"  // metadata: name "a", then the zero fields
            "1206" "0a0161" "120131"                       // data a=1
            "1206" "0a0162" "120132"                       // data b=2
            "2000");                                       // immutable: a set pointer, written though false
  EXPECT_EQ(JsonDiff(J(R"({"metadata":{"name":"a","creationTimestamp":null},"data":{"a":"1","b":"2"},"immutable":false})"),
                     Dec(kConfigMap, Enc(kConfigMap, cm))),
            "");
}

TEST(ProtobufCodec, DecodedMapKeysAreSortedAndLastWins) {
  std::string raw;
  for (auto [k, v] : {std::pair{"b", "1"}, {"a", "2"}, {"b", "3"}}) {
    std::string entry;
    AppendLengthDelimited(entry, 1, k);
    AppendLengthDelimited(entry, 2, v);
    AppendLengthDelimited(raw, 2, entry);
  }
  const json::value got = Dec(kConfigMap, raw);
  EXPECT_EQ(json::serialize(got.at("data")), R"({"a":"2","b":"3"})");
}

TEST(ProtobufCodec, RepeatedMessageFieldsMergeAndScalarsOverwrite) {
  std::string raw;
  AppendLengthDelimited(raw, 1, Unhex("0a0161"));  // metadata {name a}
  AppendLengthDelimited(raw, 1, Unhex("1a0162"));  // metadata {namespace b}
  AppendLengthDelimited(raw, 1, Unhex("0a0163"));  // metadata {name c}
  EXPECT_EQ(JsonDiff(J(R"({"metadata":{"name":"c","namespace":"b","creationTimestamp":null}})"), Dec(kConfigMap, raw)), "");
}

TEST(ProtobufCodec, UnknownFieldsAreSkipped) {
  std::string meta = Unhex("0a0161");
  AppendKey(meta, 50, WireType::kFixed32);
  meta += "abcd";
  std::string raw;
  AppendKey(raw, 99, WireType::kVarint);
  AppendVarint(raw, 12345);
  AppendLengthDelimited(raw, 1, meta);
  AppendLengthDelimited(raw, 100, "whatever");
  AppendKey(raw, 101, WireType::kStartGroup);
  AppendKey(raw, 1, WireType::kFixed64);
  raw += "12345678";
  AppendKey(raw, 101, WireType::kEndGroup);
  AppendKey(raw, 102, WireType::kFixed64);
  raw += "12345678";
  EXPECT_EQ(JsonDiff(J(R"({"metadata":{"name":"a","creationTimestamp":null}})"), Dec(kConfigMap, raw)), "");
}

TEST(ProtobufCodec, WrongWireTypeIsABadRequest) {
  Status st = DecErr(kConfigMap, Unhex("0801"));
  EXPECT_EQ(st.code(), 400);
  EXPECT_EQ(st.reason(), "BadRequest");
  EXPECT_EQ(st.message(), "proto: wrong wireType = 0 for field Metadata");
  EXPECT_EQ(DecErr(kConfigMap, Unhex("0a02 0801")).message(), "proto: wrong wireType = 0 for field Name");
  EXPECT_EQ(DecErr(kConfigMap, Unhex("0a05 0a01")).message(), "unexpected EOF");
  EXPECT_EQ(DecErr(kConfigMap, Unhex("00")).message(), "proto: ConfigMap: illegal tag 0 (wire type 0)");
}

TEST(ProtobufCodec, ScalarZeroValuesAndOmitempty) {
  // RangeAllocation: range (string, no omitempty) and data (bytes, no omitempty).
  constexpr std::string_view kRange = "io.k8s.api.core.v1.RangeAllocation";
  EXPECT_EQ(Hex(Enc(kRange, J("{}"))), "0a10" + Hex(Unhex(kEmptyObjectMetaHex)) + "1200");  // nil data not written
  EXPECT_EQ(JsonDiff(J(R"({"metadata":{"creationTimestamp":null},"range":"","data":null})"), Dec(kRange, "")), "");
  const std::string with_data = Enc(kRange, J(R"({"range":"r","data":""})"));
  EXPECT_EQ(Hex(with_data).substr(36), "1201721a00");  // an empty non-nil []byte is written
  EXPECT_EQ(JsonDiff(J(R"({"metadata":{"creationTimestamp":null},"range":"r","data":""})"), Dec(kRange, with_data)), "");
  EXPECT_EQ(Dec(kRange, Enc(kRange, J(R"({"data":"AQI="})"))).at("data"), "AQI=");
}

TEST(ProtobufCodec, NegativeIntegersUseTenByteVarints) {
  const std::string raw = Enc("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", J(R"({"generation":-1})"));
  EXPECT_NE(Hex(raw).find("38ffffffffffffffffff01"), std::string::npos) << Hex(raw);
  EXPECT_EQ(Dec("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", raw).at("generation"), -1);
}

TEST(ProtobufCodec, RepeatedScalarsUnpackedOnWriteBothOnRead) {
  constexpr std::string_view kPsc = "io.k8s.api.core.v1.PodSecurityContext";
  EXPECT_EQ(Hex(Enc(kPsc, J(R"({"supplementalGroups":[1,2]})"))), "20012002");
  EXPECT_EQ(json::serialize(Dec(kPsc, Unhex("2203 010203"))), R"({"supplementalGroups":[1,2,3]})");
  EXPECT_EQ(json::serialize(Dec(kPsc, Unhex("2005 2203 060708"))), R"({"supplementalGroups":[5,6,7,8]})");
  EXPECT_EQ(DecErr(kPsc, Unhex("2203 0607")).message(), "unexpected EOF");
}

TEST(ProtobufCodec, EmbeddedStructIsItsOwnMessage) {
  constexpr std::string_view kVolume = "io.k8s.api.core.v1.Volume";
  const json::value v = J(R"({"name":"v","hostPath":{"path":"/x"}})");
  EXPECT_EQ(Hex(Enc(kVolume, v)), "0a0176" "1206" "0a04" "0a022f78");
  EXPECT_EQ(JsonDiff(v, Dec(kVolume, Enc(kVolume, v))), "");
}

TEST(ProtobufCodec, IntOrString) {
  constexpr std::string_view kIos = "io.k8s.apimachinery.pkg.util.intstr.IntOrString";
  EXPECT_EQ(Hex(Enc(kIos, J(R"("25%")"))), "0801" "1000" "1a03323525");
  EXPECT_EQ(Hex(Enc(kIos, J("1"))), "0800" "1001" "1a00");
  EXPECT_EQ(Hex(Enc(kIos, J("-1"))), "0800" "10ffffffffffffffffff01" "1a00");
  EXPECT_EQ(Hex(Enc(kIos, J("null"))), "0800" "1000" "1a00");
  EXPECT_EQ(Dec(kIos, Unhex("0801 1a03323525")), "25%");
  EXPECT_EQ(Dec(kIos, Unhex("0800 10ffffffffffffffffff01")), -1);
  EXPECT_EQ(Dec(kIos, ""), 0);
  EXPECT_EQ(DecErr(kIos, Unhex("0802")).message(),
            "json: error calling MarshalJSON for type *intstr.IntOrString: impossible IntOrString.Type");
  const json::value dep = J(R"({"spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":1}}}})");
  auto bytes = BuiltinCodec().EncodeObject({"apps", "v1", "Deployment"}, dep);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto back = BuiltinCodec().DecodeObject(*bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(json::serialize(back->object.at("spec").at("strategy")),
            R"({"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":1,"maxSurge":"25%"}})");
}

TEST(ProtobufCodec, QuantityIsKubesCanonicalText) {
  constexpr std::string_view kQ = "io.k8s.apimachinery.pkg.api.resource.Quantity";
  EXPECT_EQ(Hex(Enc(kQ, J(R"("1.5")"))), "0a05" + Hex("1500m"));
  EXPECT_EQ(Hex(Enc(kQ, J("2"))), "0a0132");
  EXPECT_EQ(Hex(Enc(kQ, J("null"))), "0a0130");  // the zero quantity writes "0"
  EXPECT_EQ(Dec(kQ, Unhex("0a06") + "1024Mi"), "1Gi");
  EXPECT_EQ(Dec(kQ, ""), "0");
  EXPECT_EQ(DecErr(kQ, Unhex("0a03") + "abc").code(), 400);
  const json::value limits = J(R"({"limits":{"memory":"1024Mi","cpu":"1.5"}})");
  EXPECT_EQ(json::serialize(Dec("io.k8s.api.core.v1.ResourceRequirements",
                                Enc("io.k8s.api.core.v1.ResourceRequirements", limits))),
            R"({"limits":{"cpu":"1500m","memory":"1Gi"}})");
}

TEST(ProtobufCodec, TimeAndMicroTime) {
  constexpr std::string_view kTime = "io.k8s.apimachinery.pkg.apis.meta.v1.Time";
  constexpr std::string_view kMicro = "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime";
  EXPECT_EQ(Enc(kTime, J("null")), "");
  EXPECT_EQ(Enc(kTime, J(R"("0001-01-01T00:00:00Z")")), "");  // Go's zero time: an empty message
  EXPECT_EQ(Hex(Enc(kTime, J(R"("2008-01-01T01:01:01.5Z")"))), "08cda1e6bb04" "1000");  // no fraction on the wire
  EXPECT_EQ(Hex(Enc(kTime, J(R"("2008-01-01T02:01:01+01:00")"))), "08cda1e6bb04" "1000");
  EXPECT_TRUE(Dec(kTime, "").is_null());
  EXPECT_EQ(Dec(kTime, Unhex("0800 1000")), "1970-01-01T00:00:00Z");
  EXPECT_EQ(Dec(kTime, Unhex("08cda1e6bb04 10ffffffff0f")), "2008-01-01T01:01:01Z");  // nanos ignored
  std::string zero;
  AppendKey(zero, 1, WireType::kVarint);
  AppendVarint(zero, static_cast<uint64_t>(int64_t{-62135596800}));
  EXPECT_TRUE(Dec(kTime, zero).is_null());

  const std::string micro = Enc(kMicro, J(R"("2008-01-01T01:01:01.123456Z")"));
  EXPECT_EQ(Hex(micro), "08cda1e6bb04" "108094ef3a");  // 123456000 ns
  EXPECT_EQ(Dec(kMicro, micro), "2008-01-01T01:01:01.123456Z");
  EXPECT_EQ(Dec(kMicro, Unhex("08cda1e6bb04 10959aef3a")), "2008-01-01T01:01:01.123456Z");  // 123456789 ns truncated
  EXPECT_EQ(BuiltinCodec().Encode(kMicro, J(R"("2008-01-01T01:01:01Z")")).status().code(), 500);
  // A non-pointer Time field with omitempty is still written (empty) and decodes to null.
  const json::value ev = J(R"({"eventTime":null})");
  const json::value back = Dec("io.k8s.api.core.v1.Event", Enc("io.k8s.api.core.v1.Event", ev));
  EXPECT_TRUE(back.at("eventTime").is_null());
  EXPECT_TRUE(back.at("firstTimestamp").is_null());
}

TEST(ProtobufCodec, Duration) {
  constexpr std::string_view kDuration = "io.k8s.apimachinery.pkg.apis.meta.v1.Duration";
  std::string want;
  AppendKey(want, 1, WireType::kVarint);
  AppendVarint(want, 3723000000000ull);
  EXPECT_EQ(Enc(kDuration, J(R"("1h2m3s")")), want);
  EXPECT_EQ(Dec(kDuration, want), "1h2m3s");
  EXPECT_EQ(Dec(kDuration, ""), "0s");
  EXPECT_EQ(Hex(Enc(kDuration, J("null"))), "0800");
  EXPECT_EQ(BuiltinCodec().Encode(kDuration, J(R"("soon")")).status().code(), 500);
}

TEST(ProtobufCodec, RawExtensionHoldsJsonText) {
  constexpr std::string_view kRevision = "io.k8s.api.apps.v1.ControllerRevision";
  const json::value rev = J(R"({"data":{"spec":{"replicas":1},"b":[true,null]},"revision":3})");
  const std::string raw = Enc(kRevision, rev);
  EXPECT_NE(raw.find(R"({"spec":{"replicas":1},"b":[true,null]})"), std::string::npos) << Hex(raw);
  const json::value back = Dec(kRevision, raw);
  EXPECT_EQ(json::serialize(back.at("data")), R"({"spec":{"replicas":1},"b":[true,null]})");
  EXPECT_EQ(back.at("revision"), 3);
  EXPECT_TRUE(Dec(kRevision, Enc(kRevision, J(R"({"revision":1})"))).at("data").is_null());
  EXPECT_EQ(DecErr("io.k8s.apimachinery.pkg.runtime.RawExtension", Unhex("0a02") + "{x").code(), 400);
}

TEST(ProtobufCodec, ListsAndTheirEmptyForms) {
  const GroupVersionKind list_gvk{"", "v1", "ConfigMapList"};
  const json::value list = J(R"({"metadata":{"resourceVersion":"7","continue":"c"},
      "items":[{"metadata":{"name":"a"},"data":{"k":"v"}},{"metadata":{"name":"b"}}]})");
  auto bytes = BuiltinCodec().EncodeObject(list_gvk, list);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto back = BuiltinCodec().DecodeObject(*bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->gvk, list_gvk);
  EXPECT_EQ(JsonDiff(J(R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"7","continue":"c"},
      "items":[{"metadata":{"name":"a","creationTimestamp":null},"data":{"k":"v"}},
               {"metadata":{"name":"b","creationTimestamp":null}}]})"),
                     back->object),
            "");
  // Go decodes no items as a nil slice, which ListMeta-style "items" (no omitempty) writes as null.
  auto empty = BuiltinCodec().EncodeObject(list_gvk, J(R"({"items":[]})"));
  ASSERT_TRUE(empty.ok());
  auto empty_back = BuiltinCodec().DecodeObject(*empty);
  ASSERT_TRUE(empty_back.ok());
  EXPECT_EQ(json::serialize(empty_back->object), R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{},"items":null})");
}

TEST(ProtobufCodec, StatusAndDeleteOptions) {
  const GroupVersionKind status_gvk{"", "v1", "Status"};
  const json::value st = J(R"({"metadata":{},"status":"Failure","message":"configmaps \"x\" not found",
      "reason":"NotFound","details":{"name":"x","kind":"configmaps"},"code":404})");
  auto bytes = BuiltinCodec().EncodeObject(status_gvk, st);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto back = BuiltinCodec().DecodeObject(*bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  json::value want = st;
  want.as_object()["kind"] = "Status";
  want.as_object()["apiVersion"] = "v1";
  EXPECT_EQ(JsonDiff(want, back->object), "");

  // A DeleteOptions body as client-go sends it, typeMeta filled from the URL's kind when empty.
  auto opts = BuiltinCodec().Encode("io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
                                    J(R"({"propagationPolicy":"Foreground","gracePeriodSeconds":0})"));
  ASSERT_TRUE(opts.ok());
  const std::string body = protobuf::EncodeEnvelope("", "", *opts);
  auto decoded = BuiltinCodec().DecodeRequestBody(body, {"", "v1", "DeleteOptions"});
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->gvk, (GroupVersionKind{"", "v1", "DeleteOptions"}));
  EXPECT_EQ(JsonDiff(J(R"({"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0,"propagationPolicy":"Foreground"})"),
                     decoded->object),
            "");
  EXPECT_EQ(BuiltinCodec().DecodeObject(body).status().message(),
            R"(Object 'Kind' is missing in 'runtime.TypeMeta{APIVersion:"", Kind:""}')");
  auto unknown = BuiltinCodec().DecodeObject(protobuf::EncodeEnvelope("v1", "Nope", ""));
  EXPECT_EQ(unknown.status().code(), 400);
  EXPECT_NE(unknown.status().message().find(R"(no kind "Nope" is registered for version "v1")"), std::string::npos);
}

TEST(ProtobufCodec, WatchFramesCarryARawEventAroundAnEnvelopedObject) {
  const json::value cm = J(R"({"metadata":{"name":"a","resourceVersion":"5"},"data":{"k":"v"}})");
  auto frame = BuiltinCodec().EncodeWatchEvent("ADDED", kConfigMapGvk, cm);
  ASSERT_TRUE(frame.ok()) << frame.status().ToString();
  auto object = BuiltinCodec().EncodeObject(kConfigMapGvk, cm);
  ASSERT_TRUE(object.ok());
  std::string same;
  ProtobufCodec::AppendWatchEventFrame(same, "ADDED", *object);
  EXPECT_EQ(*frame, same);

  protobuf::WatchFrameReader reader;
  reader.Append(*frame + *frame);
  for (int i = 0; i < 2; ++i) {
    std::string event;
    auto got = reader.Next(event);
    ASSERT_TRUE(got.ok() && *got);
    EXPECT_FALSE(protobuf::HasEnvelopeMagic(event));  // the event itself has no envelope
    EXPECT_EQ(Hex(event.substr(0, 7)), "0a05" + Hex("ADDED"));
    auto decoded = BuiltinCodec().DecodeWatchEvent(event);
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    EXPECT_EQ(decoded->type, "ADDED");
    EXPECT_EQ(decoded->gvk, kConfigMapGvk);
    EXPECT_EQ(JsonDiff(J(R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","resourceVersion":"5",
        "creationTimestamp":null},"data":{"k":"v"}})"),
                       decoded->object),
              "");
  }
  // The RawExtension option embeds objects the same way inside any message.
  protobuf::EncodeOptions embed;
  embed.raw_extension_as_protobuf = true;
  auto ev = BuiltinCodec().Encode("io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
                                  J(R"({"type":"DELETED","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}})"), embed);
  ASSERT_TRUE(ev.ok()) << ev.status().ToString();
  EXPECT_NE(ev->find(std::string("k8s\0", 4)), std::string::npos);
}

TEST(ProtobufCodec, KindsWithoutProtobufForm) {
  EXPECT_TRUE(BuiltinCodec().HasProtobufForm(kConfigMapGvk));
  EXPECT_TRUE(BuiltinCodec().HasProtobufForm({"", "v1", "Status"}));
  EXPECT_FALSE(BuiltinCodec().HasProtobufForm({"meta.k8s.io", "v1", "Table"}));
  EXPECT_FALSE(BuiltinCodec().HasProtobufForm({"example.com", "v1", "Widget"}));
  auto table = BuiltinCodec().EncodeObject({"meta.k8s.io", "v1", "Table"}, J(R"({"rows":[]})"));
  EXPECT_FALSE(table.ok());
}

TEST(ProtobufCodec, EncodeErrorsNameTheField) {
  auto bad = BuiltinCodec().EncodeObject(kConfigMapGvk, J(R"({"metadata":{"generation":"x"}})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), 500);
  EXPECT_EQ(bad.status().message(), "unable to encode ConfigMap as protobuf: metadata.generation: expected an integer, got string");
  auto label = BuiltinCodec().EncodeObject(kConfigMapGvk, J(R"({"metadata":{"labels":{"a":1}}})"));
  EXPECT_EQ(label.status().message(), "unable to encode ConfigMap as protobuf: metadata.labels[a]: expected a string, got number");
  auto item = BuiltinCodec().EncodeObject({"", "v1", "ConfigMapList"}, J(R"({"items":[{},{"data":[]}]})"));
  EXPECT_EQ(item.status().message(), "unable to encode ConfigMapList as protobuf: items[1].data: expected an object, got array");
  auto range = BuiltinCodec().Encode("io.k8s.apimachinery.pkg.util.intstr.IntOrString", J("3000000000"));
  EXPECT_FALSE(range.ok());
}

TEST(ProtobufCodec, DeepNestingIsRefused) {
  constexpr std::string_view kProps = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps";
  std::string nested;
  for (int i = 0; i < 2000; ++i) {
    std::string outer;
    AppendLengthDelimited(outer, 28, nested);  // "not"
    nested = std::move(outer);
  }
  Status st = DecErr(kProps, nested);
  EXPECT_EQ(st.code(), 400);
  EXPECT_NE(st.message().find("nested"), std::string::npos) << st.message();

  json::value deep = json::object();
  for (int i = 0; i < 2000; ++i) {
    json::object o;
    o["not"] = std::move(deep);
    deep = std::move(o);
  }
  auto enc = BuiltinCodec().Encode(kProps, deep);
  EXPECT_FALSE(enc.ok());
  // 100 levels are fine both ways.
  json::value ok = json::object();
  for (int i = 0; i < 100; ++i) {
    json::object o;
    o["not"] = std::move(ok);
    ok = std::move(o);
  }
  EXPECT_EQ(JsonDiff(ok, Dec(kProps, Enc(kProps, ok))), "");
}

TEST(ProtobufCodec, EveryTruncationOfAnObjectFailsCleanly) {
  const json::value pod = J(R"({"metadata":{"name":"p","labels":{"a":"b"},"creationTimestamp":"2024-01-02T03:04:05Z"},
      "spec":{"containers":[{"name":"c","image":"nginx","ports":[{"containerPort":80}],
        "resources":{"limits":{"cpu":"500m"}},"env":[{"name":"E","value":"v"}]}],
        "volumes":[{"name":"v","configMap":{"name":"cm","defaultMode":420}}]},
      "status":{"phase":"Running","startTime":"2024-01-02T03:04:06Z"}})");
  auto bytes = BuiltinCodec().EncodeObject({"", "v1", "Pod"}, pod);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto full = BuiltinCodec().DecodeObject(*bytes);
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  auto again = BuiltinCodec().EncodeObject({"", "v1", "Pod"}, full->object);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *bytes);
  int failed = 0;
  for (size_t n = 0; n < bytes->size(); ++n) {
    auto r = BuiltinCodec().DecodeObject(std::string_view(*bytes).substr(0, n));
    if (!r.ok()) {
      ++failed;
      EXPECT_EQ(r.status().code(), 400);
    }
  }
  EXPECT_GT(failed, static_cast<int>(bytes->size()) / 2);
  // Single-byte corruptions decode or fail, never crash.
  for (size_t i = 4; i < bytes->size(); ++i) {
    for (unsigned char x : {0x00, 0x7f, 0x80, 0xff}) {
      std::string b = *bytes;
      b[i] = static_cast<char>(x);
      auto r = BuiltinCodec().DecodeObject(b);
      if (!r.ok()) EXPECT_EQ(r.status().code(), 400);
    }
  }
}

TEST(ProtobufCodec, OneShotHelpersMatchTheCodec) {
  const json::value cm = J(R"({"metadata":{"name":"a"},"binaryData":{"b":"AQI="}})");
  auto raw = EncodeProtobuf(BuiltinRegistry(), kConfigMap, cm);
  ASSERT_TRUE(raw.ok()) << raw.status().ToString();
  EXPECT_EQ(*raw, Enc(kConfigMap, cm));
  auto back = DecodeProtobuf(BuiltinRegistry(), kConfigMap, *raw);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(JsonDiff(Dec(kConfigMap, *raw), *back), "");
  auto obj = EncodeProtobufObject(BuiltinRegistry(), kConfigMapGvk, cm);
  ASSERT_TRUE(obj.ok());
  auto decoded = DecodeProtobufObject(BuiltinRegistry(), *obj);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->gvk, kConfigMapGvk);
  EXPECT_EQ(decoded->object.at("binaryData").at("b"), "AQI=");
  EXPECT_EQ(DecodeProtobuf(BuiltinRegistry(), "io.k8s.NoSuch", "").status().code(), 404);
}

TEST(ProtobufCodec, BytesMapValues) {
  // binaryData: a nil value leaves field 2 out of its entry; a missing value decodes as "".
  EXPECT_EQ(Hex(Enc(kConfigMap, J(R"({"binaryData":{"k":null,"z":"AQI="}})"))).substr(36),
            "1a03" "0a016b" "1a07" "0a017a" "12020102");
  EXPECT_EQ(json::serialize(Dec(kConfigMap, Unhex("1a03 0a016b")).at("binaryData")), R"({"k":""})");
  // Go's base64 decoder skips line breaks anywhere (a Secret's data written with folded lines).
  EXPECT_EQ(Enc(kConfigMap, J(R"({"binaryData":{"z":"A\r\nQ\nI="}})")), Enc(kConfigMap, J(R"({"binaryData":{"z":"AQI="}})")));
}


TEST(ProtobufCodec, ApiextensionsSchemaUnions) {
  constexpr std::string_view kProps = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps";
  // additionalProperties (30): JSONSchemaPropsOrBool {1 allows, 2 schema}.
  const std::string closed = Enc(kProps, J(R"({"additionalProperties":false})"));
  EXPECT_NE(Hex(closed).find("f201020800"), std::string::npos) << Hex(closed);
  const json::value schema = J(R"({"type":"object","additionalProperties":{"type":"string"},
      "properties":{"a":{"type":"array","items":{"type":"integer","minimum":1.5}},
                    "b":{"type":"array","items":[{"type":"string"},{"type":"boolean"}]},
                    "c":{"x-kubernetes-int-or-string":true,"default":{"k":[1,"two",null]},"enum":["x",2,{"y":true}]}},
      "dependencies":{"a":["b","c"],"b":{"required":["a"]}},
      "required":["a"],"x-kubernetes-preserve-unknown-fields":true})");
  EXPECT_EQ(JsonDiff(schema, Dec(kProps, Enc(kProps, schema))), "");
  EXPECT_EQ(JsonDiff(J(R"({"additionalProperties":true})"), Dec(kProps, Enc(kProps, J(R"({"additionalProperties":true})")))), "");
  EXPECT_EQ(JsonDiff(J(R"({"additionalProperties":false})"), Dec(kProps, closed)), "");
}

}  // namespace
}  // namespace capstan::apimachinery

namespace capstan::apimachinery::testing {
namespace {

// A CRD whose openAPIV3Schema nests `levels` schemas (properties -> name -> schema: two messages each).
boost::json::value DeepCrd(int levels) {
  std::string schema = R"({"type":"string"})";
  for (int i = 0; i < levels; ++i) schema = R"({"type":"object","properties":{"n":)" + schema + "}}";
  boost::json::parse_options opts;
  opts.max_depth = 10000;
  return boost::json::parse(R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
    "metadata":{"name":"deeps.example.com"},"spec":{"group":"example.com","scope":"Namespaced",
    "names":{"plural":"deeps","kind":"Deep"},"versions":[{"name":"v1","served":true,"storage":true,
    "schema":{"openAPIV3Schema":)" + schema + "}}]}}",
                            {}, opts);
}

TEST(ProtobufCodec, EveryCrdTheSchemaParserAcceptsEncodesAndDecodes) {
  // The schema parser takes 256 levels; a CRD that deep must be served to protobuf clients too.
  const GroupVersionKind gvk{"apiextensions.k8s.io", "v1", "CustomResourceDefinition"};
  auto crd = DeepCrd(256);
  auto bytes = BuiltinCodec().EncodeObject(gvk, crd);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto back = BuiltinCodec().DecodeObject(*bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  const boost::json::value* s = &back->object.at("spec").at("versions").at(0).at("schema").at("openAPIV3Schema");
  int levels = 0;
  while (s->as_object().contains("properties")) {
    s = &s->at("properties").at("n");
    ++levels;
  }
  EXPECT_EQ(levels, 256);
}

}  // namespace
}  // namespace capstan::apimachinery::testing
