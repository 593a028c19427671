#include "apimachinery/managedfields/field_manager.h"

#include <gtest/gtest.h>

#include "managedfields_test_util.h"

namespace capstan::apimachinery::managedfields {
namespace {

using testing::Def;
using testing::J;
using testing::O;
namespace json = boost::json;

const json::array& MF(const json::object& o) { return o.at("metadata").at("managedFields").as_array(); }

FieldManagerScope CmScope() {
  FieldManagerScope s;
  s.schema = Def("io.k8s.api.core.v1.ConfigMap");
  s.api_version = "v1";
  return s;
}

TEST(RecordUpdate, CreateOwnsEverythingAgainstTheGoZeroObject) {
  FieldManagerScope s;
  s.schema = Def("io.k8s.api.apps.v1.Deployment");
  s.api_version = "apps/v1";
  s.reset = ResetScope::kStatus;
  s.empty_object = &GoZeroObject(s.schema);
  auto obj = O(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{"app":"d"}},
    "spec":{"replicas":1,"selector":{"matchLabels":{"app":"d"}},"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%"}},
    "template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"nginx","image":"nginx"}]}}},"status":{}})");
  RecordUpdate(s, nullptr, obj, "kubectl-create", "2026-01-01T00:00:00Z");
  const auto& mf = MF(obj);
  ASSERT_EQ(mf.size(), 1u);
  EXPECT_EQ(mf[0].at("manager"), "kubectl-create");
  EXPECT_EQ(mf[0].at("operation"), "Update");
  EXPECT_EQ(mf[0].at("apiVersion"), "apps/v1");
  EXPECT_EQ(mf[0].at("time"), "2026-01-01T00:00:00Z");
  EXPECT_EQ(testing::FieldsV1(mf[0]),
            R"({"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:replicas":{},"f:selector":{},)"
            R"("f:strategy":{"f:rollingUpdate":{".":{},"f:maxSurge":{}},"f:type":{}},)"
            R"("f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"nginx\"}":{".":{},"f:image":{},"f:name":{}}}}}}})");
}

TEST(RecordUpdate, TimeMovesOnlyWhenTheManagerGainsFields) {
  auto s = CmScope();
  auto live = O(R"({"metadata":{"name":"c"},"data":{"a":"1"}})");
  RecordUpdate(s, nullptr, live, "m1", "T1");
  auto same = live;
  RecordUpdate(s, &live, same, "m1", "T2");
  EXPECT_EQ(MF(same)[0].at("time"), "T1");
  auto changed = same;
  changed["data"].as_object()["b"] = "2";
  RecordUpdate(s, &same, changed, "m1", "T3");
  EXPECT_EQ(MF(changed).size(), 1u);
  EXPECT_EQ(MF(changed)[0].at("time"), "T3");
  EXPECT_EQ(testing::FieldsV1(MF(changed)[0]), R"({"f:data":{".":{},"f:a":{},"f:b":{}}})");
}

TEST(RecordUpdate, UntrackedObjectsStayUntracked) {
  auto s = CmScope();
  auto live = O(R"({"metadata":{"name":"c"},"data":{"a":"1"}})");
  auto next = O(R"({"metadata":{"name":"c"},"data":{"a":"2"}})");
  RecordUpdate(s, &live, next, "m1", "T1");
  EXPECT_FALSE(next.at("metadata").as_object().contains("managedFields"));
}

TEST(RecordUpdate, ResetClearsManagedFields) {
  auto s = CmScope();
  auto live = O(R"({"metadata":{"name":"c"},"data":{"a":"1"}})");
  RecordUpdate(s, nullptr, live, "m1", "T1");
  auto next = live;
  next["metadata"].as_object()["managedFields"] = J("[{}]");
  RecordUpdate(s, &live, next, "m2", "T2");
  EXPECT_FALSE(next.at("metadata").as_object().contains("managedFields"));
}

TEST(Apply, CreateConflictForceAndSharedOwnership) {
  auto s = CmScope();
  auto cfg = O(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1","b":"2"}})");
  auto created = Apply(s, nullptr, cfg, "alice", false, "T1");
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(MF(*created)[0].at("operation"), "Apply");
  EXPECT_FALSE(MF(*created)[0].as_object().contains("subresource"));
  EXPECT_EQ(testing::FieldsV1(MF(*created)[0]), R"({"f:data":{"f:a":{},"f:b":{}}})");

  // Same value: shared, no conflict.
  auto same = Apply(s, &*created, O(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}})"),
                    "bob", false, "T2");
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(MF(*same).size(), 2u);

  // Different values: a conflict per field, kube's message.
  auto conflict = Apply(s, &*same, O(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"9","b":"9"}})"),
                        "carol", false, "T3");
  ASSERT_FALSE(conflict.ok());
  EXPECT_EQ(conflict.status().code(), 409);
  EXPECT_EQ(conflict.status().reason(), "Conflict");
  EXPECT_EQ(conflict.status().message(),
            "Apply failed with 3 conflicts: conflicts with \"alice\":\n- .data.a\n- .data.b\nconflicts with \"bob\":\n- .data.a");
  ASSERT_EQ(conflict.status().details().causes.size(), 3u);
  EXPECT_EQ(conflict.status().details().causes[0].type, "FieldManagerConflict");

  auto one = Apply(s, &*same, O(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"b":"9"}})"),
                   "carol", false, "T3");
  ASSERT_FALSE(one.ok());
  EXPECT_EQ(one.status().message(), "Apply failed with 1 conflict: conflict with \"alice\": .data.b");

  auto forced = Apply(s, &*same, O(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"b":"9"}})"),
                      "carol", true, "T3");
  ASSERT_TRUE(forced.ok());
  EXPECT_EQ(forced->at("data").at("b"), "9");
  for (const auto& e : MF(*forced)) {
    if (e.at("manager") == "alice") EXPECT_EQ(testing::FieldsV1(e), R"({"f:data":{"f:a":{}}})");
    if (e.at("manager") == "carol") EXPECT_EQ(testing::FieldsV1(e), R"({"f:data":{"f:b":{}}})");
  }
}

