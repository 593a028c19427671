// HorizontalPodAutoscalers in autoscaling/v2 (stored) and v1 (converted) through the real Stores over
// the embedded backend: defaults, kube's conversion and its round-trip annotations, validation,
// printer, and the upstream fixtures of both versions.
#include <gtest/gtest.h>

#include "api/apps/api_test_env.h"
#include "api/apps/fixture_util.h"
#include "api/autoscaling/autoscaling.h"
#include "api/autoscaling/hpa_conversion.h"
#include "apimachinery/object_meta.h"

namespace capstan::api::autoscaling {
namespace {

namespace am = capstan::apimachinery;
namespace json = boost::json;
using registry::Object;
using testing::ApiTestEnv;
using testing::Parse;

Object HpaV1(const std::string& name, int cpu) {
  return Parse(R"({"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":")" + name +
               R"("},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"maxReplicas":10,)"
               R"("targetCPUUtilizationPercentage":)" +
               std::to_string(cpu) + "}}");
}

Object HpaV2(const std::string& name) {
  return Parse(R"({"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":")" + name +
               R"("},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"minReplicas":2,)"
               R"("maxReplicas":10,"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization",)"
               R"("averageUtilization":50}}},{"type":"Resource","resource":{"name":"memory","target":{"type":"AverageValue",)"
               R"("averageValue":"100Mi"}}}],"behavior":{"scaleDown":{"stabilizationWindowSeconds":300}}}})");
}

class AutoscalingTest : public ::testing::Test {
 protected:
  ApiTestEnv env_{Install};
};

TEST_F(AutoscalingTest, ServedInBothVersions) {
  const auto* v2 = env_.Find("horizontalpodautoscalers", "", "v2");
  const auto* v1 = env_.Find("horizontalpodautoscalers", "", "v1");
  ASSERT_NE(v2, nullptr);
  ASSERT_NE(v1, nullptr);
  EXPECT_EQ(v1->info.ApiVersion(), "autoscaling/v1");
  EXPECT_EQ(v1->info.short_names, std::vector<std::string>{"hpa"});
  EXPECT_EQ(v2->info.categories, std::vector<std::string>{"all"});
  EXPECT_NE(env_.Find("horizontalpodautoscalers", "status", "v1"), nullptr);
  EXPECT_NE(env_.Find("horizontalpodautoscalers", "status", "v2"), nullptr);
}

TEST_F(AutoscalingTest, CreatedThroughV1ReadThroughV2) {
  auto created = env_.Create("horizontalpodautoscalers", HpaV1("web", 50), "v1");
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_EQ(am::GetApiVersion(*created), "autoscaling/v1");
  EXPECT_EQ(created->at("spec").at("targetCPUUtilizationPercentage").as_int64(), 50);
  EXPECT_EQ(created->at("spec").at("minReplicas").as_int64(), 1);
  EXPECT_TRUE(am::GetAnnotations(*created).empty());
  auto v2 = env_.Get("horizontalpodautoscalers", "web", "", "v2");
  ASSERT_TRUE(v2.ok());
  EXPECT_EQ(am::GetApiVersion(*v2), "autoscaling/v2");
  EXPECT_EQ(v2->at("spec").at("metrics"),
            json::parse(R"([{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}}])"));
  // Without a CPU target v1 means 80%.
  Object plain = HpaV1("plain", 0);
  plain["spec"].as_object().erase("targetCPUUtilizationPercentage");
  auto p = env_.Create("horizontalpodautoscalers", plain, "v1");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->at("spec").at("targetCPUUtilizationPercentage").as_int64(), 80);
}

