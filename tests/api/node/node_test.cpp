// node.k8s.io/v1 RuntimeClasses through the real Store over the embedded backend: handler rules,
// overhead quantities, scheduling tolerations, the printer, and the fixture.
#include <gtest/gtest.h>

#include "api/networking/catalog_test_util.h"
#include "api/node/node.h"

namespace capstan::api::node {
namespace {

using namespace capstan::api::testing;

class NodeTest : public ::testing::Test {
 protected:
  ApiTestEnv env_{Install};
};

TEST_F(NodeTest, HandlerOverheadAndPrinter) {
  auto created = env_.Create("runtimeclasses", Parse(R"({"metadata":{"name":"gvisor"},"handler":"runsc",
                                                         "overhead":{"podFixed":{"memory":"1024Mi","cpu":"0.25"}}})"));
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_EQ(GetString(*created, "overhead.podFixed.memory"), "1Gi");
  EXPECT_EQ(GetString(*created, "overhead.podFixed.cpu"), "250m");
  auto cells = env_.Cells("runtimeclasses", *created);
  ASSERT_EQ(cells.size(), 3u);
  EXPECT_EQ(cells[1].as_string(), "runsc");
  EXPECT_EQ(ErrorOf(env_.Mutate("runtimeclasses", "gvisor", [](Object& o) { o["handler"] = "kata"; })),
            "RuntimeClass.node.k8s.io \"gvisor\" is invalid: handler: Invalid value: \"kata\": field is immutable");
  EXPECT_EQ(ErrorOf(env_.Create("runtimeclasses", Parse(R"({"metadata":{"name":"bad"},"handler":"Run_SC",
      "scheduling":{"tolerations":[{"key":"k","operator":"Exists","value":"v"},{"operator":"Equal","effect":"Never"}]}})"))),
            "RuntimeClass.node.k8s.io \"bad\" is invalid: [handler: Invalid value: \"Run_SC\": a lowercase RFC 1123 label "
            "must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric "
            "character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), "
            "scheduling.tolerations.tolerations[0].operator: Invalid value: {\"key\":\"k\",\"operator\":\"Exists\",\"value\":\"v\"}: "
            "value must be empty when `operator` is 'Exists', scheduling.tolerations.tolerations[1].operator: Invalid "
            "value: \"Equal\": operator must be Exists when `key` is empty, which means \"match all values and all keys\", "
            "scheduling.tolerations.tolerations[1].effect: Unsupported value: \"Never\": supported values: \"NoSchedule\", "
            "\"PreferNoSchedule\", \"NoExecute\"]");
}

TEST_F(NodeTest, Fixture) {
  CheckFixture(env_, "node.k8s.io.v1.RuntimeClass", "runtimeclasses", [](Object& o) {
    o["handler"] = "runsc";
    Set(o, "overhead.podFixed", json::parse(R"({"cpu":"0"})"));
    Set(o, "scheduling.tolerations[0].operator", "Equal");
    Set(o, "scheduling.tolerations[0].effect", "NoExecute");
  });
}

}  // namespace
}  // namespace capstan::api::node