TEST(Apply, ConflictWithAnUpdaterNamesItsApiVersion) {
  auto s = CmScope();
  auto live = O(R"({"metadata":{"name":"c"},"data":{"a":"1"}})");
  RecordUpdate(s, nullptr, live, "kubectl-edit", "T1");
  auto r = Apply(s, &live, O(R"({"metadata":{"name":"c"},"data":{"a":"2"}})"), "alice", false, "T2");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "Apply failed with 1 conflict: conflict with \"kubectl-edit\" using v1: .data.a");
  EXPECT_EQ(r.status().details().causes[0].field, ".data.a");
  EXPECT_EQ(r.status().details().causes[0].message, "conflict with \"kubectl-edit\" using v1");
}

TEST(Apply, FieldsNoLongerAppliedAreRemovedUnlessOwnedElsewhere) {
  auto s = CmScope();
  auto v1 = Apply(s, nullptr, O(R"({"metadata":{"name":"c"},"data":{"a":"1","b":"2","c":"3"}})"), "alice", false, "T1");
  ASSERT_TRUE(v1.ok());
  auto v2 = Apply(s, &*v1, O(R"({"metadata":{"name":"c"},"data":{"c":"3"}})"), "bob", false, "T2");
  ASSERT_TRUE(v2.ok());
  auto v3 = Apply(s, &*v2, O(R"({"metadata":{"name":"c"},"data":{"a":"1"}})"), "alice", false, "T3");
  ASSERT_TRUE(v3.ok());
  EXPECT_EQ(json::serialize(v3->at("data")), R"({"a":"1","c":"3"})");
  EXPECT_EQ(MF(*v3).size(), 2u);
}

TEST(Apply, DroppingTheOnlyAppliedAnnotationKeepsTheRestOfMetadata) {
  // metadata was only the parent of what the first apply set: the object keeps its name.
  auto s = CmScope();
  auto v1 = Apply(s, nullptr, O(R"({"metadata":{"name":"c","annotations":{"a":"b"}},"data":{"k":"v"}})"), "alice", false, "T1");
  ASSERT_TRUE(v1.ok());
  auto v2 = Apply(s, &*v1, O(R"({"metadata":{"name":"c"},"data":{"k":"v"}})"), "alice", false, "T2");
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  EXPECT_EQ(v2->at("metadata").at("name"), "c");
  const auto* annotations = v2->at("metadata").as_object().if_contains("annotations");
  EXPECT_TRUE(!annotations || annotations->as_object().empty()) << json::serialize(*v2);
}

TEST(Apply, UnchangedReapplyKeepsTheTime) {
  auto s = CmScope();
  auto cfg = O(R"({"metadata":{"name":"c"},"data":{"a":"1"}})");
  auto v1 = Apply(s, nullptr, cfg, "alice", false, "T1");
  ASSERT_TRUE(v1.ok());
  auto v2 = Apply(s, &*v1, cfg, "alice", false, "T2");
  ASSERT_TRUE(v2.ok());
  EXPECT_EQ(MF(*v2)[0].at("time"), "T1");
  EXPECT_EQ(json::serialize(*v1), json::serialize(*v2));
}

TEST(Apply, ExistingUntrackedObjectGetsBeforeFirstApply) {
  auto s = CmScope();
  auto live = O(R"({"metadata":{"name":"c"},"data":{"a":"1","z":"0"}})");
  auto r = Apply(s, &live, O(R"({"metadata":{"name":"c"},"data":{"a":"1"}})"), "alice", false, "T1");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(MF(*r).size(), 2u);
  EXPECT_EQ(MF(*r)[1].at("manager"), "before-first-apply");
}

TEST(Apply, StatusSubresourceOwnsOnlyStatus) {
  FieldManagerScope s;
  s.schema = Def("io.k8s.api.apps.v1.Deployment");
  s.api_version = "apps/v1";
  s.subresource = "status";
  s.reset = ResetScope::kAllButStatus;
  auto live = O(R"({"metadata":{"name":"d"},"spec":{"replicas":1},"status":{}})");
  FieldManagerScope main = s;
  main.subresource = "";
  main.reset = ResetScope::kStatus;
  RecordUpdate(main, nullptr, live, "creator", "T0");
  auto r = Apply(s, &live, O(R"({"metadata":{"name":"d"},"spec":{"replicas":5},"status":{"replicas":3}})"), "ctl", false, "T1");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (const auto& e : MF(*r)) {
    if (e.at("manager") == "ctl") {
      EXPECT_EQ(e.at("subresource"), "status");
      EXPECT_EQ(testing::FieldsV1(e), R"({"f:status":{"f:replicas":{}}})");
    }
  }
}

TEST(Decode, RejectsBadEntries) {
  auto bad_op = J(R"([{"manager":"m","operation":"Patch","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{}}])");
  EXPECT_FALSE(DecodeManagedFields(&bad_op).ok());
  auto no_type = J(R"([{"manager":"m","operation":"Update","apiVersion":"v1"}])");
  EXPECT_FALSE(DecodeManagedFields(&no_type).ok());
  auto good = J(R"([{"manager":"m","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{}}}])");
  ASSERT_TRUE(DecodeManagedFields(&good).ok());
  EXPECT_EQ(json::serialize(EncodeManagedFields(*DecodeManagedFields(&good))), json::serialize(good));
}

}  // namespace
}  // namespace capstan::apimachinery::managedfields
