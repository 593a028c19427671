#include "endpoints/route_methods.h"

#include <gtest/gtest.h>

namespace capstan::endpoints {
namespace {

// A storage with every capability; the entries below point at the ones a case needs.
class Everything : public registry::Patcher,
                   public registry::Lister,
                   public registry::Watcher,
                   public registry::Creater,
                   public registry::GracefulDeleter,
                   public registry::CollectionDeleter {
 public:
  const registry::ResourceInfo& Info() const override { return info_; }
  Task<StatusOr<registry::Object>> Get(const registry::Context&, const std::string&, const registry::GetOptions&) override {
    co_return Status(500, "InternalError", "unused");
  }
  Task<StatusOr<registry::ObjectList>> List(const registry::Context&, const registry::ListOptions&) override {
    co_return Status(500, "InternalError", "unused");
  }
  Task<StatusOr<std::unique_ptr<registry::WatchStream>>> Watch(const registry::Context&, const registry::ListOptions&) override {
    co_return Status(500, "InternalError", "unused");
  }
  Task<StatusOr<registry::Object>> Create(const registry::Context&, registry::Object, const registry::CreateOptions&) override {
    co_return Status(500, "InternalError", "unused");
  }
  Task<StatusOr<registry::UpdateOutcome>> Update(const registry::Context&, const std::string&, registry::ObjectTransform,
                                                 const registry::UpdateOptions&) override {
    co_return Status(500, "InternalError", "unused");
  }
  Task<StatusOr<registry::DeleteOutcome>> Delete(const registry::Context&, const std::string&,
                                                 const registry::DeleteOptions&) override {
    co_return Status(500, "InternalError", "unused");
  }
  Task<StatusOr<registry::ObjectList>> DeleteCollection(const registry::Context&, const registry::DeleteOptions&,
                                                        const registry::ListOptions&) override {
    co_return Status(500, "InternalError", "unused");
  }

 private:
  registry::ResourceInfo info_;
};

http::RequestInfo Info(std::vector<std::string> parts, std::string ns = "default") {
  http::RequestInfo i;
  i.parts = std::move(parts);
  i.resource = i.parts[0];
  if (i.parts.size() >= 2) i.name = i.parts[1];
  i.namespace_ = std::move(ns);
  return i;
}

TEST(RouteMethodsTest, CollectionsObjectsAndSubresourcesServeWhatTheStorageImplements) {
  Everything all;
  ResourceEntry full;
  full.info.resource = "configmaps";
  full.getter = &all;
  full.lister = &all;
  full.watcher = &all;
  full.creater = &all;
  full.updater = &all;
  full.patcher = &all;
  full.deleter = &all;
  full.collection_deleter = &all;
  auto collection = Info({"configmaps"});
  EXPECT_EQ(MatchRoute(full, collection, "GET"), RouteMatch::kRouted);
  EXPECT_EQ(MatchRoute(full, collection, "POST"), RouteMatch::kRouted);
  EXPECT_EQ(MatchRoute(full, collection, "DELETE"), RouteMatch::kRouted);
  EXPECT_EQ(MatchRoute(full, collection, "PUT"), RouteMatch::kMethodNotAllowed);
  EXPECT_EQ(MatchRoute(full, collection, "PATCH"), RouteMatch::kMethodNotAllowed);
  auto object = Info({"configmaps", "x"});
  EXPECT_EQ(MatchRoute(full, object, "PUT"), RouteMatch::kRouted);
  EXPECT_EQ(MatchRoute(full, object, "POST"), RouteMatch::kMethodNotAllowed);
  // All namespaces: list and watch only; no object paths.
  EXPECT_EQ(MatchRoute(full, Info({"configmaps"}, ""), "GET"), RouteMatch::kRouted);
  EXPECT_EQ(MatchRoute(full, Info({"configmaps"}, ""), "POST"), RouteMatch::kMethodNotAllowed);
  EXPECT_EQ(MatchRoute(full, Info({"configmaps", "x"}, ""), "GET"), RouteMatch::kNoRoute);
  // A list whose field selector names one object is still a collection request.
  auto selected = Info({"configmaps"});
  selected.name = "x";
  EXPECT_EQ(MatchRoute(full, selected, "DELETE"), RouteMatch::kRouted);

  ResourceEntry create_only;
  create_only.info.resource = "tokenreviews";
  create_only.info.namespaced = false;
  create_only.creater = &all;
  EXPECT_EQ(MatchRoute(create_only, Info({"tokenreviews"}, ""), "POST"), RouteMatch::kRouted);
  EXPECT_EQ(MatchRoute(create_only, Info({"tokenreviews"}, ""), "GET"), RouteMatch::kMethodNotAllowed);
  EXPECT_EQ(MatchRoute(create_only, Info({"tokenreviews", "x"}, ""), "GET"), RouteMatch::kNoRoute);

  ResourceEntry eviction;
  eviction.info.resource = "pods";
  eviction.info.subresource = "eviction";
  eviction.creater = &all;
  EXPECT_EQ(MatchRoute(eviction, Info({"pods", "p", "eviction"}), "POST"), RouteMatch::kRouted);
  EXPECT_EQ(MatchRoute(eviction, Info({"pods", "p", "eviction"}), "GET"), RouteMatch::kMethodNotAllowed);

  Status st = MethodNotAllowedStatus();
  EXPECT_EQ(st.code(), 405);
  EXPECT_EQ(st.reason(), "MethodNotAllowed");
  EXPECT_EQ(st.message(), "the server does not allow this method on the requested resource");
  EXPECT_TRUE(st.has_details());
}

}  // namespace
}  // namespace capstan::endpoints
