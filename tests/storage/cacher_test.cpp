// The watch cache: cached objects, the WatchCache's history, and the Cacher over the embedded store
// (consistent and exact lists, watches with selector transitions, 410s, initial events and bookmarks,
// slow watchers, resume and re-list after a storage watch error, readiness, the factory's flags).
#include "storage/cacher/cacher.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <set>

#include "storage/cacher/cacher_factory.h"
#include "storage/cacher/cacher_metrics.h"
#include "storage/cacher/watch_cache.h"
#include "storage/cacher_test_util.h"

namespace capstan::storage {
namespace {

namespace json = boost::json;
using testing::CollectEvents;
using testing::Describe;
using testing::EventObject;
using testing::MakeConfigMap;
using testing::NameOf;
using testing::NextWithin;
using testing::RvOf;

std::shared_ptr<const Selection> TierSelection(const std::string& tier) {
  auto s = std::make_shared<Selection>();
  s->labels = *apimachinery::ParseLabelSelector("tier=" + tier);
  return s;
}

CachedObjectPtr Cm(const std::string& name, int64_t rev, const std::string& tier = "a", const std::string& value = "v") {
  std::string key = "/registry/configmaps/ns/" + name;
  return CachedObject::Make(key, std::string("/registry/configmaps/").size(), MakeConfigMap("ns", name, value, tier), rev,
                            nullptr, {});
}

TEST(CachedObjectTest, WritesTheResourceVersionWhereKubeDoesAndRestampsBySplicing) {
  Object o = json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns","uid":"u",
    "resourceVersion":"3","creationTimestamp":"2024-01-01T00:00:00Z","labels":{"app":"web","n":1}},"data":{"k":"<v>"}})")
                 .as_object();
  auto c = CachedObject::Make("/registry/configmaps/ns/a", 20, o, 7, nullptr, {});
  EXPECT_EQ(c->json(),
            R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns","uid":"u","resourceVersion":"7",)"
            R"("creationTimestamp":"2024-01-01T00:00:00Z","labels":{"app":"web","n":1}},"data":{"k":"\u003cv\u003e"}})");
  EXPECT_EQ(c->revision(), 7);
  EXPECT_EQ(c->name(), "a");
  EXPECT_EQ(c->namespace_(), "ns");
  EXPECT_EQ(c->Label("app"), std::optional<std::string_view>("web"));
  EXPECT_FALSE(c->Label("n").has_value()) << "non-string label values are not labels";
  EXPECT_EQ(c->Field("metadata.name"), "a");
  EXPECT_EQ(c->Field("metadata.namespace"), "ns");
  EXPECT_EQ(c->Field("spec.nodeName"), "");
  auto later = c->AtRevision(1234);
  std::string expected = c->json();
  expected.replace(expected.find("\"7\""), 3, "\"1234\"");
  EXPECT_EQ(later->json(), expected);
  EXPECT_TRUE(later->SameAttributes(*c));
}

TEST(CachedObjectTest, AmbiguousResourceVersionTextIsRewrittenNotSpliced) {
  // A nested key with the same text as the resourceVersion pair: the splice would be ambiguous.
  Object o = json::parse(R"({"data":{"x":{"resourceVersion":"7"}},"metadata":{"name":"a"}})").as_object();
  auto c = CachedObject::Make("/registry/things/a", 17, o, 7, nullptr, {});
  auto later = c->AtRevision(8);
  json::object p = json::parse(later->json()).as_object();
  EXPECT_EQ(p["metadata"].as_object()["resourceVersion"], "8");
  EXPECT_EQ(p["data"].as_object()["x"].as_object()["resourceVersion"], "7");
}

TEST(CachedObjectTest, OtherEncodingsAreMadeOncePerFormAndVersion) {
  auto c = Cm("a", 7);
  int calls = 0;
  EncodingMemo::Encode upper = [&](std::string_view json) -> std::optional<std::string> {
    ++calls;
    std::string out(json);
    for (auto& ch : out) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return out;
  };
  auto first = c->Encoded("upper", upper);
  ASSERT_NE(first, nullptr);
  EXPECT_NE(first->find("\"RESOURCEVERSION\":\"7\""), std::string::npos) << *first;
  EXPECT_EQ(c->Encoded("upper", upper), first) << "the same bytes, shared";
  EXPECT_EQ(calls, 1);
  EncodingMemo::Encode size = [&](std::string_view json) -> std::optional<std::string> {
    ++calls;
    return std::to_string(json.size());
  };
  EXPECT_EQ(*c->Encoded("size", size), std::to_string(c->json().size()));
  EXPECT_EQ(c->Encoded("upper", upper), first);
  EXPECT_EQ(calls, 2);
  // A failed encoding is not kept: the next caller tries again.
  EncodingMemo::Encode fail = [&](std::string_view) -> std::optional<std::string> {
    ++calls;
    return std::nullopt;
  };
  EXPECT_EQ(c->Encoded("fail", fail), nullptr);
  EXPECT_EQ(c->Encoded("fail", fail), nullptr);
  EXPECT_EQ(calls, 4);
  // Another version of the object has its own encodings (its resourceVersion differs).
  auto later = c->AtRevision(9);
  ASSERT_NE(later, nullptr);
  auto restamped = later->Encoded("upper", upper);
  EXPECT_NE(restamped->find("\"RESOURCEVERSION\":\"9\""), std::string::npos) << *restamped;
  EXPECT_EQ(calls, 5);
}

