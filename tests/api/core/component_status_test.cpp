// componentstatuses: kube's object shape, printer, selectors, the deprecation warning and the
// "Component not found" error, over fixed probes; LeaseHeld and kube's refused-probe message.
#include "api/core/component_status.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "util/task.h"

namespace capstan::api::core {
namespace {

namespace json = boost::json;
namespace am = capstan::apimachinery;

ComponentProbe Fixed(std::string name, ComponentHealth h) {
  return {std::move(name), [h]() -> Task<ComponentHealth> { co_return h; }};
}

class ComponentStatusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sources_ = std::make_shared<ComponentStatusSources>();
    sources_->Set({Fixed("scheduler", RefusedProbe(kSchedulerHealthPort)),
                   Fixed("controller-manager", {"True", "ok", ""}), Fixed("etcd-0", {"True", "ok", ""}),
                   Fixed("etcd-1", {"False", "", "context deadline exceeded"})});
    auto resources = ComponentStatuses(registry::GroupDeps{}, sources_);
    ASSERT_EQ(resources.size(), 1u);
    resource_ = std::move(resources[0]);
    ctx_.scope = &scope_;
  }
  registry::Getter& getter() { return dynamic_cast<registry::Getter&>(*resource_.storage); }
  registry::Lister& lister() { return dynamic_cast<registry::Lister&>(*resource_.storage); }
  registry::TableConvertor& table() { return dynamic_cast<registry::TableConvertor&>(*resource_.storage); }
  StatusOr<registry::ObjectList> List(const std::string& labels = "", const std::string& fields = "") {
    registry::ListOptions opts;
    opts.label_selector = labels;
    opts.field_selector = fields;
    return SyncWait(lister().List(ctx_, opts));
  }
  static std::vector<std::string> Names(const registry::ObjectList& l) {
    std::vector<std::string> out;
    for (const auto& o : l.items) out.push_back(std::string(o.at("metadata").at("name").as_string()));
    return out;
  }

  std::shared_ptr<ComponentStatusSources> sources_;
  registry::RestResource resource_;
  RequestScope scope_;
  registry::Context ctx_;
};

TEST_F(ComponentStatusTest, ResourceInfoIsKubes) {
  const auto& info = resource_.info;
  EXPECT_EQ(info.group, "");
  EXPECT_EQ(info.version, "v1");
  EXPECT_EQ(info.resource, "componentstatuses");
  EXPECT_EQ(info.singular, "componentstatus");
  EXPECT_EQ(info.kind, "ComponentStatus");
  EXPECT_EQ(info.list_kind, "ComponentStatusList");
  EXPECT_FALSE(info.namespaced);
  EXPECT_EQ(info.short_names, std::vector<std::string>{"cs"});
  // get and list only.
  EXPECT_EQ(dynamic_cast<registry::Creater*>(resource_.storage.get()), nullptr);
  EXPECT_EQ(dynamic_cast<registry::Watcher*>(resource_.storage.get()), nullptr);
  EXPECT_EQ(dynamic_cast<registry::GracefulDeleter*>(resource_.storage.get()), nullptr);
}

TEST_F(ComponentStatusTest, ObjectShape) {
  json::value want = json::parse(R"({"kind":"ComponentStatus","apiVersion":"v1",
    "metadata":{"name":"scheduler","creationTimestamp":null},
    "conditions":[{"type":"Healthy","status":"False",
      "message":"Get \"https://127.0.0.1:10259/healthz\": dial tcp 127.0.0.1:10259: connect: connection refused"}]})");
  EXPECT_EQ(json::value(ComponentStatusObject("scheduler", RefusedProbe(kSchedulerHealthPort))), want);
  auto failed = ComponentStatusObject("etcd-0", {"False", "", "boom"});
  EXPECT_EQ(json::serialize(failed.at("conditions")), R"([{"type":"Healthy","status":"False","error":"boom"}])");
}

TEST_F(ComponentStatusTest, RefusedProbeMessageIsKubes) {
  EXPECT_EQ(RefusedProbeMessage(10257),
            "Get \"https://127.0.0.1:10257/healthz\": dial tcp 127.0.0.1:10257: connect: connection refused");
}

TEST_F(ComponentStatusTest, GetAnswersTheProbeWithTheDeprecationWarning) {
  auto got = SyncWait(getter().Get(ctx_, "controller-manager", {}));
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(json::serialize(got->at("conditions")), R"([{"type":"Healthy","status":"True","message":"ok"}])");
  EXPECT_EQ(scope_.warnings(), std::vector<std::string>{"v1 ComponentStatus is deprecated in v1.19+"});
}