TEST_F(AutoscalingTest, WhatV1CannotSayTravelsInAnnotationsAndSurvivesARoundTrip) {
  auto created = env_.Create("horizontalpodautoscalers", HpaV2("web"), "v2");
  ASSERT_TRUE(created.ok()) << created.status().message();
  // v2 defaulting filled the behavior rules.
  EXPECT_EQ(created->at("spec").at("behavior").at("scaleUp").at("selectPolicy").as_string(), "Max");
  auto st = env_.Mutate(
      "horizontalpodautoscalers", "web",
      [](Object& o) {
        o["status"] = Parse(R"({"currentReplicas":2,"desiredReplicas":3,"currentMetrics":[{"type":"Resource","resource":)"
                            R"({"name":"cpu","current":{"averageValue":"120m","averageUtilization":30}}}],"conditions":[)"
                            R"({"type":"AbleToScale","status":"True","lastTransitionTime":"2024-01-01T00:00:00Z","reason":"Ok"}]})");
      },
      "status", "v2");
  ASSERT_TRUE(st.ok()) << st.status().message();

  auto v1 = env_.Get("horizontalpodautoscalers", "web", "", "v1");
  ASSERT_TRUE(v1.ok());
  EXPECT_EQ(v1->at("spec").at("targetCPUUtilizationPercentage").as_int64(), 50);
  EXPECT_EQ(v1->at("status").at("currentCPUUtilizationPercentage").as_int64(), 30);
  EXPECT_EQ(v1->at("status").at("currentReplicas").as_int64(), 2);
  am::StringPairs a = am::GetAnnotations(*v1);
  std::map<std::string, std::string> annotations(a.begin(), a.end());
  EXPECT_EQ(annotations["autoscaling.alpha.kubernetes.io/metrics"],
            R"([{"type":"Resource","resource":{"name":"memory","targetAverageValue":"100Mi"}}])");
  EXPECT_EQ(annotations["autoscaling.alpha.kubernetes.io/current-metrics"],
            R"([{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":30,"currentAverageValue":"120m"}}])");
  EXPECT_EQ(annotations["autoscaling.alpha.kubernetes.io/behavior"],
            R"({"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,)"
            R"("PeriodSeconds":15},{"Type":"Percent","Value":100,"PeriodSeconds":15}]},"ScaleDown":)"
            R"({"StabilizationWindowSeconds":300,"SelectPolicy":"Max","Policies":[{"Type":"Percent","Value":100,"PeriodSeconds":15}]}})");
  EXPECT_EQ(annotations["autoscaling.alpha.kubernetes.io/conditions"],
            R"([{"type":"AbleToScale","status":"True","lastTransitionTime":"2024-01-01T00:00:00Z","reason":"Ok"}])");

  // A v1 client writes back what it read, with a new maximum: nothing v2 holds is lost.
  Object body = *v1;
  body["spec"].as_object()["maxReplicas"] = 12;
  auto put = env_.Put("horizontalpodautoscalers", "web", body, "", "v1");
  ASSERT_TRUE(put.ok()) << put.status().message();
  auto after = env_.Get("horizontalpodautoscalers", "web", "", "v2");
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->at("spec").at("maxReplicas").as_int64(), 12);
  // As kube does, the metrics v1 carries in the annotation come first, the CPU target last.
  json::array metrics = created->at("spec").at("metrics").as_array();
  std::swap(metrics[0], metrics[1]);
  EXPECT_EQ(after->at("spec").at("metrics"), metrics);
  EXPECT_EQ(after->at("spec").at("behavior"), created->at("spec").at("behavior"));
  EXPECT_TRUE(am::GetAnnotations(*after).empty());
  EXPECT_EQ(after->at("status"), st->object.at("status"));
}

TEST_F(AutoscalingTest, ValidationAndPrinter) {
  Object bad = HpaV2("bad");
  bad["spec"].as_object()["maxReplicas"] = 1;
  auto r = env_.Create("horizontalpodautoscalers", bad, "v2");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "HorizontalPodAutoscaler.autoscaling \"bad\" is invalid: spec.maxReplicas: Invalid value: 1: must be greater "
            "than or equal to `minReplicas`");
  Object v1bad = HpaV1("v1bad", 0);
  v1bad["spec"].as_object()["maxReplicas"] = 0;
  auto r1 = env_.Create("horizontalpodautoscalers", v1bad, "v1");
  ASSERT_FALSE(r1.ok());
  EXPECT_EQ(r1.status().message(),
            "HorizontalPodAutoscaler.autoscaling \"v1bad\" is invalid: [spec.maxReplicas: Invalid value: 0: must be greater "
            "than 0, spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`, "
            "spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0]");

  auto created = env_.Create("horizontalpodautoscalers", HpaV2("web"), "v2");
  ASSERT_TRUE(created.ok());
  std::vector<std::string> names;
  for (const auto& c : env_.Columns("horizontalpodautoscalers", "v2")) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"Name", "Reference", "Targets", "MinPods", "MaxPods", "Replicas", "Age"}));
  auto cells = env_.Cells("horizontalpodautoscalers", *created, "v2");
  ASSERT_EQ(cells.size(), 7u);
  EXPECT_EQ(cells[1].as_string(), "Deployment/web");
  EXPECT_EQ(cells[2].as_string(), "cpu: <unknown>/50%, memory: <unknown>/100Mi");
  EXPECT_EQ(cells[3].as_string(), "2");
  EXPECT_EQ(cells[4].as_int64(), 10);
  EXPECT_EQ(cells[5].as_int64(), 0);
  // The v1 table prints from the object converted back (the CPU target then comes last).
  auto v1 = env_.Get("horizontalpodautoscalers", "web", "", "v1");
  ASSERT_TRUE(v1.ok());
  auto cells1 = env_.Cells("horizontalpodautoscalers", *v1, "v1");
  EXPECT_EQ(cells1[2].as_string(), "memory: <unknown>/100Mi, cpu: <unknown>/50%");
}