TEST(CachedObjectTest, ConcurrentCallersAgreeOnOneEncoding) {
  auto c = Cm("a", 7);
  std::atomic<int> calls{0};
  EncodingMemo::Encode e = [&](std::string_view json) -> std::optional<std::string> {
    ++calls;
    return std::string(json) + "!";
  };
  std::vector<std::future<SerializedObject>> got;
  for (int i = 0; i < 8; ++i) got.push_back(std::async(std::launch::async, [&] { return c->Encoded("bang", e); }));
  std::set<std::string> values;
  for (auto& f : got) values.insert(*f.get());
  EXPECT_EQ(values, (std::set<std::string>{c->json() + "!"}));
  EXPECT_GE(calls.load(), 1);
  auto kept = c->Encoded("bang", e);
  int before = calls.load();
  EXPECT_EQ(c->Encoded("bang", e), kept);
  EXPECT_EQ(calls.load(), before) << "once published, nobody encodes again";
}

TEST(CachedObjectTest, SelectorsMatchOnKeptLabelsAndFields) {
  Object o = MakeConfigMap("ns", "a", "v", "web");
  auto c = CachedObject::Make("/registry/configmaps/ns/a", 20, o, 5,
                              [](const Object&) {
                                apimachinery::FieldSet f;
                                f["metadata.name"] = "a";
                                f["status.phase"] = "Running";
                                return f;
                              },
                              {});
  auto sel = [](const std::string& l, const std::string& f) {
    Selection s;
    s.labels = *apimachinery::ParseLabelSelector(l);
    s.fields = *apimachinery::ParseFieldSelector(f);
    return s;
  };
  EXPECT_TRUE(c->Matches(sel("tier=web", "")));
  EXPECT_TRUE(c->Matches(sel("tier in (web,db),!canary", "status.phase=Running,metadata.namespace=ns")));
  EXPECT_FALSE(c->Matches(sel("tier=db", "")));
  EXPECT_FALSE(c->Matches(sel("", "status.phase!=Running")));
  EXPECT_FALSE(c->Matches(sel("", "metadata.name=b")));
  EXPECT_TRUE(c->Matches(sel("", "spec.nodeName=")));
}

TEST(WatchCacheTest, ServesPastStatesFromTheRingAndForgetsEvictedHistory) {
  FakeClock clock;
  WatchCache wc({2, 2, std::chrono::seconds(75), &clock});
  wc.Replace({Cm("a", 5), Cm("b", 6)}, 10);
  EXPECT_EQ(wc.revision(), 10);
  EXPECT_EQ(wc.oldest_servable(), 10);
  auto names_at = [&](int64_t at) {
    std::vector<std::string> out;
    wc.ForEachAt(at, "/registry/configmaps/", "", [&](const CachedObjectPtr& o) {
      out.push_back(std::string(o->name()) + "@" + std::to_string(o->revision()));
      return true;
    });
    return out;
  };
  wc.Apply(MakeCachedEvent(*wc.Find("/registry/configmaps/ns/a"), Cm("a", 11), 11));
  wc.Apply(MakeCachedEvent(nullptr, Cm("c", 12), 12));
  EXPECT_EQ(names_at(12), (std::vector<std::string>{"a@11", "b@6", "c@12"}));
  EXPECT_EQ(names_at(11), (std::vector<std::string>{"a@11", "b@6"}));
  EXPECT_EQ(names_at(10), (std::vector<std::string>{"a@5", "b@6"}));
  // A third change evicts the first: revision 10 is no longer servable, 11 is.
  wc.Apply(MakeCachedEvent(*wc.Find("/registry/configmaps/ns/b"), nullptr, 13));
  EXPECT_EQ(wc.oldest_servable(), 11);
  EXPECT_EQ(names_at(11), (std::vector<std::string>{"a@11", "b@6"}));
  EXPECT_EQ(names_at(13), (std::vector<std::string>{"a@11", "c@12"}));
  std::vector<CachedEventPtr> after;
  wc.EventsAfter(11, after);
  ASSERT_EQ(after.size(), 2u);
  EXPECT_EQ(after[0]->revision, 12);
  EXPECT_EQ(after[1]->type, CachedEvent::Type::kDeleted);
  EXPECT_EQ(after[1]->object->revision(), 13) << "a deletion carries the last state at its revision";
}

TEST(WatchCacheTest, RingGrowsWhileItsChangesAreFreshAndShrinksWhenStale) {
  FakeClock clock;
  WatchCache wc({2, 8, std::chrono::seconds(75), &clock});
  wc.Replace({}, 1);
  for (int i = 0; i < 8; ++i) wc.Apply(MakeCachedEvent(nullptr, Cm("o" + std::to_string(i), 2 + i), 2 + i));
  EXPECT_EQ(wc.capacity(), 8u);
  EXPECT_EQ(wc.oldest_servable(), 1) << "nothing evicted while growing";
  clock.Advance(std::chrono::seconds(100));
  wc.Apply(MakeCachedEvent(nullptr, Cm("late", 20), 20));
  EXPECT_EQ(wc.capacity(), 4u);
  EXPECT_GT(wc.oldest_servable(), 1);
}

TEST(WatchCacheTest, ReplaceReturnsTheDifferenceInRevisionOrder) {
  WatchCache wc({});
  wc.Replace({Cm("a", 5), Cm("b", 6), Cm("c", 7)}, 10);
  auto changes = wc.Replace({Cm("a", 5), Cm("c", 14, "b"), Cm("d", 12)}, 20);
  std::vector<std::string> got;
  for (const auto& e : changes) {
    got.push_back(std::to_string(static_cast<int>(e->type)) + std::string(e->object->name()) + "@" +
                  std::to_string(e->revision));
  }
  // d added at 12, c modified at 14, b deleted at the list's revision.
  EXPECT_EQ(got, (std::vector<std::string>{"0d@12", "1c@14", "2b@20"}));
  EXPECT_EQ(wc.oldest_servable(), 20);
}

