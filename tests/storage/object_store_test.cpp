#include "storage/backend_object_store.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>

#include "storage/embedded/embedded_backend.h"

namespace capstan::storage {
namespace {

namespace json = boost::json;

Object MakeCm(const std::string& name, const std::string& value, const std::string& label = "a") {
  return json::parse("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name +
                     "\",\"namespace\":\"default\",\"uid\":\"uid-" + name + "\",\"labels\":{\"tier\":\"" + label +
                     "\"}},\"data\":{\"k\":\"" + value + "\"}}")
      .as_object();
}

std::string Rv(const Object& o) { return std::string(o.at("metadata").at("resourceVersion").as_string()); }
std::string Name(const Object& o) { return std::string(o.at("metadata").at("name").as_string()); }

class ObjectStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("capstan-os-" + std::to_string(::getpid()) + "-" +
                                                      ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    EmbeddedOptions opts;
    opts.dir = dir_.string();
    auto b = OpenEmbeddedBackend(opts);
    ASSERT_TRUE(b.ok()) << b.status().message();
    backend_ = std::move(*b);
    store_ = std::make_unique<BackendObjectStore>(*backend_);
  }
  void TearDown() override {
    store_.reset();
    backend_.reset();
    std::filesystem::remove_all(dir_);
  }
  std::string Key(const std::string& name) { return "/registry/configmaps/default/" + name; }

  std::filesystem::path dir_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<BackendObjectStore> store_;
};

TEST_F(ObjectStoreTest, CreateSetsResourceVersionAndRejectsDuplicates) {
  auto created = SyncWait(store_->Create(Key("a"), MakeCm("a", "1"), 0));
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_FALSE(Rv(*created).empty());
  auto again = SyncWait(store_->Create(Key("a"), MakeCm("a", "1"), 0));
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(again.status().IsStorage(StorageCode::kKeyExists));
  auto got = SyncWait(store_->Get(Key("a"), {}));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(Rv(*got), Rv(*created));
  // What the Backend holds has no resourceVersion.
  auto raw = SyncWait(backend_->Get(Key("a")));
  ASSERT_TRUE(raw.ok() && raw->has_value());
  EXPECT_EQ((*raw)->value.find("resourceVersion"), std::string::npos);
}

TEST_F(ObjectStoreTest, CreateWithResourceVersionIsRefused) {
  Object o = MakeCm("a", "1");
  o["metadata"].as_object()["resourceVersion"] = "5";
  EXPECT_FALSE(SyncWait(store_->Create(Key("a"), o, 0)).ok());
}

TEST_F(ObjectStoreTest, GetMissingAndTooLargeResourceVersion) {
  auto missing = SyncWait(store_->Get(Key("nope"), {}));
  EXPECT_TRUE(missing.status().IsStorage(StorageCode::kKeyNotFound));
  GetOptions ignore;
  ignore.ignore_not_found = true;
  auto empty = SyncWait(store_->Get(Key("nope"), ignore));
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
  ASSERT_TRUE(SyncWait(store_->Create(Key("a"), MakeCm("a", "1"), 0)).ok());
  GetOptions future;
  future.resource_version = "999999";
  auto r = SyncWait(store_->Get(Key("a"), future));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), 504);
  EXPECT_NE(r.status().message().find("Too large resource version: 999999"), std::string::npos);
  GetOptions bad;
  bad.resource_version = "abc";
  EXPECT_EQ(SyncWait(store_->Get(Key("a"), bad)).status().code(), 400);
}

TEST_F(ObjectStoreTest, GuaranteedUpdateWritesRetriesAndSkipsNoOps) {
  auto created = SyncWait(store_->Create(Key("a"), MakeCm("a", "1"), 0));
  ASSERT_TRUE(created.ok());
  int calls = 0;
  auto updated = SyncWait(store_->GuaranteedUpdate(
      Key("a"), {}, false, [&](const Object* existing) -> Task<StatusOr<UpdateResult>> {
        ++calls;
        Object next = *existing;
        next["data"].as_object()["k"] = "2";
        if (calls == 1) {
          // Someone else writes in between: the store must re-read and call us again.
          auto other = co_await backend_->Put(Key("zzz"), "x");
          (void)other;
          Object conflicting = *existing;
          conflicting["data"].as_object()["k"] = "other";
          co_await store_->GuaranteedUpdate(Key("a"), {}, false,
                                            [conflicting](const Object*) -> Task<StatusOr<UpdateResult>> {
                                              co_return UpdateResult{conflicting, 0};
                                            });
        }
        co_return UpdateResult{next, 0};
      }));
  ASSERT_TRUE(updated.ok()) << updated.status().message();
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(updated->at("data").at("k").as_string(), "2");
  std::string rv = Rv(*updated);
  auto noop = SyncWait(store_->GuaranteedUpdate(Key("a"), {}, false, [](const Object* e) -> Task<StatusOr<UpdateResult>> {
    co_return UpdateResult{*e, 0};
  }));
  ASSERT_TRUE(noop.ok());
  EXPECT_EQ(Rv(*noop), rv) << "an identical object is not written";
}

