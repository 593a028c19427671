// Tests of the version-converting REST storage decorator over a real Store on the embedded backend:
// widgets are served as example.io/v1 (flat `size`) and stored as example.io/v2 (`spec.size`).
#include "registry/converting_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <filesystem>

#include "apimachinery/object_meta.h"
#include "registry/rest_resource.h"
#include "registry/table.h"
#include "storage/backend_object_store.h"
#include "storage/embedded/embedded_backend.h"

namespace capstan::registry {
namespace {

namespace am = capstan::apimachinery;
namespace json = boost::json;

ResourceInfo WidgetInfo(const std::string& version) {
  ResourceInfo i;
  i.group = "example.io";
  i.version = version;
  i.resource = "widgets";
  i.kind = "Widget";
  i.list_kind = "WidgetList";
  i.singular = "widget";
  return i;
}

// v1 {size: N, color} ↔ v2 {spec: {size: N}, color}; a v1 object without size is refused.
StatusOr<Object> V1ToV2(Object o) {
  if (!o.contains("size")) return Status(422, "Invalid", "size is required in v1");
  json::object spec;
  spec["size"] = o["size"];
  o.erase("size");
  o["spec"] = std::move(spec);
  o["apiVersion"] = "example.io/v2";
  return o;
}

StatusOr<Object> V2ToV1(Object o) {
  if (const auto* spec = o.if_contains("spec"); spec && spec->is_object()) {
    if (const auto* size = spec->get_object().if_contains("size")) o["size"] = *size;
    o.erase("spec");
  }
  if (o.contains("poison")) return Status(500, "InternalError", "cannot convert poison");
  o["apiVersion"] = "example.io/v1";
  return o;
}

// Prints the size from the storage form: proves printing sees the converted-back object.
class WidgetStrategy : public DefaultStrategy {
 public:
  WidgetStrategy() : DefaultStrategy(Options{.has_status = false}) {}
  std::vector<TableColumn> TableColumns() const override {
    return {NameColumn(), {"Size", "integer", "", "spec.size", 0}};
  }
  json::array TableCells(const Object& o) const override {
    int64_t size = -1;
    if (const auto* s = o.if_contains("spec"); s && s->is_object()) {
      if (const auto* v = s->get_object().if_contains("size"); v && v->is_int64()) size = v->get_int64();
    }
    return {json::value(am::GetName(o)), size};
  }
};

Object Widget(const std::string& name, int64_t size) {
  Object o;
  o["apiVersion"] = "example.io/v1";
  o["kind"] = "Widget";
  json::object md;
  md["name"] = name;
  md["namespace"] = "default";
  o["metadata"] = std::move(md);
  o["size"] = size;
  o["color"] = "blue";
  return o;
}

class ConvertingStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("capstan-conv-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    storage::EmbeddedOptions opts;
    opts.dir = dir_.string();
    auto b = storage::OpenEmbeddedBackend(opts);
    ASSERT_TRUE(b.ok()) << b.status().message();
    backend_ = std::move(*b);
    objects_ = std::make_unique<storage::BackendObjectStore>(*backend_);
    GroupDeps deps;
    deps.store = objects_.get();
    ResourceSpec spec;
    spec.info = WidgetInfo("v2");
    spec.strategy = std::make_shared<WidgetStrategy>();
    auto resources = MakeResource(deps, spec);
    inner_ = resources[0].storage;
    store_ = std::make_shared<ConvertingStore>(WidgetInfo("v1"), inner_, MakeFunctionConverter(V1ToV2, V2ToV1));
    ctx_.namespace_ = "default";
  }
  void TearDown() override {
    store_.reset();
    inner_.reset();
    objects_.reset();
    backend_.reset();
    std::filesystem::remove_all(dir_);
  }

  Object StoredRaw(const std::string& name) {
    auto r = SyncWait(dynamic_cast<Getter&>(*inner_).Get(ctx_, name, {}));
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : Object();
  }

  std::filesystem::path dir_;
  std::unique_ptr<storage::Backend> backend_;
  std::unique_ptr<storage::BackendObjectStore> objects_;
  std::shared_ptr<Storage> inner_;
  std::shared_ptr<ConvertingStore> store_;
  Context ctx_;
};

TEST_F(ConvertingStoreTest, CreateStoresTheStorageVersionAndAnswersInTheServedOne) {
  auto created = SyncWait(store_->Create(ctx_, Widget("a", 3), {}));
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_EQ(am::GetApiVersion(*created), "example.io/v1");
  EXPECT_EQ(created->at("size").as_int64(), 3);
  EXPECT_FALSE(created->contains("spec"));
  EXPECT_FALSE(am::GetUid(*created).empty());

  Object raw = StoredRaw("a");
  EXPECT_EQ(am::GetApiVersion(raw), "example.io/v2");
  EXPECT_EQ(raw.at("spec").at("size").as_int64(), 3);
  EXPECT_FALSE(raw.contains("size"));

  auto got = SyncWait(store_->Get(ctx_, "a", {}));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, *created);
}