class CacherTest : public testing::StoreFixture {};

TEST_F(CacherTest, ListsFromMemoryWithSelectorsPagingAndSharedJson) {
  for (int i = 0; i < 5; ++i) Create("ns", "cm" + std::to_string(i), "v", i % 2 ? "odd" : "even");
  Create("other", "x");
  CacherMetrics& m = metrics_;
  CacherConfig c = Config();
  c.metrics = &m;
  Cacher& cache = MakeCacher(std::move(c));
  ListOptions lo;
  lo.accept_serialized = true;
  lo.selection = TierSelection("even");
  lo.predicate = [](const Object& o) { return o.at("metadata").at("labels").at("tier") == "even"; };
  lo.predicate_empty = false;
  auto r = SyncWait(cache.GetList("/registry/configmaps/ns", lo));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->items.empty());
  ASSERT_EQ(r->serialized.size(), 3u);
  EXPECT_EQ(NameOf(json::parse(*r->serialized[1]).as_object()), "cm2");
  EXPECT_EQ(r->revision, Revision());
  EXPECT_EQ(m.consistent_read.Find({"/configmaps", "true", "false"})->Value(), 1);
  // The same bytes are shared, not copied, by a second list.
  auto again = SyncWait(cache.GetList("/registry/configmaps/ns", lo));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->serialized[0].get(), r->serialized[0].get());

  ListOptions page;
  page.limit = 2;
  auto p1 = SyncWait(cache.GetList("/registry/configmaps/ns", page));
  ASSERT_TRUE(p1.ok());
  ASSERT_EQ(p1->items.size(), 2u);
  EXPECT_EQ(p1->remaining_item_count, 3);
  Update("ns", "cm4", "changed");  // later writes are not seen by the following pages
  Create("ns", "cm5");
  std::vector<std::string> names{NameOf(p1->items[0]), NameOf(p1->items[1])};
  std::string token = p1->continue_token;
  while (!token.empty()) {
    ListOptions next;
    next.limit = 2;
    next.continue_token = token;
    auto p = SyncWait(cache.GetList("/registry/configmaps/ns", next));
    ASSERT_TRUE(p.ok()) << p.status().message();
    EXPECT_EQ(p->revision, p1->revision);
    for (auto& i : p->items) {
      names.push_back(NameOf(i));
      if (NameOf(i) == "cm4") EXPECT_EQ(i.at("data").at("k"), "v");
    }
    token = p->continue_token;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"cm0", "cm1", "cm2", "cm3", "cm4"}));
}

// As kube 1.32's watch cache: continuations and exact-revision reads go to the store, which answers
// 410 once the revision is compacted although the cache still holds it; a limit at
// resourceVersion 0 is ignored.
TEST_F(CacherTest, ContinuationsAndExactReadsGoToTheStoreAndALimitAtZeroIsIgnored) {
  Cacher& cache = MakeCacher();
  for (int i = 0; i < 4; ++i) Create("ns", "cm" + std::to_string(i));
  ListOptions page;
  page.limit = 2;
  auto p1 = SyncWait(cache.GetList("/registry/configmaps/ns", page));
  ASSERT_TRUE(p1.ok());
  ASSERT_FALSE(p1->continue_token.empty());
  ListOptions exact;
  exact.resource_version = std::to_string(p1->revision);
  exact.match = ResourceVersionMatch::kExact;
  ASSERT_TRUE(SyncWait(cache.GetList("/registry/configmaps/ns", exact)).ok());

  Create("ns", "later");
  ASSERT_TRUE(SyncWait(backend_->Compact(Revision())).ok());
  ListOptions next;
  next.limit = 2;
  next.continue_token = p1->continue_token;
  auto p2 = SyncWait(cache.GetList("/registry/configmaps/ns", next));
  ASSERT_FALSE(p2.ok());
  EXPECT_EQ(p2.status().code(), 410);
  EXPECT_NE(p2.status().message().find("inconsistent list"), std::string::npos) << p2.status().message();
  auto old = SyncWait(cache.GetList("/registry/configmaps/ns", exact));
  ASSERT_FALSE(old.ok());
  EXPECT_EQ(old.status().code(), 410);

  ListOptions any;
  any.resource_version = "0";
  any.limit = 2;
  auto all = SyncWait(cache.GetList("/registry/configmaps/ns", any));
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->items.size(), 5u);
  EXPECT_TRUE(all->continue_token.empty());
}

TEST_F(CacherTest, ConsistentListWaitsForTheCacheAndFallsBackWhenItCannotCatchUp) {
  CacherConfig c = Config();
  c.fresh_timeout = std::chrono::milliseconds(300);
  CacherMetrics& m = metrics_;
  c.metrics = &m;
  Cacher& cache = MakeCacher(std::move(c));
  // A write the cache may not have seen yet is in the next consistent list.
  Create("ns", "a");
  auto r = SyncWait(cache.GetList("/registry/configmaps/ns", {}));
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->items.size(), 1u);
  // Now the cache's storage watch is down and held: a consistent list is answered by the store.
  gate_->HoldWatches(true);
  cache.FailStorageWatchForTest(Status::Storage(StorageCode::kUnavailable, "test"));
  ASSERT_TRUE(gate_->WaitForHeldWatch());
  Create("ns", "b");
  auto r2 = SyncWait(cache.GetList("/registry/configmaps/ns", {}));
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->items.size(), 2u);
  EXPECT_EQ(m.consistent_read.Find({"/configmaps", "true", "true"})->Value(), 1);
  // resourceVersion=0 is served from the (stale) cache.
  ListOptions any;
  any.resource_version = "0";
  auto r3 = SyncWait(cache.GetList("/registry/configmaps/ns", any));
  ASSERT_TRUE(r3.ok());
  EXPECT_EQ(r3->items.size(), 1u);
  gate_->HoldWatches(false);
  ListOptions fresh;
  fresh.resource_version = std::to_string(Revision());
  fresh.match = ResourceVersionMatch::kNotOlderThan;
  auto r4 = SyncWait(cache.GetList("/registry/configmaps/ns", fresh));
  ASSERT_TRUE(r4.ok());
  EXPECT_EQ(r4->items.size(), 2u);
}