// An object nested `levels` deep under "data" (ConfigMap data would refuse it; the store does not care).
Object Nested(const std::string& name, int levels) {
  std::string text;
  for (int i = 0; i < levels; ++i) text += R"({"n":)";
  text += R"("x")" + std::string(levels, '}');
  json::parse_options opts;
  opts.max_depth = 20000;
  Object o = MakeCm(name, "1");
  o["spec"] = json::parse(text, {}, opts);
  return o;
}

TEST_F(ObjectStoreTest, DeepObjectsAreReadBackUpToTheRequestBodyDepthLimit) {
  // Real CRDs nest 35-40 levels (Boost.JSON's default limit is 32); request bodies may nest 10000.
  for (int levels : {40, 1000, 9990}) {
    std::string name = "deep-" + std::to_string(levels);
    auto created = SyncWait(store_->Create(Key(name), Nested(name, levels), 0));
    ASSERT_TRUE(created.ok()) << levels << ": " << created.status().message();
    auto got = SyncWait(store_->Get(Key(name), {}));
    ASSERT_TRUE(got.ok()) << levels << ": " << got.status().message();
    EXPECT_EQ(json::serialize(got->at("spec")), json::serialize(Nested(name, levels).at("spec")));
    auto list = SyncWait(store_->GetList("/registry/configmaps/default/", {}));
    ASSERT_TRUE(list.ok()) << levels << ": " << list.status().message();
  }
}

TEST_F(ObjectStoreTest, AnObjectNoReadCouldDecodeIsNotWritten) {
  auto created = SyncWait(store_->Create(Key("too-deep"), Nested("too-deep", 10000), 0));
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.status().code(), 400) << created.status().message();
  auto raw = SyncWait(backend_->Get(Key("too-deep")));
  ASSERT_TRUE(raw.ok());
  EXPECT_FALSE(raw->has_value());
}

TEST_F(ObjectStoreTest, AnUpdateThatOnlyReordersMembersIsNotWritten) {
  auto created = SyncWait(store_->Create(Key("a"), MakeCm("a", "1"), 0));
  ASSERT_TRUE(created.ok());
  std::string rv = Rv(*created);
  auto same = SyncWait(store_->GuaranteedUpdate(Key("a"), {}, false, [](const Object* e) -> Task<StatusOr<UpdateResult>> {
    // The members in another order, as a client that sorts keys sends them.
    Object reordered;
    for (auto it = e->end(); it != e->begin();) {
      --it;
      reordered[it->key()] = it->value();
    }
    json::object md;
    const auto& old_md = e->at("metadata").as_object();
    for (auto it = old_md.end(); it != old_md.begin();) {
      --it;
      md[it->key()] = it->value();
    }
    md.erase("resourceVersion");
    reordered["metadata"] = std::move(md);
    co_return UpdateResult{std::move(reordered), 0};
  }));
  ASSERT_TRUE(same.ok()) << same.status().message();
  EXPECT_EQ(Rv(*same), rv);
  auto changed = SyncWait(store_->GuaranteedUpdate(Key("a"), {}, false, [](const Object* e) -> Task<StatusOr<UpdateResult>> {
    Object next = *e;
    next["metadata"].as_object()["labels"].as_object()["tier"] = "b";
    co_return UpdateResult{std::move(next), 0};
  }));
  ASSERT_TRUE(changed.ok());
  EXPECT_NE(Rv(*changed), rv);
}

TEST_F(ObjectStoreTest, PreconditionsAreChecked) {
  auto created = SyncWait(store_->Create(Key("a"), MakeCm("a", "1"), 0));
  ASSERT_TRUE(created.ok());
  Preconditions wrong_uid;
  wrong_uid.uid = "other";
  auto r = SyncWait(store_->Delete(Key("a"), wrong_uid, nullptr));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsStorage(StorageCode::kConflict));
  EXPECT_NE(r.status().message().find("Precondition failed: UID in precondition: other, UID in object meta: uid-a"),
            std::string::npos);
  Preconditions right;
  right.resource_version = Rv(*created);
  auto deleted = SyncWait(store_->Delete(Key("a"), right, nullptr));
  ASSERT_TRUE(deleted.ok()) << deleted.status().message();
  EXPECT_GT(std::stoll(Rv(*deleted)), std::stoll(Rv(*created)));
  EXPECT_TRUE(SyncWait(store_->Get(Key("a"), {})).status().IsStorage(StorageCode::kKeyNotFound));
}

