#include "apimachinery/managedfields/field_set.h"

#include <gtest/gtest.h>

#include "apimachinery/managedfields/typed.h"
#include "managedfields_test_util.h"

namespace capstan::apimachinery::managedfields {
namespace {

using testing::Def;
using testing::J;

FieldSet Parse(std::string_view text) {
  auto s = FieldSet::FromFieldsV1(J(text));
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : FieldSet();
}

std::string Ser(const FieldSet& s) { return boost::json::serialize(s.ToFieldsV1()); }

TEST(PathElement, SerializeAndPrint) {
  auto k = PathElement::Key({{"protocol", "TCP"}, {"containerPort", 80}});
  EXPECT_EQ(k.Serialize(), R"(k:{"containerPort":80,"protocol":"TCP"})");
  EXPECT_EQ(k.ToString(), R"([containerPort=80,protocol="TCP"])");
  EXPECT_EQ(PathElement::Value("a").Serialize(), R"(v:"a")");
  EXPECT_EQ(PathElement::Value("a").ToString(), R"([="a"])");
  EXPECT_EQ(PathElement::Index(3).Serialize(), "i:3");
  EXPECT_EQ(PathToString({PathElement::Field("spec"), PathElement::Field("replicas")}), ".spec.replicas");
  auto parsed = ParsePathElement(R"(k:{"protocol":"TCP","containerPort":80})");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(*parsed, k);
  EXPECT_FALSE(ParsePathElement("x:y").ok());
  EXPECT_FALSE(ParsePathElement("k:[1]").ok());
  EXPECT_FALSE(ParsePathElement("i:z").ok());
}

TEST(PathElement, OrderIsFieldsKeysValuesIndexes) {
  EXPECT_LT(PathElement::Field("z"), PathElement::Key({{"a", 1}}));
  EXPECT_LT(PathElement::Key({{"a", 1}}), PathElement::Value(1));
  EXPECT_LT(PathElement::Value(1), PathElement::Index(0));
  EXPECT_LT(PathElement::Field("a"), PathElement::Field("b"));
}

TEST(FieldSet, FieldsV1RoundTripWithDot) {
  const char* text = R"({"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:replicas":{}}})";
  FieldSet s = Parse(text);
  EXPECT_EQ(Ser(s), text);
  EXPECT_EQ(s.Size(), 3u);
  EXPECT_TRUE(s.Has({PathElement::Field("metadata"), PathElement::Field("labels")}));
  EXPECT_FALSE(s.Has({PathElement::Field("metadata")}));
}

TEST(FieldSet, Algebra) {
  FieldSet a = Parse(R"({"f:a":{},"f:b":{"f:c":{},"f:d":{}}})");
  FieldSet b = Parse(R"({"f:b":{"f:c":{}},"f:e":{}})");
  EXPECT_EQ(Ser(a.Union(b)), R"({"f:a":{},"f:b":{"f:c":{},"f:d":{}},"f:e":{}})");
  EXPECT_EQ(Ser(a.Difference(b)), R"({"f:a":{},"f:b":{"f:d":{}}})");
  EXPECT_EQ(Ser(a.Intersection(b)), R"({"f:b":{"f:c":{}}})");
  EXPECT_TRUE(a.Intersection(Parse(R"({"f:x":{}})")).Empty());
}

TEST(FieldSet, RejectsMalformed) {
  EXPECT_FALSE(FieldSet::FromFieldsV1(J(R"({"f:a":1})")).ok());
  EXPECT_FALSE(FieldSet::FromFieldsV1(J(R"({"q:a":{}})")).ok());
  EXPECT_FALSE(FieldSet::FromFieldsV1(J("[]")).ok());
}

TEST(ToFieldSet, DeploymentListMapsAndAtomicSelector) {
  auto d = J(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"x","labels":{"app":"x"}},
    "spec":{"replicas":2,"selector":{"matchLabels":{"app":"x"}},
      "template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[
        {"name":"nginx","image":"nginx","ports":[{"containerPort":80}],"args":["a","b"],"resources":{}}]}}}})");
  FieldSet s = ToFieldSet(d, Def("io.k8s.api.apps.v1.Deployment"));
  EXPECT_EQ(Ser(s),
            R"({"f:apiVersion":{},"f:kind":{},"f:metadata":{"f:labels":{"f:app":{}},"f:name":{}},)"
            R"("f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:metadata":{"f:labels":{"f:app":{}}},)"
            R"("f:spec":{"f:containers":{"k:{\"name\":\"nginx\"}":{".":{},"f:args":{},"f:image":{},"f:name":{},)"
            R"("f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{}}},)"
            R"("f:resources":{}}}}}}})");
}