TEST_F(CacherTest, WithoutInOrderProgressAnswersAConsistentListTheCacheIsBehindOnGoesToTheStoreAtOnce) {
  // etcd before 3.4.31/3.5.13: a progress answer cannot prove the cache fresh, so the cache must not
  // wait for one (fresh_timeout is an hour here: waiting would hang the test).
  CacherConfig c = Config();
  c.fresh_timeout = std::chrono::hours(1);
  std::atomic<int> asked{0};
  c.progress_reliable = [&asked] {
    ++asked;
    return false;
  };
  CacherMetrics& m = metrics_;
  c.metrics = &m;
  Cacher& cache = MakeCacher(std::move(c));
  Create("ns", "a");
  // Fresh enough already (the cache saw "a", or the store answers): no wait either way.
  auto r = SyncWait(cache.GetList("/registry/configmaps/ns", {}));
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->items.size(), 1u);
  gate_->HoldWatches(true);
  cache.FailStorageWatchForTest(Status::Storage(StorageCode::kUnavailable, "test"));
  ASSERT_TRUE(gate_->WaitForHeldWatch());
  Create("ns", "b");
  int before = asked.load();
  auto list = std::async(std::launch::async, [&] { return SyncWait(cache.GetList("/registry/configmaps/ns", {})); });
  ASSERT_EQ(list.wait_for(std::chrono::seconds(60)), std::future_status::ready) << "the consistent list waited";
  auto r2 = list.get();
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->items.size(), 2u);
  EXPECT_GT(asked.load(), before);
  EXPECT_GE(m.consistent_read.Find({"/configmaps", "true", "true"})->Value(), 1);
  // A GET at a revision the cache has not seen goes to the store as well.
  GetOptions g;
  g.resource_version = std::to_string(Revision());
  auto get = std::async(std::launch::async, [&] { return SyncWait(cache.Get("/registry/configmaps/ns/b", g)); });
  ASSERT_EQ(get.wait_for(std::chrono::seconds(60)), std::future_status::ready) << "the GET waited";
  EXPECT_TRUE(get.get().ok());
  gate_->HoldWatches(false);
}

TEST_F(CacherTest, FutureResourceVersionsGetTheStoresAnswer) {
  Cacher& cache = MakeCacher();
  ListOptions lo;
  lo.resource_version = "999999";
  lo.match = ResourceVersionMatch::kNotOlderThan;
  auto r = SyncWait(cache.GetList("/registry/configmaps/ns", lo));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), 504);
  EXPECT_EQ(r.status().message(), "Timeout: Too large resource version: 999999, current: " + std::to_string(Revision()));
  GetOptions g;
  g.resource_version = "999999";
  EXPECT_EQ(SyncWait(cache.Get(Key("ns", "a"), g)).status().code(), 504);
}

TEST_F(CacherTest, GetWithAResourceVersionIsServedFromTheCache) {
  Object a = Create("ns", "a");
  Cacher& cache = MakeCacher();
  GetOptions g;
  g.resource_version = RvOf(a);
  auto r = SyncWait(cache.Get(Key("ns", "a"), g));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r, a);
  auto missing = SyncWait(cache.Get(Key("ns", "zz"), g));
  EXPECT_TRUE(missing.status().IsStorage(StorageCode::kKeyNotFound));
  g.ignore_not_found = true;
  auto empty = SyncWait(cache.Get(Key("ns", "zz"), g));
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST_F(CacherTest, ExactListsAreServedWhileTheRingHoldsTheRevisionElseByTheStore) {
  Create("ns", "a");
  Cacher& cache = MakeCacher();
  int64_t r0 = Revision();
  Update("ns", "a", "2");
  Create("ns", "b");
  ListOptions lo;
  lo.resource_version = std::to_string(r0);
  lo.match = ResourceVersionMatch::kExact;
  auto r = SyncWait(cache.GetList("/registry/configmaps/ns", lo));
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->items.size(), 1u);
  EXPECT_EQ(r->items[0].at("data").at("k"), "v");
  EXPECT_EQ(r->revision, r0);
  // Older than the cache's first list: the store answers (it still has that revision).
  lo.resource_version = "1";
  auto old = SyncWait(cache.GetList("/registry/configmaps/ns", lo));
  ASSERT_TRUE(old.ok());
  EXPECT_TRUE(old->items.empty());
}