TEST_F(ComponentStatusTest, GetOfAnUnknownComponentIsKubesInternalError) {
  auto got = SyncWait(getter().Get(ctx_, "kubelet", {}));
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), 500);
  EXPECT_EQ(got.status().reason(), "");
  EXPECT_EQ(got.status().message(), "Component not found: kubelet");
}

TEST_F(ComponentStatusTest, ListHasEveryComponentInOrder) {
  auto l = List();
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ(Names(*l), (std::vector<std::string>{"scheduler", "controller-manager", "etcd-0", "etcd-1"}));
  EXPECT_EQ(scope_.warnings(), std::vector<std::string>{"v1 ComponentStatus is deprecated in v1.19+"});
}

TEST_F(ComponentStatusTest, ListSelectors) {
  auto by_name = List("", "metadata.name=etcd-0");
  ASSERT_TRUE(by_name.ok());
  EXPECT_EQ(Names(*by_name), std::vector<std::string>{"etcd-0"});
  auto not_name = List("", "metadata.name!=etcd-0");
  ASSERT_TRUE(not_name.ok());
  EXPECT_EQ(not_name->items.size(), 3u);
  // No component has labels: a label selector that needs one matches nothing.
  auto labelled = List("tier=control-plane");
  ASSERT_TRUE(labelled.ok());
  EXPECT_TRUE(labelled->items.empty());
  auto unsupported = List("", "spec.x=y");
  ASSERT_FALSE(unsupported.ok());
  EXPECT_EQ(unsupported.status().code(), 400);
  // ComponentStatus has no field label conversion of its own: kube's default one's text.
  EXPECT_EQ(unsupported.status().message(),
            R"("spec.x" is not a known field selector: only "metadata.name", "metadata.namespace")");
  EXPECT_FALSE(List("a in (", "").ok());
}

TEST_F(ComponentStatusTest, ListBeforeTheProbesAreSetIsEmpty) {
  sources_->Set({});
  auto l = List();
  ASSERT_TRUE(l.ok());
  EXPECT_TRUE(l->items.empty());
}

TEST_F(ComponentStatusTest, TableIsKubesPrinter) {
  auto cols = table().TableColumns();
  ASSERT_EQ(cols.size(), 4u);
  EXPECT_EQ(cols[0].name, "Name");
  EXPECT_EQ(cols[0].format, "name");
  EXPECT_EQ(cols[1].name, "Status");
  EXPECT_EQ(cols[2].name, "Message");
  EXPECT_EQ(cols[3].name, "Error");
  auto l = List();
  ASSERT_TRUE(l.ok());
  ASSERT_EQ(l->items.size(), 4u);
  EXPECT_EQ(json::serialize(table().TableCells(l->items[0])),
            R"(["scheduler","Unhealthy","Get \"https://127.0.0.1:10259/healthz\": dial tcp 127.0.0.1:10259: connect: connection refused",""])");
  EXPECT_EQ(json::serialize(table().TableCells(l->items[1])), R"(["controller-manager","Healthy","ok",""])");
  EXPECT_EQ(json::serialize(table().TableCells(l->items[3])),
            R"(["etcd-1","Unhealthy","","context deadline exceeded"])");
  // Without a Healthy condition: Unknown.
  auto bare = json::parse(R"({"metadata":{"name":"x"},"conditions":[{"type":"Other","status":"True"}]})").as_object();
  EXPECT_EQ(json::serialize(table().TableCells(bare)), R"(["x","Unknown","",""])");
}

TEST(LeaseHeldTest, HeldUntilRenewTimePlusDuration) {
  auto lease = json::parse(R"({"spec":{"holderIdentity":"a","leaseDurationSeconds":15,
    "renewTime":"2026-01-01T00:00:00.000000Z"}})").as_object();
  auto at = [](const char* t) { return *am::ParseRfc3339(t); };
  EXPECT_TRUE(LeaseHeld(lease, at("2026-01-01T00:00:14Z")));
  EXPECT_FALSE(LeaseHeld(lease, at("2026-01-01T00:00:15Z")));
  EXPECT_FALSE(LeaseHeld(lease, at("2026-01-01T00:01:00Z")));
  auto released = lease;
  released["spec"].as_object()["holderIdentity"] = "";
  EXPECT_FALSE(LeaseHeld(released, at("2026-01-01T00:00:01Z")));
  EXPECT_FALSE(LeaseHeld(json::object{}, at("2026-01-01T00:00:01Z")));
  auto no_renew = lease;
  no_renew["spec"].as_object().erase("renewTime");
  EXPECT_FALSE(LeaseHeld(no_renew, at("2026-01-01T00:00:01Z")));
}

}  // namespace
}  // namespace capstan::api::core
