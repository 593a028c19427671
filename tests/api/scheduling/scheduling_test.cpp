// scheduling.k8s.io/v1 PriorityClasses through the real Store over the embedded backend: defaults,
// the reserved "system-" names and value limits, immutable value, the system classes created at start
// and protected from deletion, the printer, and the fixture.
#include <gtest/gtest.h>

#include "api/networking/catalog_test_util.h"
#include "api/scheduling/scheduling.h"

namespace capstan::api::scheduling {
namespace {

namespace am = capstan::apimachinery;
using namespace capstan::api::testing;

class SchedulingTest : public ::testing::Test {
 protected:
  ApiTestEnv env_{Install};
};

TEST_F(SchedulingTest, DefaultsValidationAndPrinter) {
  auto created = env_.Create("priorityclasses", Parse(R"({"metadata":{"name":"high"},"value":1000})"));
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_EQ(GetString(*created, "preemptionPolicy"), "PreemptLowerPriority") << json::serialize(*created);
  // globalDefault is omitempty in kube's type: false is not written.
  EXPECT_TRUE(Get(*created, "globalDefault").is_null()) << json::serialize(*created);
  auto cells = env_.Cells("priorityclasses", *created);
  ASSERT_EQ(cells.size(), 5u);
  EXPECT_EQ(cells[1].as_int64(), 1000);
  EXPECT_EQ(cells[2].as_bool(), false);
  EXPECT_EQ(cells[4].as_string(), "PreemptLowerPriority");
  auto columns = env_.Columns("priorityclasses");
  ASSERT_EQ(columns.size(), 5u);
  EXPECT_EQ(columns[3].name, "Age");
  EXPECT_EQ(columns[4].name, "PreemptionPolicy");

  EXPECT_EQ(ErrorOf(env_.Create("priorityclasses", Parse(R"({"metadata":{"name":"system-mine"},"value":5})"))),
            "PriorityClass.scheduling.k8s.io \"system-mine\" is invalid: metadata.name: Forbidden: priority class names "
            "with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority "
            "class");
  EXPECT_EQ(ErrorOf(env_.Create("priorityclasses", Parse(R"({"metadata":{"name":"huge"},"value":1000000001,
                                                             "preemptionPolicy":"Sometimes"})"))),
            "PriorityClass.scheduling.k8s.io \"huge\" is invalid: [value: Forbidden: maximum allowed value of a user "
            "defined priority is 1000000000, preemptionPolicy: Unsupported value: \"Sometimes\": supported values: "
            "\"PreemptLowerPriority\", \"Never\"]");
  auto changed = env_.Mutate("priorityclasses", "high", [](Object& o) {
    o["value"] = 2000;
    o["preemptionPolicy"] = "Never";
  });
  EXPECT_EQ(ErrorOf(changed),
            "PriorityClass.scheduling.k8s.io \"high\" is invalid: [value: Forbidden: may not be changed in an update., "
            "preemptionPolicy: Invalid value: \"Never\": field is immutable]");
  EXPECT_TRUE(env_.Mutate("priorityclasses", "high", [](Object& o) { o["description"] = "d"; }).ok());
}

TEST_F(SchedulingTest, SystemClassesAreCreatedAndProtected) {
  auto* storage = env_.Find("priorityclasses")->storage.get();
  ASSERT_TRUE(SyncWait(EnsureSystemPriorityClasses(*storage)).ok());
  ASSERT_TRUE(SyncWait(EnsureSystemPriorityClasses(*storage)).ok()) << "a second start finds them and is fine";
  auto node = env_.Get("priorityclasses", "system-node-critical");
  ASSERT_TRUE(node.ok()) << node.status().message();
  EXPECT_EQ(Get(*node, "value").as_int64(), 2000001000);
  EXPECT_EQ(GetString(*node, "description"), "Used for system critical pods that must not be moved from their current node.");
  auto cluster = env_.Get("priorityclasses", "system-cluster-critical");
  ASSERT_TRUE(cluster.ok());
  EXPECT_EQ(Get(*cluster, "value").as_int64(), 2000000000);
  auto deleted = Delete(env_, "priorityclasses", "system-cluster-critical");
  ASSERT_FALSE(deleted.ok());
  EXPECT_EQ(deleted.status().code(), 403);
  EXPECT_EQ(deleted.status().message(),
            "priorityclasses.scheduling.k8s.io \"system-cluster-critical\" is forbidden: this is a system priority class "
            "and cannot be deleted");
  EXPECT_TRUE(env_.Get("priorityclasses", "system-cluster-critical").ok());
  // A system class with another value is refused.
  EXPECT_NE(ErrorOf(env_.Create("priorityclasses", Parse(R"({"metadata":{"name":"system-node-critical"},"value":1})")))
                .find("value of system-node-critical PriorityClass must be 2000001000"),
            std::string::npos);
  ASSERT_TRUE(env_.Create("priorityclasses", Parse(R"({"metadata":{"name":"low"},"value":1})")).ok());
  EXPECT_TRUE(Delete(env_, "priorityclasses", "low").ok());
}

TEST_F(SchedulingTest, Fixture) {
  CheckFixture(env_, "scheduling.k8s.io.v1.PriorityClass", "priorityclasses",
               [](Object& o) { o["preemptionPolicy"] = "Never"; });
}

}  // namespace
}  // namespace capstan::api::scheduling
