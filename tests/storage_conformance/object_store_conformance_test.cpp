// The ObjectStore conformance suite against BackendObjectStore over the embedded store, and against the
// watch cache in front of it (parsed and pre-serialized results).
#include "storage/cacher/cacher.h"
#include "storage_conformance/object_store_conformance.h"

namespace capstan::storage::conformance {
namespace {

ObjectStoreFactory Uncached() {
  return {"Backend", [](Backend&, BackendObjectStore& base) -> std::unique_ptr<ObjectStore> {
            // A thin owner that forwards to the shared uncached store.
            struct Forward : ObjectStore {
              explicit Forward(ObjectStore& s) : s(s) {}
              Task<StatusOr<Object>> Create(const std::string& k, Object o, int64_t t) override {
                return s.Create(k, std::move(o), t);
              }
              Task<StatusOr<Object>> Get(const std::string& k, const GetOptions& o) override { return s.Get(k, o); }
              Task<StatusOr<ListResult>> GetList(const std::string& k, const ListOptions& o) override {
                return s.GetList(k, o);
              }
              Task<StatusOr<Object>> GuaranteedUpdate(const std::string& k, const Preconditions& p, bool i,
                                                      UpdateFunc f) override {
                return s.GuaranteedUpdate(k, p, i, std::move(f));
              }
              Task<StatusOr<Object>> Delete(const std::string& k, const Preconditions& p, ValidateDeleteFunc v) override {
                return s.Delete(k, p, std::move(v));
              }
              StatusOr<std::unique_ptr<ObjectWatch>> Watch(const std::string& k, const WatchOptions& o) override {
                return s.Watch(k, o);
              }
              Task<StatusOr<int64_t>> CurrentRevision() override { return s.CurrentRevision(); }
              ObjectStore& s;
            };
            return std::make_unique<Forward>(base);
          }};
}

ObjectStoreFactory Cached() {
  return {"Cacher", [](Backend& backend, BackendObjectStore& base) -> std::unique_ptr<ObjectStore> {
            CacherConfig c;
            c.resource_prefix = "/registry/configmaps";
            c.resource = "configmaps";
            c.storage = &base;
            c.backend = &backend;
            c.decode = [&base](std::string_view v, const std::string& k, int64_t rev) { return base.Decode(v, k, rev); };
            auto cacher = std::make_unique<Cacher>(std::move(c));
            EXPECT_TRUE(cacher->WaitReady(std::chrono::seconds(20)));
            return cacher;
          }};
}

INSTANTIATE_TEST_SUITE_P(Stores, ObjectStoreConformance, ::testing::Values(Uncached(), Cached()), ObjectStoreFactoryName);

}  // namespace
}  // namespace capstan::storage::conformance