TEST_F(ObjectStoreTest, ListPagesWithContinueAtOneRevision) {
  for (int i = 0; i < 7; ++i) {
    ASSERT_TRUE(SyncWait(store_->Create(Key("cm" + std::to_string(i)), MakeCm("cm" + std::to_string(i), "v"), 0)).ok());
  }
  ListOptions opts;
  opts.limit = 3;
  auto p1 = SyncWait(store_->GetList("/registry/configmaps/default", opts));
  ASSERT_TRUE(p1.ok()) << p1.status().message();
  ASSERT_EQ(p1->items.size(), 3u);
  ASSERT_FALSE(p1->continue_token.empty());
  EXPECT_EQ(p1->remaining_item_count, 4);
  // A write after the first page is not seen by the following pages.
  ASSERT_TRUE(SyncWait(store_->Create(Key("cm9"), MakeCm("cm9", "v"), 0)).ok());
  std::vector<std::string> names;
  for (auto& i : p1->items) names.push_back(Name(i));
  std::string token = p1->continue_token;
  while (!token.empty()) {
    ListOptions next;
    next.limit = 3;
    next.continue_token = token;
    auto p = SyncWait(store_->GetList("/registry/configmaps/default", next));
    ASSERT_TRUE(p.ok()) << p.status().message();
    EXPECT_EQ(p->revision, p1->revision);
    for (auto& i : p->items) names.push_back(Name(i));
    token = p->continue_token;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"cm0", "cm1", "cm2", "cm3", "cm4", "cm5", "cm6"}));
}

TEST_F(ObjectStoreTest, ListFiltersWithPredicateAcrossPages) {
  for (int i = 0; i < 10; ++i) {
    std::string n = "cm" + std::to_string(i);
    ASSERT_TRUE(SyncWait(store_->Create(Key(n), MakeCm(n, "v", i % 3 == 0 ? "keep" : "drop"), 0)).ok());
  }
  ListOptions opts;
  opts.limit = 2;
  opts.predicate_empty = false;
  opts.predicate = [](const Object& o) { return o.at("metadata").at("labels").at("tier") == "keep"; };
  auto p = SyncWait(store_->GetList("/registry/configmaps/default", opts));
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p->items.size(), 2u);
  EXPECT_EQ(Name(p->items[0]), "cm0");
  EXPECT_EQ(Name(p->items[1]), "cm3");
  EXPECT_FALSE(p->continue_token.empty());
  EXPECT_FALSE(p->remaining_item_count.has_value());
}

TEST_F(ObjectStoreTest, ContinueWithResourceVersionIsBadRequest) {
  ASSERT_TRUE(SyncWait(store_->Create(Key("a"), MakeCm("a", "1"), 0)).ok());
  ASSERT_TRUE(SyncWait(store_->Create(Key("b"), MakeCm("b", "1"), 0)).ok());
  ListOptions opts;
  opts.limit = 1;
  auto p = SyncWait(store_->GetList("/registry/configmaps/default", opts));
  ASSERT_TRUE(p.ok());
  ListOptions next;
  next.continue_token = p->continue_token;
  next.resource_version = "5";
  auto r = SyncWait(store_->GetList("/registry/configmaps/default", next));
  EXPECT_EQ(r.status().code(), 400);
  EXPECT_EQ(r.status().message(), "specifying resource version is not allowed when using continue");
}

TEST_F(ObjectStoreTest, ExactListAtCompactedRevisionIs410) {
  auto a = SyncWait(store_->Create(Key("a"), MakeCm("a", "1"), 0));
  ASSERT_TRUE(a.ok());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(SyncWait(store_->Create(Key("x" + std::to_string(i)), MakeCm("x", "1"), 0)).ok());
  auto rev = SyncWait(store_->CurrentRevision());
  ASSERT_TRUE(rev.ok());
  ASSERT_TRUE(SyncWait(backend_->Compact(*rev)).ok());
  ListOptions opts;
  opts.resource_version = Rv(*a);
  opts.match = ResourceVersionMatch::kExact;
  auto r = SyncWait(store_->GetList("/registry/configmaps/default", opts));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), 410);
  EXPECT_EQ(r.status().reason(), "Expired");
}