TEST_F(CacherTest, WatchSendsSelectorTransitionsAsAddedAndDeleted) {
  Create("ns", "a", "1", "keep");
  Create("ns", "b", "1", "drop");
  Cacher& cache = MakeCacher();
  WatchOptions wo;
  wo.resource_version = std::to_string(Revision());
  wo.selection = TierSelection("keep");
  wo.accept_serialized = true;
  auto w = cache.Watch("/registry/configmaps/ns", wo);
  ASSERT_TRUE(w.ok());
  auto b_in = Update("ns", "b", "2", "keep");
  auto a_mod = Update("ns", "a", "2");
  auto a_out = Update("ns", "a", "3", "drop");
  Update("ns", "a", "4");  // not selected before or after: nothing
  auto b_del = Delete("ns", "b");
  auto events = CollectEvents(**w, 4);
  EXPECT_EQ(Describe(events), (std::vector<std::string>{"ADDED b@" + RvOf(b_in), "MODIFIED a@" + RvOf(a_mod),
                                                       "DELETED a@" + RvOf(a_out), "DELETED b@" + RvOf(b_del)}));
  ASSERT_EQ(events.size(), 4u);
  EXPECT_TRUE(events[0].serialized);
  // The object that left the selection is its previous state at the new revision.
  Object left = EventObject(events[2]);
  EXPECT_EQ(left.at("data").at("k"), "2");
  EXPECT_EQ(left.at("metadata").at("labels").at("tier"), "keep");
}

TEST_F(CacherTest, WatchFromZeroSendsTheStateThenChanges) {
  Create("ns", "a");
  Create("ns2", "b");
  Cacher& cache = MakeCacher();
  auto w = cache.Watch("/registry/configmaps/ns", {});
  ASSERT_TRUE(w.ok());
  auto first = NextWithin(**w);
  ASSERT_TRUE(first);
  ASSERT_EQ(first->size(), 1u);
  EXPECT_EQ((*first)[0].type, ObjectEvent::Type::kAdded);
  EXPECT_FALSE((*first)[0].object.empty()) << "without accept_serialized events carry parsed objects";
  auto c = Create("ns", "c");
  Create("ns2", "d");
  auto next = CollectEvents(**w, 1);
  EXPECT_EQ(Describe(next), (std::vector<std::string>{"ADDED c@" + RvOf(c)}));
  (*w)->Stop();
  auto after = NextWithin(**w);
  ASSERT_TRUE(after);
  EXPECT_TRUE(after->empty());
}

TEST_F(CacherTest, WatchFromARevisionTheRingNoLongerHoldsIs410) {
  Object a = Create("ns", "a");
  CacherConfig c = Config();
  c.capacity = 2;
  c.max_capacity = 2;
  Cacher& cache = MakeCacher(std::move(c));
  int64_t listed = Revision();
  for (int i = 0; i < 4; ++i) Update("ns", "a", std::to_string(i));
  ListOptions sync;
  ASSERT_TRUE(SyncWait(cache.GetList("/registry/configmaps", sync)).ok());
  auto stats = cache.GetStats();
  WatchOptions wo;
  wo.resource_version = std::to_string(listed);
  auto w = cache.Watch("/registry/configmaps", wo);
  ASSERT_TRUE(w.ok());
  auto events = CollectEvents(**w, 1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, ObjectEvent::Type::kError);
  EXPECT_EQ(events[0].error.code(), 410);
  EXPECT_EQ(events[0].error.reason(), "Expired");
  EXPECT_EQ(events[0].error.message(), "too old resource version: " + std::to_string(listed) + " (" +
                                           std::to_string(stats.oldest_servable) + ")");
  // From the oldest servable revision on, it works.
  wo.resource_version = std::to_string(stats.oldest_servable);
  auto ok = cache.Watch("/registry/configmaps", wo);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(CollectEvents(**ok, 2).size(), 2u);
}

TEST_F(CacherTest, SendInitialEventsEndsWithAnAnnotatedBookmark) {
  Create("ns", "a");
  Create("ns", "b");
  Cacher& cache = MakeCacher();
  WatchOptions wo;
  wo.send_initial_events = true;
  wo.progress_notify = true;
  auto w = cache.Watch("/registry/configmaps/ns", wo);
  ASSERT_TRUE(w.ok());
  auto events = CollectEvents(**w, 3);
  int64_t rev = Revision();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].type, ObjectEvent::Type::kAdded);
  EXPECT_EQ(events[1].type, ObjectEvent::Type::kAdded);
  EXPECT_EQ(events[2].type, ObjectEvent::Type::kBookmark);
  EXPECT_EQ(json::serialize(events[2].object),
            "{\"metadata\":{\"resourceVersion\":\"" + std::to_string(rev) +
                "\",\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}}}");
  // sendInitialEvents=false from "": only what changes from now.
  WatchOptions later;
  later.send_initial_events = false;
  auto w2 = cache.Watch("/registry/configmaps/ns", later);
  ASSERT_TRUE(w2.ok());
  // It starts at the store's revision when it registers (its first Next()).
  std::vector<ObjectEvent> got;
  std::thread reader([&] { got = CollectEvents(**w2, 1); });
  for (int i = 0; i < 2000 && cache.GetStats().watchers < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  auto c = Create("ns", "c");
  reader.join();
  EXPECT_EQ(Describe(got), (std::vector<std::string>{"ADDED c@" + RvOf(c)}));
}

