// The garbage collector's dependency graph: nodes, virtual owners, transitions to the work queues,
// owner-reference changes, deletions and invalid (cross-namespace) references.
#include "controllers/garbagecollector/graph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>

namespace capstan::controllers::gc {
namespace {

struct RecordingSink : GraphSink {
  std::vector<std::string> deletes, rate_limited, orphans;
  std::vector<std::pair<ObjectReference, ObjectReference>> invalid;
  void AttemptToDelete(const std::string& uid) override { deletes.push_back(uid); }
  void AttemptToDeleteRateLimited(const std::string& uid) override { rate_limited.push_back(uid); }
  void AttemptToOrphan(const std::string& uid) override { orphans.push_back(uid); }
  void InvalidNamespaceOwnerRef(const ObjectReference& dep, const ObjectReference& owner) override {
    invalid.emplace_back(dep, owner);
  }
  bool Deletes(const std::string& uid) const { return std::count(deletes.begin(), deletes.end(), uid) > 0; }
  void Clear() {
    deletes.clear();
    rate_limited.clear();
    orphans.clear();
    invalid.clear();
  }
};

OwnerReference Ref(const std::string& uid, const std::string& name = "owner", bool block = false,
                   const std::string& kind = "ConfigMap", const std::string& api_version = "v1") {
  OwnerReference r;
  r.api_version = api_version;
  r.kind = kind;
  r.name = name;
  r.uid = uid;
  if (block) r.block_owner_deletion = true;
  return r;
}

ObjectState Obj(const std::string& uid, const std::string& name, const std::string& ns,
                std::vector<OwnerReference> owners = {}, const std::string& kind = "ConfigMap") {
  ObjectState s;
  s.identity = ObjectReference{"v1", kind, name, uid, ns};
  s.owners = std::move(owners);
  return s;
}

class GraphTest : public ::testing::Test {
 protected:
  RecordingSink sink_;
  AbsentOwnerCache absent_;
  Graph graph_{sink_, absent_};
};

TEST_F(GraphTest, DependentLinksToObservedOwner) {
  graph_.Process(Graph::EventType::kAdd, Obj("o1", "owner", "ns"), nullptr);
  graph_.Process(Graph::EventType::kAdd, Obj("d1", "dep", "ns", {Ref("o1")}), nullptr);
  const Node* owner = graph_.Find("o1");
  ASSERT_NE(owner, nullptr);
  EXPECT_FALSE(owner->virtual_);
  EXPECT_EQ(owner->dependents, (std::set<std::string>{"d1"}));
  EXPECT_TRUE(sink_.deletes.empty()) << "a matching, observed owner needs no check";
}

TEST_F(GraphTest, UnobservedOwnerBecomesVirtualAndIsChecked) {
  graph_.Process(Graph::EventType::kAdd, Obj("d1", "dep", "ns", {Ref("o1")}), nullptr);
  const Node* owner = graph_.Find("o1");
  ASSERT_NE(owner, nullptr);
  EXPECT_TRUE(owner->virtual_);
  EXPECT_EQ(owner->identity.namespace_, "ns");
  EXPECT_EQ(owner->identity.name, "owner");
  EXPECT_TRUE(sink_.Deletes("o1"));
  // The owner shows up: the node is observed now, with its real coordinates.
  graph_.Process(Graph::EventType::kAdd, Obj("o1", "owner", "ns"), nullptr);
  EXPECT_FALSE(graph_.Find("o1")->virtual_);
  EXPECT_EQ(graph_.Find("o1")->dependents, (std::set<std::string>{"d1"}));
}

TEST_F(GraphTest, DeletingTheOwnerQueuesItsDependents) {
  graph_.Process(Graph::EventType::kAdd, Obj("o1", "owner", "ns"), nullptr);
  graph_.Process(Graph::EventType::kAdd, Obj("d1", "a", "ns", {Ref("o1")}), nullptr);
  graph_.Process(Graph::EventType::kAdd, Obj("d2", "b", "ns", {Ref("o1")}), nullptr);
  sink_.Clear();
  graph_.Process(Graph::EventType::kDelete, Obj("o1", "owner", "ns"), nullptr);
  EXPECT_EQ(graph_.Find("o1"), nullptr);
  EXPECT_TRUE(sink_.Deletes("d1"));
  EXPECT_TRUE(sink_.Deletes("d2"));
  // It is remembered as absent, so dependents do not look it up again.
  EXPECT_TRUE(absent_.Has(ObjectReference{"v1", "ConfigMap", "owner", "o1", "ns"}));
}

TEST_F(GraphTest, OrphanFinalizerOnDeletionQueuesOrphaning) {
  graph_.Process(Graph::EventType::kAdd, Obj("o1", "owner", "ns"), nullptr);
  ObjectState before = Obj("o1", "owner", "ns");
  ObjectState deleting = before;
  deleting.being_deleted = true;
  deleting.finalizers = {"orphan"};
  graph_.Process(Graph::EventType::kUpdate, deleting, &before);
  EXPECT_EQ(sink_.orphans, (std::vector<std::string>{"o1"}));
  // A later update of the same state is not a new transition.
  graph_.Process(Graph::EventType::kUpdate, deleting, &deleting);
  EXPECT_EQ(sink_.orphans.size(), 1u);
}

TEST_F(GraphTest, ForegroundDeletionMarksOwnerAndQueuesItAndDependents) {
  graph_.Process(Graph::EventType::kAdd, Obj("o1", "owner", "ns"), nullptr);
  graph_.Process(Graph::EventType::kAdd, Obj("d1", "a", "ns", {Ref("o1", "owner", true)}), nullptr);
  sink_.Clear();
  ObjectState before = Obj("o1", "owner", "ns");
  ObjectState deleting = before;
  deleting.being_deleted = true;
  deleting.finalizers = {"foregroundDeletion"};
  graph_.Process(Graph::EventType::kUpdate, deleting, &before);
  const Node* owner = graph_.Find("o1");
  ASSERT_NE(owner, nullptr);
  EXPECT_TRUE(owner->deleting_dependents);
  EXPECT_TRUE(owner->being_deleted);
  EXPECT_TRUE(sink_.Deletes("d1"));
  EXPECT_TRUE(sink_.Deletes("o1"));
  ASSERT_EQ(graph_.BlockingDependents(*owner).size(), 1u);
  // The blocking dependent goes: the owner is looked at again.
  sink_.Clear();
  graph_.Process(Graph::EventType::kDelete, Obj("d1", "a", "ns", {Ref("o1", "owner", true)}), nullptr);
  EXPECT_TRUE(sink_.Deletes("o1"));
  EXPECT_TRUE(graph_.BlockingDependents(*graph_.Find("o1")).empty());
}

TEST_F(GraphTest, AlreadyDeletingObjectSeenFirstTimeStartsItsTransition) {
  ObjectState deleting = Obj("o1", "owner", "ns");
  deleting.being_deleted = true;
  deleting.finalizers = {"foregroundDeletion"};
  graph_.Process(Graph::EventType::kAdd, deleting, nullptr);
  EXPECT_TRUE(graph_.Find("o1")->deleting_dependents);
  EXPECT_TRUE(sink_.Deletes("o1"));
}

TEST_F(GraphTest, OnlyBlockingReferencesBlock) {
  graph_.Process(Graph::EventType::kAdd, Obj("o1", "owner", "ns"), nullptr);
  graph_.Process(Graph::EventType::kAdd, Obj("d1", "a", "ns", {Ref("o1", "owner", false)}), nullptr);
  graph_.Process(Graph::EventType::kAdd, Obj("d2", "b", "ns", {Ref("o1", "owner", true)}), nullptr);
  auto blocking = graph_.BlockingDependents(*graph_.Find("o1"));
  ASSERT_EQ(blocking.size(), 1u);
  EXPECT_EQ(blocking[0]->identity.uid, "d2");
}

TEST_F(GraphTest, RemovingOrUnblockingABlockingReferenceQueuesTheOwner) {
  graph_.Process(Graph::EventType::kAdd, Obj("o1", "owner", "ns"), nullptr);
  graph_.Process(Graph::EventType::kAdd, Obj("o2", "owner2", "ns"), nullptr);
  ObjectState d = Obj("d1", "a", "ns", {Ref("o1", "owner", true), Ref("o2", "owner2", true)});
  graph_.Process(Graph::EventType::kAdd, d, nullptr);
  sink_.Clear();
  ObjectState next = Obj("d1", "a", "ns", {Ref("o2", "owner2", false)});
  graph_.Process(Graph::EventType::kUpdate, next, &d);
  EXPECT_TRUE(sink_.Deletes("o1")) << "removed blocking reference";
  EXPECT_TRUE(sink_.Deletes("o2")) << "blockOwnerDeletion turned off";
  EXPECT_TRUE(graph_.Find("o1")->dependents.empty());
  EXPECT_EQ(graph_.Find("o2")->dependents, (std::set<std::string>{"d1"}));
}

TEST_F(GraphTest, AddedOwnerReferenceLinksTheNewOwner) {
  graph_.Process(Graph::EventType::kAdd, Obj("o1", "owner", "ns"), nullptr);
  ObjectState d = Obj("d1", "a", "ns");
  graph_.Process(Graph::EventType::kAdd, d, nullptr);
  ObjectState next = Obj("d1", "a", "ns", {Ref("o1")});
  graph_.Process(Graph::EventType::kUpdate, next, &d);
  EXPECT_EQ(graph_.Find("o1")->dependents, (std::set<std::string>{"d1"}));
}

TEST_F(GraphTest, VirtualDeleteRemovesANeverSeenOwnerAndQueuesItsDependents) {
  graph_.Process(Graph::EventType::kAdd, Obj("d1", "dep", "ns", {Ref("o1")}), nullptr);
  sink_.Clear();
  graph_.VirtualDelete(graph_.Find("o1")->identity);
  EXPECT_EQ(graph_.Find("o1"), nullptr);
  EXPECT_TRUE(sink_.Deletes("d1"));
  EXPECT_TRUE(absent_.Has(ObjectReference{"v1", "ConfigMap", "owner", "o1", "ns"}));
}

TEST_F(GraphTest, VirtualDeleteDoesNotRemoveAnObservedNodeWithOtherCoordinates) {
  graph_.Process(Graph::EventType::kAdd, Obj("o1", "owner", "ns"), nullptr);
  graph_.Process(Graph::EventType::kAdd, Obj("d1", "dep", "ns", {Ref("o1", "wrong-name")}), nullptr);
  sink_.Clear();
  // The collector found no object named "wrong-name": the real owner stays, the dependent is queued.
  graph_.VirtualDelete(ObjectReference{"v1", "ConfigMap", "wrong-name", "o1", "ns"});
  ASSERT_NE(graph_.Find("o1"), nullptr);
  EXPECT_TRUE(sink_.Deletes("d1"));
}

TEST_F(GraphTest, OwnerInAnotherNamespaceIsReportedAndDependentChecked) {
  graph_.Process(Graph::EventType::kAdd, Obj("o1", "owner", "ns-a"), nullptr);
  graph_.Process(Graph::EventType::kAdd, Obj("d1", "dep", "ns-b", {Ref("o1")}), nullptr);
  ASSERT_EQ(sink_.invalid.size(), 1u);
  EXPECT_EQ(sink_.invalid[0].first.uid, "d1");
  EXPECT_EQ(sink_.invalid[0].second.namespace_, "ns-b");
  EXPECT_EQ(sink_.invalid[0].second.String(), "[v1/ConfigMap, namespace: ns-b, name: owner, uid: o1]");
  EXPECT_TRUE(sink_.Deletes("d1"));
}

TEST_F(GraphTest, OwnerObservedAfterCrossNamespaceDependentIsReported) {
  graph_.Process(Graph::EventType::kAdd, Obj("d1", "dep", "ns-b", {Ref("o1")}), nullptr);
  sink_.Clear();
  graph_.Process(Graph::EventType::kAdd, Obj("o1", "owner", "ns-a"), nullptr);
  ASSERT_EQ(sink_.invalid.size(), 1u);
  EXPECT_TRUE(sink_.Deletes("d1"));
  EXPECT_EQ(graph_.Find("o1")->identity.namespace_, "ns-a");
}

TEST_F(GraphTest, ClusterScopedOwnerMayOwnNamespacedObjects) {
  ObjectState owner = Obj("n1", "node", "", {}, "Namespace");
  graph_.Process(Graph::EventType::kAdd, owner, nullptr);
  graph_.Process(Graph::EventType::kAdd, Obj("d1", "dep", "ns", {Ref("n1", "node", false, "Namespace")}), nullptr);
  EXPECT_TRUE(sink_.invalid.empty());
  EXPECT_FALSE(sink_.Deletes("d1"));
}

TEST_F(GraphTest, MismatchedCoordinatesOfObservedOwnerQueueTheDependent) {
  graph_.Process(Graph::EventType::kAdd, Obj("o1", "owner", "ns"), nullptr);
  graph_.Process(Graph::EventType::kAdd, Obj("d1", "dep", "ns", {Ref("o1", "owner", false, "Secret")}), nullptr);
  EXPECT_TRUE(sink_.Deletes("d1"));
  EXPECT_TRUE(sink_.invalid.empty());
}

TEST_F(GraphTest, DeletedDependentWakesOwnerWaitingForDependents) {
  graph_.Process(Graph::EventType::kAdd, Obj("o1", "owner", "ns"), nullptr);
  graph_.Process(Graph::EventType::kAdd, Obj("d1", "dep", "ns", {Ref("o1")}), nullptr);
  ObjectState before = Obj("o1", "owner", "ns");
  ObjectState deleting = before;
  deleting.being_deleted = true;
  deleting.finalizers = {"foregroundDeletion"};
  graph_.Process(Graph::EventType::kUpdate, deleting, &before);
  sink_.Clear();
  graph_.Process(Graph::EventType::kDelete, Obj("d1", "dep", "ns", {Ref("o1")}), nullptr);
  EXPECT_TRUE(sink_.Deletes("o1"));
  EXPECT_TRUE(graph_.Find("o1")->dependents.empty());
}

TEST_F(GraphTest, AbsentOwnerCacheDropsLeastRecentlyUsed) {
  AbsentOwnerCache cache(2);
  ObjectReference a{"v1", "ConfigMap", "a", "1", "ns"}, b{"v1", "ConfigMap", "b", "2", "ns"},
      c{"v1", "ConfigMap", "c", "3", "ns"};
  cache.Add(a);
  cache.Add(b);
  EXPECT_TRUE(cache.Has(a));  // a is now the most recent
  cache.Add(c);               // evicts b
  EXPECT_TRUE(cache.Has(a));
  EXPECT_FALSE(cache.Has(b));
  EXPECT_TRUE(cache.Has(c));
  EXPECT_EQ(cache.size(), 2u);
}

TEST(GraphStateTest, StateOfReadsMetadata) {
  registry::Object o = boost::json::parse(R"({"metadata":{"name":"x","namespace":"ns","uid":"u1",
    "deletionTimestamp":"2024-01-01T00:00:00Z","finalizers":["orphan"],
    "ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"o","uid":"u0","blockOwnerDeletion":true}]}})")
                          .as_object();
  ObjectState s = StateOf(o, "v1", "Secret");
  EXPECT_EQ(s.identity, (ObjectReference{"v1", "Secret", "x", "u1", "ns"}));
  EXPECT_TRUE(s.being_deleted);
  EXPECT_TRUE(s.HasFinalizer("orphan"));
  ASSERT_EQ(s.owners.size(), 1u);
  EXPECT_EQ(s.owners[0].uid, "u0");
  EXPECT_TRUE(s.owners[0].block_owner_deletion.value_or(false));
}

}  // namespace
}  // namespace capstan::controllers::gc
