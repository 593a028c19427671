// Legacy discovery documents built from the ApiRegistry: kube's APIResource fields (group and version
// of another group's kind, storageVersionHash) and a group's versions in kube's priority order.
#include "endpoints/discovery.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "endpoints/installer.h"

namespace capstan::endpoints {
namespace {

namespace json = boost::json;
using registry::Object;

// A stored resource (or not, with `stored` false) that can be printed.
class FakeStorage : public registry::Getter, public registry::TableConvertor, public registry::StorageVersionProvider {
 public:
  FakeStorage(registry::ResourceInfo info, bool stored) : info_(std::move(info)), stored_(stored) {}
  const registry::ResourceInfo& Info() const override { return info_; }
  Task<StatusOr<Object>> Get(const registry::Context&, const std::string&, const registry::GetOptions&) override {
    co_return Object();
  }
  std::vector<registry::TableColumn> TableColumns() const override { return {{"Mine", "string", "", "", 0}}; }
  json::array TableCells(const Object&) const override { return {}; }
  std::optional<apimachinery::GroupVersionKind> StorageVersion() const override {
    if (!stored_) return std::nullopt;
    return apimachinery::GroupVersionKind{info_.group, "v2", info_.kind};
  }

 private:
  registry::ResourceInfo info_;
  bool stored_;
};

// A subresource with neither a table nor a storage version.
class FakeSubresource : public registry::Getter {
 public:
  explicit FakeSubresource(registry::ResourceInfo info) : info_(std::move(info)) {}
  const registry::ResourceInfo& Info() const override { return info_; }
  Task<StatusOr<Object>> Get(const registry::Context&, const std::string&, const registry::GetOptions&) override {
    co_return Object();
  }

 private:
  registry::ResourceInfo info_;
};

registry::ResourceInfo Info(std::string group, std::string version, std::string resource, std::string sub = "") {
  registry::ResourceInfo i;
  i.group = std::move(group);
  i.version = std::move(version);
  i.resource = std::move(resource);
  i.subresource = std::move(sub);
  i.kind = "Widget";
  i.singular = "widget";
  return i;
}

registry::RestResource Stored(registry::ResourceInfo info, bool stored = true) {
  registry::RestResource r;
  r.info = info;
  r.storage = std::make_shared<FakeStorage>(std::move(info), stored);
  return r;
}

registry::RestResource Sub(registry::ResourceInfo info) {
  registry::RestResource r;
  r.info = info;
  r.storage = std::make_shared<FakeSubresource>(std::move(info));
  return r;
}

const json::object* Find(const json::object& list, const std::string& name) {
  for (const auto& r : list.at("resources").as_array()) {
    if (r.at("name") == name.c_str()) return &r.as_object();
  }
  return nullptr;
}

TEST(DiscoveryTest, StorageVersionHashIsKubes) {
  EXPECT_EQ(StorageVersionHash("", "v1", "Pod"), "xPOwRZ+Yhw8=");
  EXPECT_EQ(StorageVersionHash("", "v1", "ConfigMap"), "qFsyl6wFWjQ=");
  EXPECT_EQ(StorageVersionHash("apps", "v1", "Deployment"), "8aSe+NMegvE=");
}

TEST(DiscoveryTest, AStoredResourcePublishesItsStorageVersionsHash) {
  ApiRegistry reg;
  InstallResources(reg, {Stored(Info("example.com", "v1", "widgets")), Stored(Info("example.com", "v1", "gadgets"), false),
                         Sub(Info("example.com", "v1", "widgets", "status"))});
  auto doc = ResourceListJson(*reg.Snapshot(), "example.com", "v1");
  ASSERT_TRUE(doc.has_value());
  const json::object* widgets = Find(*doc, "widgets");
  ASSERT_NE(widgets, nullptr);
  EXPECT_EQ(widgets->at("storageVersionHash"), StorageVersionHash("example.com", "v2", "Widget").c_str());
  EXPECT_FALSE(Find(*doc, "gadgets")->contains("storageVersionHash"));
  EXPECT_FALSE(Find(*doc, "widgets/status")->contains("storageVersionHash"));
}

TEST(DiscoveryTest, ASubresourceOfAnotherGroupsKindNamesGroupAndVersion) {
  ApiRegistry reg;
  auto eviction = Info("", "v1", "pods", "eviction");
  eviction.kind = "Eviction";
  eviction.kind_group = "policy";
  eviction.kind_version = "v1";
  InstallResources(reg, {Stored(Info("", "v1", "pods")), Sub(eviction), Sub(Info("", "v1", "pods", "status"))});
  auto doc = ResourceListJson(*reg.Snapshot(), "", "v1");
  ASSERT_TRUE(doc.has_value());
  EXPECT_EQ(json::serialize(*Find(*doc, "pods/eviction")),
            R"({"name":"pods/eviction","singularName":"","namespaced":true,"group":"policy","version":"v1",)"
            R"("kind":"Eviction","verbs":["get"]})");
  EXPECT_FALSE(Find(*doc, "pods/status")->contains("group"));
  EXPECT_FALSE(Find(*doc, "pods/status")->contains("version"));
}

TEST(DiscoveryTest, GroupVersionsAreInKubePriorityOrderWhateverTheInstallOrder) {
  ApiRegistry reg;
  InstallResources(reg, {Stored(Info("example.com", "v1alpha1", "a"))});
  InstallResources(reg, {Stored(Info("example.com", "v1", "b"))});
  InstallResources(reg, {Stored(Info("example.com", "v1beta1", "a"))});
  InstallResources(reg, {Stored(Info("example.com", "v2beta1", "c"))});
  auto group = ApiGroupJson(*reg.Snapshot(), "example.com");
  ASSERT_TRUE(group.has_value());
  std::vector<std::string> versions;
  for (const auto& v : group->at("versions").as_array()) versions.emplace_back(v.at("version").as_string());
  EXPECT_EQ(versions, (std::vector<std::string>{"v1", "v2beta1", "v1beta1", "v1alpha1"}));
  EXPECT_EQ(group->at("preferredVersion").at("version"), "v1");
}

TEST(DiscoveryTest, AStatusSubresourcePrintsAsItsParent) {
  ApiRegistry reg;
  InstallResources(reg, {Stored(Info("example.com", "v1", "widgets")), Sub(Info("example.com", "v1", "widgets", "status")),
                         Sub(Info("example.com", "v1", "widgets", "other"))});
  auto snap = reg.Snapshot();
  const ResourceEntry* status = snap->FindResource("example.com", "v1", "widgets", "status");
  ASSERT_NE(status, nullptr);
  ASSERT_NE(status->table, nullptr);
  EXPECT_EQ(status->table->TableColumns().at(0).name, "Mine");
  EXPECT_EQ(snap->FindResource("example.com", "v1", "widgets", "other")->table, nullptr);
}

}  // namespace
}  // namespace capstan::endpoints