TEST_F(CacherTest, WithoutInOrderProgressAnswersAStreamingListServesTheStoresState) {
  // etcd before 3.4.31 (Debian 12's 3.4.23): client-go's watch-list (sendInitialEvents, resourceVersion
  // "") needs the state at the store's current revision, which other resources' writes move on; no
  // progress answer can prove the cache got there. The state then comes from the store (before, every
  // streaming list failed with "Too large resource version" and client-go retried for ever).
  CacherConfig c = Config();
  c.fresh_timeout = std::chrono::seconds(30);
  c.progress_reliable = [] { return false; };
  Create("ns", "a");
  Cacher& cache = MakeCacher(std::move(c));
  auto other = SyncWait(store_->Create("/registry/secrets/ns/s", MakeConfigMap("ns", "s", "v", ""), 0));
  ASSERT_TRUE(other.ok());
  WatchOptions wo;
  wo.send_initial_events = true;
  wo.progress_notify = true;
  auto w = cache.Watch("/registry/configmaps/ns", wo);
  ASSERT_TRUE(w.ok());
  auto events = CollectEvents(**w, 2);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].type, ObjectEvent::Type::kAdded) << events[0].error.message();
  EXPECT_EQ(events[1].type, ObjectEvent::Type::kBookmark);
  EXPECT_EQ(json::serialize(events[1].object),
            "{\"metadata\":{\"resourceVersion\":\"" + std::to_string(Revision()) +
                "\",\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}}}");
  // Changes after the store's revision follow, once each.
  auto b = Create("ns", "b");
  EXPECT_EQ(Describe(CollectEvents(**w, 1)), (std::vector<std::string>{"ADDED b@" + RvOf(b)}));
}

TEST_F(CacherTest, PeriodicBookmarksAndTimeoutsFollowTheClock) {
  FakeClock clock;
  CacherConfig c = Config();
  c.clock = &clock;
  c.tick = std::chrono::milliseconds(0);
  Cacher& cache = MakeCacher(std::move(c));
  WatchOptions wo;
  wo.resource_version = std::to_string(Revision());
  wo.progress_notify = true;
  wo.timeout = std::chrono::seconds(300);
  auto w = cache.Watch("/registry/configmaps", wo);
  ASSERT_TRUE(w.ok());
  auto a = Create("ns", "a");
  EXPECT_EQ(Describe(CollectEvents(**w, 1)), (std::vector<std::string>{"ADDED a@" + RvOf(a)}));
  // Another resource moves the store on; a consistent list makes the cache learn it.
  ASSERT_TRUE(SyncWait(backend_->Put("/registry/secrets/ns/s", "{}")).ok());
  int64_t rev = Revision();
  // The list waits for a progress answer at most fresh_timeout; on a loaded machine that can pass
  // first, so ask again until the cache holds the revision (the bookmark carries it).
  for (int i = 0; i < 20 && cache.GetStats().revision < rev; ++i) {
    ASSERT_TRUE(SyncWait(cache.GetList("/registry/configmaps", {})).ok());
  }
  ASSERT_GE(cache.GetStats().revision, rev);
  cache.Tick();  // not due yet
  clock.Advance(std::chrono::seconds(61));
  cache.Tick();
  auto bm = NextWithin(**w);
  ASSERT_TRUE(bm);
  EXPECT_EQ(Describe(*bm), (std::vector<std::string>{"BOOKMARK @" + std::to_string(rev)}));
  // Past the deadline the watch ends.
  clock.Advance(std::chrono::seconds(300));
  cache.Tick();
  auto end = NextWithin(**w);
  ASSERT_TRUE(end);
  EXPECT_TRUE(end->empty());
}

TEST_F(CacherTest, AWatcherThatFallsBehindIsEndedAfterWhatItHolds) {
  CacherConfig c = Config();
  c.max_pending_events = 3;
  Cacher& cache = MakeCacher(std::move(c));
  WatchOptions wo;
  wo.resource_version = std::to_string(Revision());
  auto w = cache.Watch("/registry/configmaps", wo);
  ASSERT_TRUE(w.ok());
  auto first = Create("ns", "first");
  ASSERT_EQ(CollectEvents(**w, 1).size(), 1u);  // registered
  for (int i = 0; i < 6; ++i) Create("ns", "o" + std::to_string(i));
  ASSERT_TRUE(SyncWait(cache.GetList("/registry/configmaps", {})).ok());
  EXPECT_EQ(cache.GetStats().watchers_terminated, 1);
  EXPECT_EQ(cache.GetStats().watchers, 0u);
  auto held = CollectEvents(**w, 10);
  EXPECT_EQ(held.size(), 3u);
  auto end = NextWithin(**w);
  ASSERT_TRUE(end);
  EXPECT_TRUE(end->empty());
}

TEST_F(CacherTest, EventsWithinTheBatchWindowCollectAndComeOutAsOneBatchInOrder) {
  CacherConfig c = Config();
  c.watch_batch_window = std::chrono::hours(1);  // only FlushWatchBatches() ends a window here
  c.watch_batch_window_per_watcher = std::chrono::hours(1);
  Cacher& cache = MakeCacher(std::move(c));
  WatchOptions wo;
  wo.resource_version = std::to_string(Revision());
  wo.accept_serialized = true;
  auto w = cache.Watch("/registry/configmaps", wo);
  ASSERT_TRUE(w.ok());
  // After a quiet spell the first event is not held back (no flush needed).
  auto first = Create("ns", "first");
  auto got = CollectEvents(**w, 1);
  ASSERT_EQ(Describe(got), (std::vector<std::string>{"ADDED first@" + RvOf(first)}));

  // Within the window: what follows collects, whether the consumer waits already or comes later.
  auto next = std::async(std::launch::async, [&] { return SyncWait((*w)->Next()); });
  std::vector<std::string> want;
  for (int i = 0; i < 5; ++i) {
    auto o = Create("ns", "o" + std::to_string(i));
    want.push_back("ADDED o" + std::to_string(i) + "@" + RvOf(o));
  }
  auto m = Update("ns", "o1", "changed");
  want.push_back("MODIFIED o1@" + RvOf(m));
  ASSERT_TRUE(SyncWait(cache.GetList("/registry/configmaps", {})).ok());  // the cache has dispatched them all
  EXPECT_EQ(next.wait_for(std::chrono::seconds(0)), std::future_status::timeout);
  while (next.wait_for(std::chrono::milliseconds(5)) != std::future_status::ready) cache.FlushWatchBatches();
  auto batch = next.get();
  EXPECT_EQ(Describe(batch), want);  // one batch, in revision order

  // A window of 0 wakes the consumer at once; events pending while it is busy still come out together.
  CacherConfig c0 = Config();
  c0.watch_batch_window = std::chrono::milliseconds(0);
  Cacher& direct = MakeCacher(std::move(c0));
  wo.resource_version = std::to_string(Revision());
  auto w0 = direct.Watch("/registry/configmaps", wo);
  ASSERT_TRUE(w0.ok());
  auto a = Update("ns", "o2", "x");
  auto b = Update("ns", "o3", "y");
  ASSERT_TRUE(SyncWait(direct.GetList("/registry/configmaps", {})).ok());
  auto both = CollectEvents(**w0, 2);
  EXPECT_EQ(Describe(both), (std::vector<std::string>{"MODIFIED o2@" + RvOf(a), "MODIFIED o3@" + RvOf(b)}));
}

