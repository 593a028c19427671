// The fixture checkers must be able to fail: hand-made objects with an unknown field, a wrong JSON
// type, an unknown protobuf field number or a wrong wire type are reported.

#include <gtest/gtest.h>

#include <string>

#include "api/schemas/json_check.h"
#include "api/schemas/proto_check.h"
#include "api/schemas/schema_index.h"

namespace capstan::api::testing {
namespace {

using namespace std::string_literals;
namespace json = boost::json;

const SchemaIndex& Index() {
  static const SchemaIndex* index = [] {
    std::vector<std::string> errors;
    return SchemaIndex::Load(&errors).release();
  }();
  return *index;
}

constexpr const char* kConfigMap = "io.k8s.api.core.v1.ConfigMap";

TEST(JsonCheckTest, AcceptsAWellFormedObject) {
  json::value v = json::parse(R"({"apiVersion":"v1","kind":"ConfigMap",
    "metadata":{"name":"a","labels":{"x":"y"},"creationTimestamp":"2024-01-02T03:04:05Z","generation":3},
    "data":{"k":"v"},"binaryData":{"b":"AAEC"},"immutable":true})");
  EXPECT_TRUE(CheckJsonAgainstSchema(Index(), kConfigMap, v).empty());
}

TEST(JsonCheckTest, ReportsUnknownFieldsAndWrongTypes) {
  auto errors = CheckJsonAgainstSchema(Index(), kConfigMap, json::parse(R"({"bogus":1})"));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find(".bogus"), std::string::npos) << errors[0];

  errors = CheckJsonAgainstSchema(Index(), kConfigMap, json::parse(R"({"data":{"k":1}})"));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find(".data.k: schema type string"), std::string::npos) << errors[0];

  errors = CheckJsonAgainstSchema(Index(), kConfigMap, json::parse(R"({"metadata":{"generation":"3","creationTimestamp":"yesterday"}})"));
  EXPECT_EQ(errors.size(), 2u);

  errors = CheckJsonAgainstSchema(Index(), kConfigMap, json::parse(R"({"binaryData":{"b":"not base64!"}})"));
  EXPECT_EQ(errors.size(), 1u);

  errors = CheckJsonAgainstSchema(Index(), "io.k8s.api.core.v1.ServicePort", json::parse(R"({"targetPort":true})"));
  EXPECT_EQ(errors.size(), 1u);
  EXPECT_TRUE(CheckJsonAgainstSchema(Index(), "io.k8s.api.core.v1.ServicePort", json::parse(R"({"targetPort":"http"})")).empty());
}

TEST(ProtoCheckTest, AcceptsAWellFormedMessage) {
  // ConfigMap{metadata{name:"a"}, data{"k":"v"}, immutable:true}
  std::string msg = "\x0a\x03\x0a\x01" "a"s + "\x12\x06\x0a\x01k\x12\x01v"s + "\x20\x01"s;
  EXPECT_TRUE(CheckProtoAgainstSchema(Index(), kConfigMap, msg).empty());
}

TEST(ProtoCheckTest, ReportsUnknownFieldsWrongWireTypesAndOrder) {
  auto errors = CheckProtoAgainstSchema(Index(), kConfigMap, "\x48\x01"s);  // field 9, varint
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("field number 9"), std::string::npos) << errors[0];

  errors = CheckProtoAgainstSchema(Index(), kConfigMap, "\x10\x01"s);  // data as a varint
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("wire type varint"), std::string::npos) << errors[0];

  errors = CheckProtoAgainstSchema(Index(), kConfigMap, "\x20\x01\x0a\x00"s);  // 4 before 1
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("ascending"), std::string::npos) << errors[0];

  errors = CheckProtoAgainstSchema(Index(), kConfigMap, "\x0a\x02\x38\x01"s + "\x0a\x02\x40\x01"s);  // metadata.generation ok, field 8 (creationTimestamp) as varint
  EXPECT_EQ(errors.size(), 1u);

  errors = CheckProtoAgainstSchema(Index(), kConfigMap, "\x0a\x05\x0a\x01"s);  // truncated
  EXPECT_FALSE(errors.empty());
}

TEST(ProtoCheckTest, OpensTheEnvelope) {
  std::string pb = "k8s\0"s + "\x0a\x0f\x0a\x02v1\x12\x09" "ConfigMap"s + "\x12\x02\x20\x01"s + "\x1a\x00\x22\x00"s;
  Envelope env;
  EXPECT_TRUE(OpenEnvelope(pb, &env).empty());
  EXPECT_EQ(env.api_version, "v1");
  EXPECT_EQ(env.kind, "ConfigMap");
  EXPECT_EQ(env.raw, "\x20\x01"s);
  EXPECT_FALSE(OpenEnvelope("k8s"s, &env).empty());
  EXPECT_FALSE(OpenEnvelope("{\"kind\":1}"s, &env).empty());
}

}  // namespace
}  // namespace capstan::api::testing