TEST(HpaConversionTest, DropsStaleRoundTripAnnotations) {
  Object v2 = HpaV2("x");
  am::SetAnnotation(v2, "autoscaling.alpha.kubernetes.io/conditions", "stale");
  am::SetAnnotation(v2, "keep", "me");
  auto v1 = HpaV2ToV1(v2);
  ASSERT_TRUE(v1.ok());
  EXPECT_EQ(am::GetAnnotations(*v1), (am::StringPairs{{"keep", "me"}, {"autoscaling.alpha.kubernetes.io/metrics",
                                                       R"([{"type":"Resource","resource":{"name":"memory","targetAverageValue":"100Mi"}}])"},
                                                      {"autoscaling.alpha.kubernetes.io/behavior",
                                                       R"({"ScaleUp":null,"ScaleDown":{"StabilizationWindowSeconds":300,"SelectPolicy":null,"Policies":null}})"}}));
  // Unreadable annotations are ignored, as kube ignores them.
  Object in = HpaV1("y", 40);
  am::SetAnnotation(in, "autoscaling.alpha.kubernetes.io/metrics", "{not json");
  auto back = HpaV1ToV2(in);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->at("spec").at("metrics").as_array().size(), 1u);
  EXPECT_TRUE(am::GetAnnotations(*back).empty());
}

// --- fixtures ---

const std::vector<std::string> kServerOwned = {"metadata.uid", "metadata.resourceVersion", "metadata.creationTimestamp",
                                               "metadata.generation", "status"};

// One metric per source kind, each valid.
json::array SplitMetrics(const json::object& all) {
  json::array out;
  const std::pair<const char*, const char*> kinds[] = {{"object", "Object"},
                                                       {"pods", "Pods"},
                                                       {"resource", "Resource"},
                                                       {"containerResource", "ContainerResource"},
                                                       {"external", "External"}};
  for (const auto& [key, type] : kinds) {
    json::object src = all.at(key).as_object();
    for (const char* t : {"target", "current"}) {
      if (!src.contains(t)) continue;
      auto& target = src[t].as_object();
      if (target.contains("value")) target["value"] = "1";
      if (target.contains("averageValue")) target["averageValue"] = "1";
      if (std::string_view(t) == "target") {
        target["type"] = "Value";
        if (std::string_view(key) == "resource" || std::string_view(key) == "containerResource" ||
            std::string_view(key) == "external") {
          target.erase("averageValue");
        }
      }
    }
    if (src.contains("container")) src["container"] = "ctr";
    json::object m;
    m["type"] = type;
    m[key] = std::move(src);
    out.push_back(std::move(m));
  }
  return out;
}

TEST_F(AutoscalingTest, V2Fixture) {
  auto f = testing::LoadFixture("autoscaling.v2.HorizontalPodAutoscaler");
  if (!f) GTEST_SKIP() << "fixture not found";
  Object hpa = *f;
  testing::SanitizeMetadata(hpa);
  auto& spec = hpa["spec"].as_object();
  spec["metrics"] = SplitMetrics(spec["metrics"].as_array()[0].as_object());
  for (const char* dir : {"scaleUp", "scaleDown"}) {
    auto& rules = spec["behavior"].as_object()[dir].as_object();
    rules["selectPolicy"] = "Max";
    rules["policies"].as_array()[0].as_object()["type"] = "Pods";
  }
  Object status = hpa["status"].as_object();
  status["currentMetrics"] = SplitMetrics(status["currentMetrics"].as_array()[0].as_object());
  auto created = env_.Create("horizontalpodautoscalers", hpa, "v2");
  ASSERT_TRUE(created.ok()) << created.status().message();
  testing::ExpectNothingLost(hpa, *created, kServerOwned);
  auto st = env_.Mutate("horizontalpodautoscalers", "fixture", [&](Object& o) { o["status"] = status; }, "status", "v2");
  ASSERT_TRUE(st.ok()) << st.status().message();
  testing::ExpectNothingLost(status, st->object.at("status"), {});
}

TEST_F(AutoscalingTest, V1Fixture) {
  auto f = testing::LoadFixture("autoscaling.v1.HorizontalPodAutoscaler");
  if (!f) GTEST_SKIP() << "fixture not found";
  Object hpa = *f;
  testing::SanitizeMetadata(hpa);
  Object status = hpa["status"].as_object();
  auto created = env_.Create("horizontalpodautoscalers", hpa, "v1");
  ASSERT_TRUE(created.ok()) << created.status().message();
  testing::ExpectNothingLost(hpa, *created, kServerOwned);
  auto st = env_.Mutate("horizontalpodautoscalers", "fixture", [&](Object& o) { o["status"] = status; }, "status", "v1");
  ASSERT_TRUE(st.ok()) << st.status().message();
  testing::ExpectNothingLost(status, st->object.at("status"), {});
}

}  // namespace
}  // namespace capstan::api::autoscaling
