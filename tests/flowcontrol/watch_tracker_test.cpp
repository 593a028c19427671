#include "flowcontrol/watch_tracker.h"

#include <gtest/gtest.h>

namespace capstan::flowcontrol {
namespace {

WorkRequest Write(std::string verb, std::string ns, std::string name, std::string resource = "configmaps") {
  WorkRequest r;
  r.verb = std::move(verb);
  r.resource = std::move(resource);
  r.namespace_ = std::move(ns);
  r.name = std::move(name);
  return r;
}

TEST(WatchTrackerTest, CountsTheWatchesAWriteWakes) {
  WatchTracker t;
  auto all = t.Register({"", "configmaps", "", ""}, "");
  auto in_a = t.Register({"", "configmaps", "a", ""}, "");
  t.Register({"", "configmaps", "a", ""}, "");
  auto one = t.Register({"", "configmaps", "a", "x"}, "");
  t.Register({"", "configmaps", "b", ""}, "");
  t.Register({"apps", "deployments", "", ""}, "");
  ASSERT_TRUE(all && in_a && one);
  EXPECT_EQ(t.InterestedCount(Write("update", "a", "x")), 4);  // all + 2 in a + x
  EXPECT_EQ(t.InterestedCount(Write("create", "a", "")), 3);
  EXPECT_EQ(t.InterestedCount(Write("delete", "b", "y")), 2);
  EXPECT_EQ(t.InterestedCount(Write("patch", "", "")), 1);
  EXPECT_EQ(t.InterestedCount(Write("get", "a", "x")), 0);  // read-only verbs wake nobody
  EXPECT_EQ(t.InterestedCount(Write("list", "a", "")), 0);
  t.Forget(*one);
  t.Forget(*all);
  EXPECT_EQ(t.InterestedCount(Write("update", "a", "x")), 2);
}

TEST(WatchTrackerTest, NodeScopedPodWatchesAreNotCounted) {
  WatchTracker t;
  EXPECT_FALSE(t.Register({"", "pods", "", ""}, "spec.nodeName=node-1"));
  EXPECT_TRUE(t.Register({"", "pods", "", ""}, "spec.nodeName="));
  EXPECT_TRUE(t.Register({"", "pods", "", ""}, "status.phase=Running"));
  EXPECT_TRUE(t.Register({"", "configmaps", "", ""}, "spec.nodeName=node-1"));
  EXPECT_EQ(t.InterestedCount(Write("create", "ns", "", "pods")), 2);
}

}  // namespace
}  // namespace capstan::flowcontrol