TEST_F(ConvertingStoreTest, ConversionErrorsReachTheCaller) {
  Object bad = Widget("b", 1);
  bad.erase("size");
  auto r = SyncWait(store_->Create(ctx_, bad, {}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), 422);
  EXPECT_EQ(r.status().message(), "size is required in v1");
  EXPECT_FALSE(SyncWait(store_->Get(ctx_, "b", {})).ok());
}

TEST_F(ConvertingStoreTest, ListConvertsEveryItem) {
  ASSERT_TRUE(SyncWait(store_->Create(ctx_, Widget("a", 1), {})).ok());
  ASSERT_TRUE(SyncWait(store_->Create(ctx_, Widget("b", 2), {})).ok());
  auto list = SyncWait(store_->List(ctx_, {}));
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->items.size(), 2u);
  for (const auto& item : list->items) {
    EXPECT_EQ(am::GetApiVersion(item), "example.io/v1");
    EXPECT_TRUE(item.contains("size"));
  }
  EXPECT_FALSE(list->resource_version.empty());
  EXPECT_EQ(store_->Info().list_kind, "WidgetList");
  EXPECT_EQ(store_->Info().ApiVersion(), "example.io/v1");
}

TEST_F(ConvertingStoreTest, UpdateTransformSeesAndReturnsTheServedVersion) {
  ASSERT_TRUE(SyncWait(store_->Create(ctx_, Widget("a", 1), {})).ok());
  std::string seen_api_version;
  auto r = SyncWait(store_->Update(
      ctx_, "a",
      [&](const Object* cur) -> Task<StatusOr<Object>> {
        EXPECT_NE(cur, nullptr);
        Object next = *cur;
        seen_api_version = std::string(am::GetApiVersion(next));
        next["size"] = next["size"].as_int64() + 10;
        co_return next;
      },
      {}));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(seen_api_version, "example.io/v1");
  EXPECT_EQ(r->object.at("size").as_int64(), 11);
  EXPECT_EQ(am::GetApiVersion(r->object), "example.io/v1");
  EXPECT_EQ(StoredRaw("a").at("spec").at("size").as_int64(), 11);
}

TEST_F(ConvertingStoreTest, UpdateOfAMissingObjectIsNotFoundFromTheInnerStore) {
  auto r = SyncWait(store_->Update(
      ctx_, "missing", [](const Object*) -> Task<StatusOr<Object>> { co_return Widget("missing", 1); }, {}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), 404);
}

TEST_F(ConvertingStoreTest, TransformErrorsStopTheUpdate) {
  ASSERT_TRUE(SyncWait(store_->Create(ctx_, Widget("a", 1), {})).ok());
  auto r = SyncWait(store_->Update(
      ctx_, "a",
      [](const Object* cur) -> Task<StatusOr<Object>> {
        Object next = *cur;
        next.erase("size");  // not convertible back
        co_return next;
      },
      {}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "size is required in v1");
  EXPECT_EQ(StoredRaw("a").at("spec").at("size").as_int64(), 1);
}

TEST_F(ConvertingStoreTest, DeleteConvertsTheObjectButNotAStatus) {
  ASSERT_TRUE(SyncWait(store_->Create(ctx_, Widget("a", 1), {})).ok());
  auto r = SyncWait(store_->Delete(ctx_, "a", {}));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->deleted);
  EXPECT_EQ(am::GetKind(r->object), "Status");
  EXPECT_EQ(am::GetApiVersion(r->object), "v1");

  // With a finalizer the object stays, marked, and comes back converted.
  Object f = Widget("f", 2);
  f["metadata"].as_object()["finalizers"] = json::array{"example.io/keep"};
  ASSERT_TRUE(SyncWait(store_->Create(ctx_, f, {})).ok());
  auto pending = SyncWait(store_->Delete(ctx_, "f", {}));
  ASSERT_TRUE(pending.ok()) << pending.status().message();
  EXPECT_FALSE(pending->deleted);
  EXPECT_EQ(am::GetApiVersion(pending->object), "example.io/v1");
  EXPECT_EQ(pending->object.at("size").as_int64(), 2);
  EXPECT_TRUE(am::GetDeletionTimestamp(pending->object).has_value());
}

TEST_F(ConvertingStoreTest, DeleteCollectionConvertsItems) {
  ASSERT_TRUE(SyncWait(store_->Create(ctx_, Widget("a", 1), {})).ok());
  auto r = SyncWait(store_->DeleteCollection(ctx_, {}, {}));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->items.size(), 1u);
  EXPECT_EQ(am::GetApiVersion(r->items[0]), "example.io/v1");
  EXPECT_EQ(r->items[0].at("size").as_int64(), 1);
}