TEST(ToFieldSet, SetListsAndUntyped) {
  auto v = J(R"({"metadata":{"finalizers":["a","b"]},"spec":{"x":{"y":1},"l":[1,2]}})");
  FieldSet s = ToFieldSet(v, Def("io.k8s.api.core.v1.Namespace"));
  EXPECT_TRUE(s.Has({PathElement::Field("metadata"), PathElement::Field("finalizers"), PathElement::Value("a")}));
  FieldSet u = ToFieldSet(J(R"({"spec":{"x":{"y":1},"l":[1,2]}})"), nullptr);
  EXPECT_EQ(Ser(u), R"({"f:spec":{".":{},"f:l":{},"f:x":{".":{},"f:y":{}}}})");
}

TEST(Compare, AddedModifiedRemoved) {
  auto l = J(R"({"spec":{"replicas":1,"paused":true,"template":{"spec":{"containers":[{"name":"a","image":"1"}]}}}})");
  auto r = J(R"({"spec":{"replicas":2,"minReadySeconds":3,"template":{"spec":{"containers":[{"name":"a","image":"1"},{"name":"b","image":"2"}]}}}})");
  Comparison c = Compare(&l, &r, Def("io.k8s.api.apps.v1.Deployment"));
  EXPECT_EQ(Ser(c.modified), R"({"f:spec":{"f:replicas":{}}})");
  EXPECT_EQ(Ser(c.removed), R"({"f:spec":{"f:paused":{}}})");
  EXPECT_EQ(Ser(c.added),
            R"({"f:spec":{"f:minReadySeconds":{},"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"b\"}":{".":{},"f:image":{},"f:name":{}}}}}}})");
}

TEST(Merge, ListMapMergesByKeyAndKeepsOrder) {
  auto live = J(R"({"spec":{"containers":[{"name":"a","image":"1","tty":true},{"name":"b","image":"2"}]}})");
  auto cfg = J(R"({"spec":{"containers":[{"name":"b","image":"3"},{"name":"c","image":"4"}]}})");
  auto out = Merge(live, cfg, Def("io.k8s.api.core.v1.Pod"));
  EXPECT_EQ(boost::json::serialize(out),
            R"({"spec":{"containers":[{"name":"a","image":"1","tty":true},{"name":"b","image":"3"},{"name":"c","image":"4"}]}})");
  // Atomic lists are replaced.
  auto l2 = J(R"({"spec":{"containers":[{"name":"a","args":["x","y"]}]}})");
  auto c2 = J(R"({"spec":{"containers":[{"name":"a","args":["z"]}]}})");
  EXPECT_EQ(boost::json::serialize(Merge(l2, c2, Def("io.k8s.api.core.v1.Pod"))),
            R"({"spec":{"containers":[{"name":"a","args":["z"]}]}})");
}

TEST(Prune, RemovesWhatNobodyElseOwns) {
  auto v = J(R"({"data":{"a":"1","b":"2","c":"3"}})");
  FieldSet last = Parse(R"({"f:data":{"f:a":{},"f:b":{}}})");
  FieldSet owned = Parse(R"({"f:data":{"f:a":{},"f:c":{}}})");
  PruneUnowned(v, last, owned, Def("io.k8s.api.core.v1.ConfigMap"));
  EXPECT_EQ(boost::json::serialize(v), R"({"data":{"a":"1","c":"3"}})");
}

}  // namespace
}  // namespace capstan::apimachinery::managedfields