TEST_F(ObjectStoreTest, WatchFromZeroSendsCurrentStateThenChangesWithSelectorTransitions) {
  ASSERT_TRUE(SyncWait(store_->Create(Key("a"), MakeCm("a", "1", "keep"), 0)).ok());
  ASSERT_TRUE(SyncWait(store_->Create(Key("b"), MakeCm("b", "1", "drop"), 0)).ok());
  WatchOptions wo;
  wo.predicate = [](const Object& o) { return o.at("metadata").at("labels").at("tier") == "keep"; };
  auto w = store_->Watch("/registry/configmaps/default", wo);
  ASSERT_TRUE(w.ok());
  auto initial = SyncWait((*w)->Next());
  ASSERT_EQ(initial.size(), 1u);
  EXPECT_EQ(initial[0].type, ObjectEvent::Type::kAdded);
  EXPECT_EQ(Name(initial[0].object), "a");

  // b moves into the selection (ADDED), a moves out (DELETED), then a is deleted (nothing: not selected).
  ASSERT_TRUE(SyncWait(store_->GuaranteedUpdate(Key("b"), {}, false, [](const Object* e) -> Task<StatusOr<UpdateResult>> {
                Object n = *e;
                n["metadata"].as_object()["labels"].as_object()["tier"] = "keep";
                co_return UpdateResult{n, 0};
              })).ok());
  ASSERT_TRUE(SyncWait(store_->GuaranteedUpdate(Key("a"), {}, false, [](const Object* e) -> Task<StatusOr<UpdateResult>> {
                Object n = *e;
                n["metadata"].as_object()["labels"].as_object()["tier"] = "drop";
                co_return UpdateResult{n, 0};
              })).ok());
  ASSERT_TRUE(SyncWait(store_->Delete(Key("a"), {}, nullptr)).ok());
  ASSERT_TRUE(SyncWait(store_->Delete(Key("b"), {}, nullptr)).ok());
  std::vector<std::pair<ObjectEvent::Type, std::string>> seen;
  while (seen.size() < 3) {
    auto batch = SyncWait((*w)->Next());
    ASSERT_FALSE(batch.empty());
    for (auto& e : batch) seen.emplace_back(e.type, Name(e.object));
  }
  EXPECT_EQ(seen[0], std::make_pair(ObjectEvent::Type::kAdded, std::string("b")));
  EXPECT_EQ(seen[1], std::make_pair(ObjectEvent::Type::kDeleted, std::string("a")));
  EXPECT_EQ(seen[2], std::make_pair(ObjectEvent::Type::kDeleted, std::string("b")));
  (*w)->Stop();
  EXPECT_TRUE(SyncWait((*w)->Next()).empty());
}

TEST_F(ObjectStoreTest, WatchFromARevisionSkipsEarlierChanges) {
  auto a = SyncWait(store_->Create(Key("a"), MakeCm("a", "1"), 0));
  ASSERT_TRUE(a.ok());
  auto b = SyncWait(store_->Create(Key("b"), MakeCm("b", "1"), 0));
  ASSERT_TRUE(b.ok());
  WatchOptions wo;
  wo.resource_version = Rv(*a);
  auto w = store_->Watch("/registry/configmaps/default", wo);
  ASSERT_TRUE(w.ok());
  auto batch = SyncWait((*w)->Next());
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_EQ(Name(batch[0].object), "b");
  EXPECT_EQ(Rv(batch[0].object), Rv(*b));
}

TEST_F(ObjectStoreTest, WatchFromCompactedRevisionEndsWith410) {
  auto a = SyncWait(store_->Create(Key("a"), MakeCm("a", "1"), 0));
  ASSERT_TRUE(a.ok());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(SyncWait(store_->Create(Key("x" + std::to_string(i)), MakeCm("x", "1"), 0)).ok());
  auto rev = SyncWait(store_->CurrentRevision());
  ASSERT_TRUE(SyncWait(backend_->Compact(*rev)).ok());
  WatchOptions wo;
  wo.resource_version = Rv(*a);
  auto w = store_->Watch("/registry/configmaps/default", wo);
  ASSERT_TRUE(w.ok());
  auto batch = SyncWait((*w)->Next());
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_EQ(batch[0].type, ObjectEvent::Type::kError);
  EXPECT_EQ(batch[0].error.code(), 410);
  EXPECT_TRUE(SyncWait((*w)->Next()).empty());
}

}  // namespace
}  // namespace capstan::storage
