// policy/v1 PodDisruptionBudgets through the real Store over the embedded backend: validation
// messages, generation, status subresource, printer, and the upstream fixture.
#include <gtest/gtest.h>

#include "api/apps/api_test_env.h"
#include "api/apps/fixture_util.h"
#include "api/policy/policy.h"
#include "apimachinery/object_meta.h"

namespace capstan::api::policy {
namespace {

namespace am = capstan::apimachinery;
namespace json = boost::json;
using registry::Object;
using testing::ApiTestEnv;
using testing::Parse;

Object Pdb(const std::string& name, const std::string& bounds) {
  return Parse(R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":")" + name +
               R"("},"spec":{"selector":{"matchLabels":{"app":"rails"}},)" + bounds + "}}");
}

class PolicyTest : public ::testing::Test {
 protected:
  ApiTestEnv env_{Install};
};

TEST_F(PolicyTest, CreatePrintAndGeneration) {
  auto pdb = env_.Create("poddisruptionbudgets", Pdb("rails", R"("minAvailable":1)"));
  ASSERT_TRUE(pdb.ok()) << pdb.status().message();
  EXPECT_EQ(am::GetGeneration(*pdb), 1);
  std::vector<std::string> names;
  for (const auto& c : env_.Columns("poddisruptionbudgets")) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"Name", "Min Available", "Max Unavailable", "Allowed Disruptions", "Age"}));
  auto cells = env_.Cells("poddisruptionbudgets", *pdb);
  EXPECT_EQ(cells[1].as_string(), "1");
  EXPECT_EQ(cells[2].as_string(), "N/A");
  EXPECT_EQ(cells[3].as_int64(), 0);
  auto upd = env_.Mutate("poddisruptionbudgets", "rails", [](Object& o) { o["spec"].as_object()["minAvailable"] = "50%"; });
  ASSERT_TRUE(upd.ok()) << upd.status().message();
  EXPECT_EQ(am::GetGeneration(upd->object), 2);
  EXPECT_EQ(env_.Find("poddisruptionbudgets")->info.short_names, std::vector<std::string>{"pdb"});
}

TEST_F(PolicyTest, ValidationMessages) {
  auto both = env_.Create("poddisruptionbudgets", Pdb("both", R"("minAvailable":1,"maxUnavailable":1)"));
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.status().message().find("spec: Invalid value: policy.PodDisruptionBudgetSpec{"), std::string::npos);
  EXPECT_NE(both.status().message().find("}: minAvailable and maxUnavailable cannot be both set"), std::string::npos);
  auto pct = env_.Create("poddisruptionbudgets", Pdb("pct", R"("maxUnavailable":"120%")"));
  ASSERT_FALSE(pct.ok());
  EXPECT_EQ(pct.status().message(),
            "PodDisruptionBudget.policy \"pct\" is invalid: spec.maxUnavailable: Invalid value: "
            "intstr.IntOrString{Type:1, IntVal:0, StrVal:\"120%\"}: must not be greater than 100%");
  auto neg = env_.Create("poddisruptionbudgets", Pdb("neg", R"("minAvailable":-1)"));
  ASSERT_FALSE(neg.ok());
  EXPECT_EQ(neg.status().message(),
            "PodDisruptionBudget.policy \"neg\" is invalid: spec.minAvailable: Invalid value: -1: must be greater than "
            "or equal to 0");
  auto policy = env_.Create("poddisruptionbudgets", Pdb("uh", R"("minAvailable":1,"unhealthyPodEvictionPolicy":"Never")"));
  ASSERT_FALSE(policy.ok());
  EXPECT_EQ(policy.status().message(),
            "PodDisruptionBudget.policy \"uh\" is invalid: spec.unhealthyPodEvictionPolicy: Unsupported value: \"Never\": "
            "supported values: \"AlwaysAllow\", \"IfHealthyBudget\"");
}

TEST_F(PolicyTest, StatusSubresource) {
  ASSERT_TRUE(env_.Create("poddisruptionbudgets", Pdb("rails", R"("minAvailable":1)")).ok());
  auto ok = env_.Mutate(
      "poddisruptionbudgets", "rails",
      [](Object& o) {
        o["status"] = Parse(R"({"disruptionsAllowed":2,"currentHealthy":3,"desiredHealthy":1,"expectedPods":3})");
        o["spec"].as_object()["minAvailable"] = 9;
      },
      "status");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->object.at("spec").at("minAvailable").as_int64(), 1);
  EXPECT_EQ(env_.Cells("poddisruptionbudgets", ok->object)[3].as_int64(), 2);
  auto bad = env_.Mutate(
      "poddisruptionbudgets", "rails", [](Object& o) { o["status"] = Parse(R"({"disruptionsAllowed":-1})"); }, "status");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "PodDisruptionBudget.policy \"rails\" is invalid: status.disruptionsAllowed: Invalid value: -1: must be "
            "greater than or equal to 0");
}

TEST_F(PolicyTest, Fixture) {
  auto f = testing::LoadFixture("policy.v1.PodDisruptionBudget");
  if (!f) GTEST_SKIP() << "fixture not found";
  Object pdb = *f;
  testing::SanitizeMetadata(pdb);
  auto& spec = pdb["spec"].as_object();
  spec["minAvailable"] = "50%";
  spec.erase("maxUnavailable");  // kube accepts one of the two
  spec["unhealthyPodEvictionPolicy"] = "AlwaysAllow";
  testing::SanitizeSelector(spec["selector"].as_object());
  Object status = pdb["status"].as_object();
  status["conditions"].as_array()[0].as_object()["status"] = "True";
  auto created = env_.Create("poddisruptionbudgets", pdb);
  ASSERT_TRUE(created.ok()) << created.status().message();
  testing::ExpectNothingLost(pdb, *created,
                             {"metadata.uid", "metadata.resourceVersion", "metadata.creationTimestamp",
                              "metadata.generation", "status"});
  auto st = env_.Mutate("poddisruptionbudgets", "fixture", [&](Object& o) { o["status"] = status; }, "status");
  ASSERT_TRUE(st.ok()) << st.status().message();
  testing::ExpectNothingLost(status, st->object.at("status"), {});
}

}  // namespace
}  // namespace capstan::api::policy
