// The ObjectStore conformance suite: the WATCH cases.
#include <boost/json.hpp>

#include "storage_conformance/object_store_conformance.h"

namespace capstan::storage::conformance {

namespace json = boost::json;

namespace {
std::string Rv(const Object& o) { return std::string(o.at("metadata").at("resourceVersion").as_string()); }
}  // namespace

TEST_P(ObjectStoreConformance, WatchFromNothingSendsTheStateThenChanges) {
  for (std::string rv : {"", "0"}) {
    std::string ns = "ns" + rv;
    auto a = Create(ns, "a");
    Create("other" + rv, "b");
    WatchOptions wo;
    wo.resource_version = rv;
    auto w = store().Watch("/registry/configmaps/" + ns, wo);
    ASSERT_TRUE(w.ok());
    EXPECT_EQ(Events(**w, 1), (std::vector<std::string>{"ADDED " + NameRv(a)})) << "rv " << rv;
    auto c = Create(ns, "c");
    Create("other" + rv, "d");
    EXPECT_EQ(Events(**w, 1), (std::vector<std::string>{"ADDED " + NameRv(c)})) << "rv " << rv;
    (*w)->Stop();
  }
}

TEST_P(ObjectStoreConformance, WatchFromARevisionSendsEveryLaterChangeInOrder) {
  auto a = Create("ns", "a");
  auto a2 = Update("ns", "a", "2");
  auto b = Create("ns", "b");
  auto a3 = Delete("ns", "a");
  WatchOptions wo;
  wo.resource_version = Rv(a);
  auto w = store().Watch("/registry/configmaps", wo);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(Events(**w, 3), (std::vector<std::string>{"MODIFIED " + NameRv(a2), "ADDED " + NameRv(b),
                                                       "DELETED " + NameRv(a3)}));
}

TEST_P(ObjectStoreConformance, ADeletionCarriesTheLastStateAtTheDeletionRevision) {
  Create("ns", "a");
  auto a2 = Update("ns", "a", "last");
  WatchOptions wo;
  wo.resource_version = Rv(a2);
  auto w = store().Watch("/registry/configmaps", wo);
  ASSERT_TRUE(w.ok());
  auto gone = Delete("ns", "a");
  std::vector<ObjectEvent> raw;
  auto ev = SyncWait((*w)->Next());
  ASSERT_EQ(ev.size(), 1u);
  Object o = ev[0].serialized ? json::parse(*ev[0].serialized).as_object() : ev[0].object;
  EXPECT_EQ(ev[0].type, ObjectEvent::Type::kDeleted);
  EXPECT_EQ(o.at("data").at("k"), "last");
  EXPECT_EQ(Rv(o), Rv(gone));
  EXPECT_EQ(ev[0].revision, std::stoll(Rv(gone)));
}

TEST_P(ObjectStoreConformance, SelectorTransitionsAreAddedAndDeleted) {
  Create("ns", "a", "keep");
  auto b = Create("ns", "b", "drop");
  WatchOptions wo = WatchSelecting("tier=keep");
  wo.resource_version = Rv(b);
  auto w = store().Watch("/registry/configmaps", wo);
  ASSERT_TRUE(w.ok());
  auto b_in = Update("ns", "b", "2", "keep");
  auto a_out = Update("ns", "a", "2", "drop");
  Update("ns", "a", "3");
  auto b_mod = Update("ns", "b", "3");
  auto b_gone = Delete("ns", "b");
  EXPECT_EQ(Events(**w, 4), (std::vector<std::string>{"ADDED b@" + Rv(b_in), "DELETED a@" + Rv(a_out),
                                                       "MODIFIED " + NameRv(b_mod), "DELETED b@" + Rv(b_gone)}));
}

TEST_P(ObjectStoreConformance, FieldSelectedWatchOfOneName) {
  WatchOptions wo = WatchSelecting("", "metadata.name=x");
  wo.resource_version = std::to_string(Revision());
  auto w = store().Watch("/registry/configmaps", wo);
  ASSERT_TRUE(w.ok());
  Create("ns", "y");
  auto x = Create("ns", "x");
  Create("ns2", "z");
  EXPECT_EQ(Events(**w, 1), (std::vector<std::string>{"ADDED " + NameRv(x)}));
}

TEST_P(ObjectStoreConformance, WatchFromACompactedRevisionEndsWith410Expired) {
  // Compacted at b's revision: a watch from a's needs a's update, which is gone.
  auto a = *SyncWait(base().Create(Key("ns", "a"), json::parse(R"({"metadata":{"name":"a"}})").as_object(), 0));
  ASSERT_TRUE(SyncWait(base().GuaranteedUpdate(Key("ns", "a"), {}, false, [](const Object* e) -> Task<StatusOr<UpdateResult>> {
                Object n = *e;
                n["data"] = json::object{{"k", "2"}};
                co_return UpdateResult{n, 0};
              })).ok());
  ASSERT_TRUE(SyncWait(base().Create(Key("ns", "b"), json::parse(R"({"metadata":{"name":"b"}})").as_object(), 0)).ok());
  ASSERT_TRUE(SyncWait(backend().Compact(Revision())).ok());
  WatchOptions wo;
  wo.resource_version = Rv(a);
  auto w = store().Watch("/registry/configmaps", wo);
  ASSERT_TRUE(w.ok());
  // kube's cached and uncached texts differ here ("too old resource version: ..." / "The
  // resourceVersion for the provided watch is too old."): the code and reason are the contract.
  EXPECT_EQ(Events(**w, 1), (std::vector<std::string>{"ERROR 410 Expired"}));
  auto after = SyncWait((*w)->Next());
  EXPECT_TRUE(after.empty());
}

TEST_P(ObjectStoreConformance, AMalformedWatchResourceVersionIsRefused) {
  WatchOptions wo;
  wo.resource_version = "12x";
  auto w = store().Watch("/registry/configmaps", wo);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), 400);
}

TEST_P(ObjectStoreConformance, StoppingAWatchEndsIt) {
  auto w = store().Watch("/registry/configmaps", {});
  ASSERT_TRUE(w.ok());
  (*w)->Stop();
  EXPECT_TRUE(SyncWait((*w)->Next()).empty());
}

}  // namespace capstan::storage::conformance