TEST_F(CacherTest, TheBatchWindowAlsoOpensAfterAWatchsCatchUp) {
  CacherConfig c = Config();
  c.watch_batch_window = std::chrono::hours(1);  // only FlushWatchBatches() ends a window here
  c.watch_batch_window_per_watcher = std::chrono::hours(1);
  Cacher& cache = MakeCacher(std::move(c));
  WatchOptions wo;
  wo.resource_version = std::to_string(Revision());
  wo.accept_serialized = true;
  auto w = cache.Watch("/registry/configmaps", wo);
  ASSERT_TRUE(w.ok());
  // The change is in the cache before the watcher registers (at its first Next): it comes as the
  // watch's catch-up, and the window opens after it as after any batch.
  auto first = Create("ns", "first");
  ASSERT_TRUE(SyncWait(cache.GetList("/registry/configmaps", {})).ok());
  ASSERT_EQ(Describe(CollectEvents(**w, 1)), (std::vector<std::string>{"ADDED first@" + RvOf(first)}));
  auto next = std::async(std::launch::async, [&] { return SyncWait((*w)->Next()); });
  std::vector<std::string> want;
  for (int i = 0; i < 3; ++i) {
    auto o = Create("ns", "c" + std::to_string(i));
    want.push_back("ADDED c" + std::to_string(i) + "@" + RvOf(o));
  }
  ASSERT_TRUE(SyncWait(cache.GetList("/registry/configmaps", {})).ok());
  EXPECT_EQ(next.wait_for(std::chrono::seconds(0)), std::future_status::timeout);
  while (next.wait_for(std::chrono::milliseconds(5)) != std::future_status::ready) cache.FlushWatchBatches();
  EXPECT_EQ(Describe(next.get()), want);
}

TEST_F(CacherTest, ResumesAfterAStorageWatchErrorWithoutLosingOrRepeatingChanges) {
  Cacher& cache = MakeCacher();
  WatchOptions wo;
  wo.resource_version = std::to_string(Revision());
  auto w = cache.Watch("/registry/configmaps", wo);
  ASSERT_TRUE(w.ok());
  auto a = Create("ns", "a");
  ASSERT_EQ(CollectEvents(**w, 1).size(), 1u);
  gate_->HoldWatches(true);
  cache.FailStorageWatchForTest(Status::Storage(StorageCode::kUnavailable, "fell behind"));
  ASSERT_TRUE(gate_->WaitForHeldWatch());
  auto a2 = Update("ns", "a", "2");
  auto b = Create("ns", "b");
  gate_->HoldWatches(false);
  auto events = CollectEvents(**w, 2);
  EXPECT_EQ(Describe(events), (std::vector<std::string>{"MODIFIED a@" + RvOf(a2), "ADDED b@" + RvOf(b)}));
  EXPECT_FALSE(NextWithin(**w, std::chrono::milliseconds(300))) << "nothing repeated";
  EXPECT_EQ(cache.GetStats().lists, 1);
}

