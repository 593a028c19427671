// End-to-end: the workload groups (apps/v1, batch/v1, autoscaling v1 and v2, policy/v1) through the
// real kubectl: create, get (also -o wide), scale, describe, the version conversion of
// HorizontalPodAutoscalers, discovery short names and `kubectl get all`.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "e2e_util.h"

namespace capstan::e2e {
namespace {

class WorkloadsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new ServerProcess(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(server_->ok()) << server_->error(); }

  static CommandResult K(const std::vector<std::string>& args, const std::string& input = "") {
    return server_->Kubectl(args, input, "32");
  }
  static CommandResult K31(const std::vector<std::string>& args, const std::string& input = "") {
    return server_->Kubectl(args, input, "31");
  }
  // The header line of a table, with runs of spaces collapsed.
  static std::string Squeeze(const std::string& line) { return std::regex_replace(line, std::regex(" +"), " "); }
  static std::vector<std::string> Lines(const std::string& s) {
    std::vector<std::string> out;
    std::istringstream in(s);
    for (std::string l; std::getline(in, l);) out.push_back(Squeeze(l));
    return out;
  }
  static ServerProcess* server_;
};
ServerProcess* WorkloadsTest::server_ = nullptr;

TEST_F(WorkloadsTest, CreateDeploymentGetWideScaleAndDescribe) {
  auto c = K({"create", "deployment", "web", "--image=nginx", "--replicas=2"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(c.out, "deployment.apps/web created\n");
  auto old = K31({"create", "deployment", "old", "--image=nginx:1.25"});
  ASSERT_EQ(old.exit_code, 0) << old.err;
  EXPECT_EQ(old.out, "deployment.apps/old created\n");

  auto g = K({"get", "deploy", "web", "-o", "wide"});
  ASSERT_EQ(g.exit_code, 0) << g.err;
  auto lines = Lines(g.out);
  ASSERT_EQ(lines.size(), 2u) << g.out;
  EXPECT_EQ(lines[0], "NAME READY UP-TO-DATE AVAILABLE AGE CONTAINERS IMAGES SELECTOR");
  EXPECT_TRUE(std::regex_match(lines[1], std::regex("web 0/2 [0-9]+ [0-9]+ [0-9]+s nginx nginx app=web"))) << lines[1];

  auto defaults = K({"get", "deploy", "web", "-o",
                     "jsonpath={.spec.strategy.rollingUpdate.maxSurge},{.spec.revisionHistoryLimit},"
                     "{.spec.progressDeadlineSeconds},{.spec.template.spec.containers[0].imagePullPolicy},"
                     "{.metadata.generation}"});
  EXPECT_EQ(defaults.out, "25%,10,600,Always,1");

  auto s = K({"scale", "deployment", "web", "--replicas=3"});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_EQ(s.out, "deployment.apps/web scaled\n");
  EXPECT_EQ(K({"get", "deploy", "web", "-o", "jsonpath={.spec.replicas},{.metadata.generation}"}).out, "3,2");
  auto scale = K({"get", "--raw", "/apis/apps/v1/namespaces/default/deployments/web/scale"});
  EXPECT_NE(scale.out.find("\"kind\":\"Scale\""), std::string::npos) << scale.out;
  EXPECT_NE(scale.out.find("\"selector\":\"app=web\""), std::string::npos) << scale.out;

  auto d = K({"describe", "deployment", "web"});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  for (const char* want : {"Name:                   web", "Namespace:              default",
                           "Selector:               app=web", "StrategyType:           RollingUpdate",
                           "RollingUpdateStrategy:  25% max unavailable, 25% max surge", "Pod Template:",
                           "    Image:         nginx"}) {
    EXPECT_NE(d.out.find(want), std::string::npos) << want << "\n" << d.out;
  }
}

TEST_F(WorkloadsTest, SelectorMismatchIsKubesError) {
  std::string bad =
      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: bad\nspec:\n  selector:\n    matchLabels:\n      app: a\n"
      "  template:\n    metadata:\n      labels:\n        app: b\n    spec:\n      containers:\n      - name: c\n"
      "        image: nginx\n";
  auto r = K({"create", "--validate=false", "-f", "-"}, bad);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("The Deployment \"bad\" is invalid: spec.template.metadata.labels: Invalid value: "
                       "map[string]string{\"app\":\"b\"}: `selector` does not match template `labels`"),
            std::string::npos)
      << r.err;
}

TEST_F(WorkloadsTest, JobsAndCronJobs) {
  auto j = K({"create", "job", "pi", "--image=busybox", "--", "echo", "hi"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  EXPECT_EQ(j.out, "job.batch/pi created\n");
  auto g = K({"get", "jobs"});
  auto lines = Lines(g.out);
  ASSERT_GE(lines.size(), 2u) << g.out;
  EXPECT_EQ(lines[0], "NAME STATUS COMPLETIONS DURATION AGE");
  EXPECT_TRUE(std::regex_match(lines[1], std::regex("pi Running 0/1 [0-9]+s"))) << lines[1];
  auto sel = K({"get", "job", "pi", "-o", "jsonpath={.spec.selector.matchLabels}|{.metadata.uid}"});
  auto bar = sel.out.find('|');
  ASSERT_NE(bar, std::string::npos) << sel.out;
  EXPECT_NE(sel.out.find("batch.kubernetes.io/controller-uid\":\"" + sel.out.substr(bar + 1)), std::string::npos) << sel.out;

  auto c = K31({"create", "cronjob", "tick", "--image=busybox", "--schedule=*/5 * * * *"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(c.out, "cronjob.batch/tick created\n");
  auto cg = K({"get", "cronjobs"});
  lines = Lines(cg.out);
  ASSERT_GE(lines.size(), 2u) << cg.out;
  EXPECT_EQ(lines[0], "NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE");
  EXPECT_TRUE(std::regex_match(lines[1], std::regex(R"(tick \*/5 \* \* \* \* <none> False 0 <none> [0-9]+s)"))) << lines[1];
  auto bad = K({"create", "cronjob", "bad", "--image=busybox", "--schedule=not a schedule"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("spec.schedule: Invalid value: \"not a schedule\": expected exactly 5 fields, found 3: [not a "
                         "schedule]"),
            std::string::npos)
      << bad.err;
}

TEST_F(WorkloadsTest, HorizontalPodAutoscalerInBothVersions) {
  std::string v1 =
      "apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\nspec:\n  scaleTargetRef:\n"
      "    apiVersion: apps/v1\n    kind: Deployment\n    name: web\n  minReplicas: 2\n  maxReplicas: 5\n"
      "  targetCPUUtilizationPercentage: 70\n";
  auto c = K({"create", "--validate=false", "-f", "-"}, v1);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(c.out, "horizontalpodautoscaler.autoscaling/web created\n");
  auto as_v1 = K({"get", "horizontalpodautoscalers.v1.autoscaling", "web", "-o", "jsonpath={.apiVersion},{.spec.targetCPUUtilizationPercentage}"});
  EXPECT_EQ(as_v1.out, "autoscaling/v1,70") << as_v1.err;
  auto as_v2 = K({"get", "horizontalpodautoscalers.v2.autoscaling", "web", "-o",
                  "jsonpath={.apiVersion},{.spec.metrics[0].resource.name},{.spec.metrics[0].resource.target.averageUtilization}"});
  EXPECT_EQ(as_v2.out, "autoscaling/v2,cpu,70") << as_v2.err;
  for (const char* resource : {"hpa", "horizontalpodautoscalers.v1.autoscaling"}) {
    auto g = K({"get", resource});
    auto lines = Lines(g.out);
    ASSERT_GE(lines.size(), 2u) << g.out << g.err;
    EXPECT_EQ(lines[0], "NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE") << resource;
    EXPECT_TRUE(std::regex_match(lines[1], std::regex("web Deployment/web cpu: <unknown>/70% 2 5 0 [0-9]+s"))) << lines[1];
  }
}

TEST_F(WorkloadsTest, PodDisruptionBudgets) {
  auto c = K({"create", "pdb", "rails", "--selector=app=rails", "--min-available=1"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(c.out, "poddisruptionbudget.policy/rails created\n");
  auto g = K({"get", "pdb"});
  auto lines = Lines(g.out);
  ASSERT_GE(lines.size(), 2u) << g.out;
  EXPECT_EQ(lines[0], "NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE");
  EXPECT_TRUE(std::regex_match(lines[1], std::regex("rails 1 N/A 0 [0-9]+s"))) << lines[1];
  auto both = K({"create", "pdb", "both", "--selector=app=x", "--min-available=50%", "--max-unavailable=1"});
  EXPECT_NE(both.exit_code, 0);
}

TEST_F(WorkloadsTest, DiscoveryShortNamesAndGetAll) {
  auto r = K({"api-resources", "--api-group=apps", "--no-headers"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* want : {"controllerrevisions apps/v1 true ControllerRevision",
                           "daemonsets ds apps/v1 true DaemonSet", "deployments deploy apps/v1 true Deployment",
                           "replicasets rs apps/v1 true ReplicaSet", "statefulsets sts apps/v1 true StatefulSet"}) {
    EXPECT_NE(Squeeze(r.out).find(want), std::string::npos) << want << "\n" << r.out;
  }
  ASSERT_EQ(K({"create", "deployment", "allweb", "--image=nginx"}).exit_code, 0);
  auto all = K({"get", "all"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_NE(all.out.find("deployment.apps/allweb"), std::string::npos) << all.out;
}

}  // namespace
}  // namespace capstan::e2e
