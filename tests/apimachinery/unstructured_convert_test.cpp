#include "apimachinery/unstructured_convert.h"

#include <gtest/gtest.h>

#include "schema_test_util.h"

namespace capstan::apimachinery {
namespace {

using testing::J;
using testing::S;

constexpr std::string_view kSchema = R"({"type":"object","properties":{
  "metadata":{"type":"object","properties":{
    "labels":{"type":"object","additionalProperties":{"type":"string"}},
    "finalizers":{"type":"array","items":{"type":"string"}}}},
  "spec":{"type":"object","properties":{
    "replicas":{"type":"integer","format":"int32"},
    "paused":{"type":"boolean"},
    "name":{"type":"string"},
    "ratio":{"type":"number"},
    "strategy":{"type":"object","properties":{"type":{"type":"string"}}},
    "port":{"x-kubernetes-int-or-string":true},
    "data":{"type":"string","format":"byte"}}}}})";

TEST(UnstructuredConvertTest, TextsOfKubesConverter) {
  auto s = S(kSchema);
  ASSERT_TRUE(s);
  EXPECT_EQ(FromUnstructuredError(J(R"({"metadata":{"labels":{"a":"b"},"finalizers":["x"]},"spec":{"replicas":2}})"), s.get()), "");
  EXPECT_EQ(FromUnstructuredError(J(R"({"metadata":{"labels":"x"}})"), s.get()), "cannot restore map from string");
  EXPECT_EQ(FromUnstructuredError(J(R"({"metadata":{"labels":[1]}})"), s.get()), "cannot restore map from slice");
  EXPECT_EQ(FromUnstructuredError(J(R"({"metadata":{"finalizers":{"a":1}}})"), s.get()), "cannot restore slice from map");
  EXPECT_EQ(FromUnstructuredError(J(R"({"spec":{"strategy":true}})"), s.get()), "cannot restore struct from: bool");
  EXPECT_EQ(FromUnstructuredError(J(R"({"spec":"x"})"), s.get()), "cannot restore struct from: string");
  EXPECT_EQ(FromUnstructuredError(J(R"({"spec":{"replicas":"x"}})"), s.get()), "unrecognized type: int32");
  EXPECT_EQ(FromUnstructuredError(J(R"({"spec":{"replicas":1.5}})"), s.get()), "cannot convert float64 to int32");
  EXPECT_EQ(FromUnstructuredError(J(R"({"spec":{"replicas":3.0}})"), s.get()), "");
  EXPECT_EQ(FromUnstructuredError(J(R"({"spec":{"name":5}})"), s.get()), "cannot convert int64 to string");
  EXPECT_EQ(FromUnstructuredError(J(R"({"spec":{"name":{}}})"), s.get()), "unrecognized type: string");
  EXPECT_EQ(FromUnstructuredError(J(R"({"spec":{"paused":"yes"}})"), s.get()), "unrecognized type: bool");
  EXPECT_EQ(FromUnstructuredError(J(R"({"spec":{"ratio":"x"}})"), s.get()), "unrecognized type: float64");
  EXPECT_EQ(FromUnstructuredError(J(R"({"spec":{"port":{}}})"), s.get()), "") << "decodes itself";
  EXPECT_EQ(FromUnstructuredError(J(R"({"spec":{"data":5}})"), s.get()), "cannot restore slice from int64");
  // The first field in declaration order wins.
  EXPECT_EQ(FromUnstructuredError(J(R"({"spec":{"paused":"x","replicas":"y"}})"), s.get()), "unrecognized type: int32");
}

}  // namespace
}  // namespace capstan::apimachinery