TEST_F(CacherTest, RelistsAfterCompactionAndTellsWatchersTheDifference) {
  Create("ns", "a");
  Create("ns", "b");
  Create("ns", "c");
  Cacher& cache = MakeCacher();
  int64_t listed = Revision();
  WatchOptions wo;
  wo.resource_version = std::to_string(listed);
  wo.selection = TierSelection("a");
  auto w = cache.Watch("/registry/configmaps", wo);
  ASSERT_TRUE(w.ok());
  std::thread reader;
  std::vector<ObjectEvent> events;
  reader = std::thread([&] { events = CollectEvents(**w, 4); });
  for (int i = 0; i < 2000 && cache.GetStats().watchers == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(cache.GetStats().watchers, 1u);
  gate_->HoldWatches(true);
  cache.FailStorageWatchForTest(Status::Storage(StorageCode::kUnavailable, "test"));
  ASSERT_TRUE(gate_->WaitForHeldWatch());
  Update("ns", "a", "x", "a");
  auto a2 = Update("ns", "a", "2", "a");
  Update("ns", "c", "2", "b");  // leaves the selection
  Delete("ns", "b");
  auto d = Create("ns", "d");
  ASSERT_TRUE(SyncWait(backend_->Compact(Revision())).ok());
  gate_->HoldWatches(false);
  reader.join();
  int64_t relisted = cache.GetStats().revision;
  // One event per object that differs (intermediate states are gone with the compaction), in
  // revision order; a deletion is dated by the re-list.
  EXPECT_EQ(Describe(events),
            (std::vector<std::string>{"MODIFIED a@" + RvOf(a2), "DELETED c@" + std::to_string(Revision() - 2),
                                      "DELETED b@" + std::to_string(relisted), "ADDED d@" + RvOf(d)}));
  EXPECT_EQ(cache.GetStats().lists, 2);
  auto old = cache.Watch("/registry/configmaps", wo);
  ASSERT_TRUE(old.ok());
  auto err = CollectEvents(**old, 1);
  ASSERT_EQ(err.size(), 1u);
  EXPECT_EQ(err[0].error.code(), 410);
}

TEST_F(CacherTest, NotReadyUntilTheFirstListAndTheStoreAnswersMeanwhile) {
  Create("ns", "a");
  gate_->HoldRanges(true);
  Cacher cache(Config());
  EXPECT_FALSE(cache.Ready());
  auto r = SyncWait(cache.GetList("/registry/configmaps", {}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->items.size(), 1u);
  auto w = cache.Watch("/registry/configmaps", {});
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(CollectEvents(**w, 1).size(), 1u);
  gate_->HoldRanges(false);
  EXPECT_TRUE(cache.WaitReady(std::chrono::seconds(20)));
}

TEST(CacherFactoryTest, ParsesWatchCacheSizesWithKubesErrors) {
  auto ok = ParseWatchCacheSizes({"configmaps#0", "deployments.apps#100"});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->at("configmaps"), 0);
  EXPECT_EQ(ok->at("deployments.apps"), 100);
  EXPECT_EQ(ParseWatchCacheSizes({"pods"}).status().message(), "invalid value of watch cache size: pods");
  EXPECT_EQ(ParseWatchCacheSizes({"pods#x"}).status().message(), "invalid size of watch cache size: pods#x");
  EXPECT_EQ(ParseWatchCacheSizes({"pods#-1"}).status().message(), "watch cache size cannot be negative: pods#-1");
}

TEST_F(CacherTest, FactoryCachesUnlessAFlagTurnsItOff) {
  WatchCacheFlags flags;
  flags.sizes["secrets"] = 0;
  CacherFactory f(flags, *backend_, *store_, nullptr);
  ObjectStore* cms = f.For("/registry/configmaps", "", "configmaps", nullptr);
  EXPECT_NE(dynamic_cast<Cacher*>(cms), nullptr);
  EXPECT_EQ(f.For("/registry/configmaps", "", "configmaps", nullptr), cms) << "one cache per key root";
  EXPECT_EQ(f.For("/registry/secrets", "", "secrets", nullptr), store_.get());
  WatchCacheFlags off;
  off.enabled = false;
  CacherFactory g(off, *backend_, *store_, nullptr);
  EXPECT_EQ(g.For("/registry/configmaps", "", "configmaps", nullptr), store_.get());
  WatchCacheFlags no_default;
  no_default.default_size = 0;
  no_default.sizes["configmaps"] = 50;
  CacherFactory h(no_default, *backend_, *store_, nullptr);
  EXPECT_EQ(h.For("/registry/leases", "coordination.k8s.io", "leases", nullptr), store_.get());
  EXPECT_NE(dynamic_cast<Cacher*>(h.For("/registry/configmaps", "", "configmaps", nullptr)), nullptr);
  for (Cacher* c : f.cachers()) EXPECT_TRUE(c->WaitReady(std::chrono::seconds(20)));
  EXPECT_TRUE(f.Ready().ok());
}

}  // namespace
}  // namespace capstan::storage

namespace capstan::storage {
namespace {

TEST_F(CacherTest, TheRouterCachesByKeyRootEvenForStoresBuiltWithoutTheFactory) {
  Create("ns", "a", "v", "web");
  Create("ns", "b", "v", "db");
  CacherFactory f({}, *backend_, *store_, nullptr);
  ObjectStore& routed = f.Store();
  // A field the cache cannot know without the resource's strategy: matched on the parsed object.
  ListOptions lo;
  lo.selection = std::make_shared<Selection>(
      Selection{apimachinery::LabelSelector(), *apimachinery::ParseFieldSelector("data.k=v,metadata.name=b")});
  lo.predicate = [](const Object& o) { return NameOf(o) == "b"; };
  lo.predicate_empty = false;
  auto r = SyncWait(routed.GetList("/registry/configmaps/ns", lo));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->items.size(), 1u);
  auto caches = f.cachers();
  ASSERT_EQ(caches.size(), 1u);
  EXPECT_EQ(caches[0]->resource_prefix(), "/registry/configmaps");
  ASSERT_TRUE(caches[0]->WaitReady(std::chrono::seconds(20)));
  auto cached = SyncWait(routed.GetList("/registry/configmaps/ns", lo));
  ASSERT_TRUE(cached.ok());
  ASSERT_EQ(cached->items.size(), 1u);
  EXPECT_EQ(NameOf(cached->items[0]), "b");
  // Writes and plain gets go to the store; they create no cache.
  ASSERT_TRUE(SyncWait(routed.Create("/registry/ranges/x", Object{{"metadata", json::object{{"name", "x"}}}}, 0)).ok());
  ASSERT_TRUE(SyncWait(routed.Get("/registry/ranges/x", {})).ok());
  EXPECT_EQ(f.cachers().size(), 1u);
  // A registered root wins over the guessed one.
  EXPECT_EQ(&routed, &f.Store());
}

}  // namespace
}  // namespace capstan::storage