TEST_F(ConvertingStoreTest, WatchEventsAreConverted) {
  ASSERT_TRUE(SyncWait(store_->Create(ctx_, Widget("a", 1), {})).ok());
  ListOptions lo;
  lo.resource_version = "0";
  auto w = SyncWait(store_->Watch(ctx_, lo));
  ASSERT_TRUE(w.ok()) << w.status().message();
  auto first = SyncWait((*w)->Next());
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(first[0].type, "ADDED");
  EXPECT_EQ(am::GetApiVersion(first[0].object), "example.io/v1");
  EXPECT_EQ(first[0].object.at("size").as_int64(), 1);

  ASSERT_TRUE(SyncWait(store_->Delete(ctx_, "a", {})).ok());
  std::vector<WatchEvent> events;
  while (events.empty()) events = SyncWait((*w)->Next());
  EXPECT_EQ(events[0].type, "DELETED");
  EXPECT_EQ(am::GetApiVersion(events[0].object), "example.io/v1");
  EXPECT_EQ(events[0].object.at("size").as_int64(), 1);
  (*w)->Stop();
}

TEST_F(ConvertingStoreTest, AnEventThatDoesNotConvertEndsTheWatchWithAnError) {
  ListOptions lo;
  lo.resource_version = "0";
  auto w = SyncWait(store_->Watch(ctx_, lo));
  ASSERT_TRUE(w.ok());
  // Written straight to the storage version, unconvertible on the way out.
  Object poison = *V1ToV2(Widget("p", 1));
  poison["poison"] = true;
  ASSERT_TRUE(SyncWait(dynamic_cast<Creater&>(*inner_).Create(ctx_, poison, {})).ok());
  std::vector<WatchEvent> events;
  while (events.empty()) events = SyncWait((*w)->Next());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, "ERROR");
  EXPECT_EQ(am::GetKind(events[0].object), "Status");
  EXPECT_TRUE(SyncWait((*w)->Next()).empty());
  // The same object fails a get with the conversion's error.
  auto got = SyncWait(store_->Get(ctx_, "p", {}));
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().message(), "cannot convert poison");
}

TEST_F(ConvertingStoreTest, TablesPrintTheStorageFormWithTheInnerColumns) {
  auto created = SyncWait(store_->Create(ctx_, Widget("a", 7), {}));
  ASSERT_TRUE(created.ok());
  auto cols = store_->TableColumns();
  ASSERT_EQ(cols.size(), 2u);
  EXPECT_EQ(cols[1].name, "Size");
  auto cells = store_->TableCells(*created);
  ASSERT_EQ(cells.size(), 2u);
  EXPECT_EQ(cells[1].as_int64(), 7);
}

TEST_F(ConvertingStoreTest, WrapPicksTheDecoratorByCapabilities) {
  auto full = WrapConverting(WidgetInfo("v1"), inner_, MakeFunctionConverter(V1ToV2, V2ToV1));
  EXPECT_NE(dynamic_cast<Lister*>(full.get()), nullptr);
  EXPECT_NE(dynamic_cast<Watcher*>(full.get()), nullptr);

  // A status-like subresource: only get/update/patch.
  StoreConfig c = dynamic_cast<Store&>(*inner_).config();
  c.info.subresource = "status";
  auto status = std::make_shared<SubresourceStore>(c, std::make_shared<StatusStrategy>(std::make_shared<WidgetStrategy>()));
  ResourceInfo served = WidgetInfo("v1");
  served.subresource = "status";
  auto sub = WrapConverting(served, status, MakeFunctionConverter(V1ToV2, V2ToV1));
  EXPECT_EQ(dynamic_cast<Lister*>(sub.get()), nullptr);
  EXPECT_EQ(dynamic_cast<Creater*>(sub.get()), nullptr);
  auto* patcher = dynamic_cast<Patcher*>(sub.get());
  ASSERT_NE(patcher, nullptr);

  ASSERT_TRUE(SyncWait(store_->Create(ctx_, Widget("a", 1), {})).ok());
  auto got = SyncWait(patcher->Get(ctx_, "a", {}));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(am::GetApiVersion(*got), "example.io/v1");
  auto upd = SyncWait(patcher->Update(
      ctx_, "a",
      [](const Object* cur) -> Task<StatusOr<Object>> {
        Object next = *cur;
        next["status"] = json::object{{"ready", true}};
        co_return next;
      },
      {}));
  ASSERT_TRUE(upd.ok()) << upd.status().message();
  EXPECT_EQ(am::GetApiVersion(upd->object), "example.io/v1");
  EXPECT_TRUE(StoredRaw("a").at("status").at("ready").as_bool());
}

}  // namespace
}  // namespace capstan::registry
