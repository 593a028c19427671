// The namespace controller's status conditions: kube's types, reasons, messages and transitions.
#include "controllers/namespace/conditions.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace capstan::controllers {
namespace {

namespace json = boost::json;

const json::object* FindCondition(const Object& ns, const std::string& type) {
  for (const auto& c : ns.at("status").at("conditions").as_array()) {
    if (c.as_object().at("type") == type.c_str()) return &c.as_object();
  }
  return nullptr;
}

TEST(ConditionsTest, AllOkWritesTheFiveFalseConditions) {
  ConditionUpdater u;
  u.ContentTotals({});
  Object ns;
  EXPECT_TRUE(u.Apply(ns, "2024-01-01T00:00:00Z"));
  auto& arr = ns["status"].as_object()["conditions"].as_array();
  ASSERT_EQ(arr.size(), 5u);
  const json::object* c = FindCondition(ns, "NamespaceFinalizersRemaining");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->at("status"), "False");
  EXPECT_EQ(c->at("reason"), "ContentHasNoFinalizers");
  EXPECT_EQ(c->at("message"), "All content-preserving finalizers finished");
  EXPECT_EQ(FindCondition(ns, "NamespaceDeletionDiscoveryFailure")->at("message"),
            "All resources successfully discovered");
  EXPECT_EQ(FindCondition(ns, "NamespaceContentRemaining")->at("reason"), "ContentRemoved");
  // The same pass again changes nothing.
  EXPECT_FALSE(u.Apply(ns, "2024-01-01T00:01:00Z"));
}

TEST(ConditionsTest, RemainingContentAndFinalizersAreCountedSorted) {
  ConditionUpdater u;
  ContentTotals t;
  t.gvr_to_remaining["configmaps."] = 2;
  t.gvr_to_remaining["widgets.example.com"] = 1;
  t.finalizers_to_remaining["example.com/b"] = 1;
  t.finalizers_to_remaining["example.com/a"] = 2;
  u.ContentTotals(t);
  Object ns;
  u.Apply(ns, "t0");
  const json::object* c = FindCondition(ns, "NamespaceContentRemaining");
  EXPECT_EQ(c->at("status"), "True");
  EXPECT_EQ(c->at("reason"), "SomeResourcesRemain");
  EXPECT_EQ(c->at("message"),
            "Some resources are remaining: configmaps. has 2 resource instances, widgets.example.com has 1 resource "
            "instances");
  const json::object* f = FindCondition(ns, "NamespaceFinalizersRemaining");
  EXPECT_EQ(f->at("reason"), "SomeFinalizersRemain");
  EXPECT_EQ(f->at("message"),
            "Some content in the namespace has finalizers remaining: example.com/a in 2 resource instances, "
            "example.com/b in 1 resource instances");
}

TEST(ConditionsTest, ContentFailuresAreAggregated) {
  ConditionUpdater u;
  u.DeleteContentFailed("b failed");
  u.DeleteContentFailed("a failed");
  Object ns;
  u.Apply(ns, "t0");
  const json::object* c = FindCondition(ns, "NamespaceDeletionContentFailure");
  EXPECT_EQ(c->at("status"), "True");
  EXPECT_EQ(c->at("reason"), "ContentDeletionFailed");
  EXPECT_EQ(c->at("message"), "Failed to delete all resource types, 2 remaining: a failed, b failed");
}

TEST(ConditionsTest, TransitionTimeMovesOnlyWhenStatusChanges) {
  Object ns;
  {
    ConditionUpdater u;
    ContentTotals t;
    t.finalizers_to_remaining["x/y"] = 1;
    t.gvr_to_remaining["configmaps."] = 1;
    u.ContentTotals(t);
    u.Apply(ns, "t0");
  }
  {
    ConditionUpdater u;
    ContentTotals t;
    t.finalizers_to_remaining["x/y"] = 2;
    t.gvr_to_remaining["configmaps."] = 2;
    u.ContentTotals(t);
    EXPECT_TRUE(u.Apply(ns, "t1"));  // message changed, status did not
  }
  EXPECT_EQ(FindCondition(ns, "NamespaceFinalizersRemaining")->at("lastTransitionTime"), "t0");
  {
    ConditionUpdater u;
    u.ContentTotals({});
    EXPECT_TRUE(u.Apply(ns, "t2"));
  }
  EXPECT_EQ(FindCondition(ns, "NamespaceFinalizersRemaining")->at("lastTransitionTime"), "t2");
  EXPECT_EQ(FindCondition(ns, "NamespaceFinalizersRemaining")->at("status"), "False");
  EXPECT_EQ(FindCondition(ns, "NamespaceDeletionDiscoveryFailure")->at("lastTransitionTime"), "t0");
}

}  // namespace
}  // namespace capstan::controllers
