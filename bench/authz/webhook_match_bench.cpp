// bench/authz/webhook_match_bench.cpp: what a webhook authorizer from --authorization-config costs
// per decision, in one run against a webhook on loopback (HTTPS, one I/O thread): skipped by its
// matchConditions (CEL over the SubjectAccessReview spec, no call), answered from its cache with and
// without matchConditions, and called for every decision (a new user each time). Prints the mean
// and p99 per case.
//
//   webhook_match_bench [iterations=20000] [called_iterations=2000]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cmd/authorization/authorization_setup.h"
#include "authn_test_util.h"

using namespace capstan;
using namespace capstan::authz;
using SteadyClock = std::chrono::steady_clock;

namespace {

std::string Config(const std::string& kubeconfig, const std::string& condition) {
  std::string c = "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n"
                  "- type: Webhook\n  name: bench\n  webhook:\n    timeout: 5s\n    subjectAccessReviewVersion: v1\n"
                  "    failurePolicy: NoOpinion\n    connectionInfo:\n      type: KubeConfigFile\n      kubeConfigFile: " +
                  kubeconfig + "\n";
  if (!condition.empty()) {
    c += "    matchConditionSubjectAccessReviewVersion: v1\n    matchConditions:\n"
         "    - expression: has(request.resourceAttributes)\n    - expression: \"" + condition + "\"\n";
  }
  return c + "- type: RBAC\n  name: rbac\n";
}

Attributes Request(const std::string& user) {
  Attributes a;
  a.user.name = user;
  a.user.groups = {"devs", "system:authenticated"};
  a.verb = "get";
  a.resource_request = true;
  a.api_version = "v1";
  a.resource = "configmaps";
  a.namespace_ = "team-a";
  a.name = "settings";
  return a;
}

void Run(const char* label, const std::string& config_file, const std::string& text, int iterations, bool new_user,
         Decision expect) {
  std::ofstream(config_file) << text;
  endpoints::ApiRegistry apis;
  AuthorizationOptions o;
  o.config_file = config_file;
  auto setup = AuthorizationSetup::Create(o, apis);
  if (!setup.ok()) {
    std::fprintf(stderr, "%s: %s\n", label, setup.status().message().c_str());
    std::exit(1);
  }
  Authorizer& az = (*setup)->authorizer();
  (void)SyncWait(az.Authorize(Request("warm-up")));
  std::vector<double> us;
  us.reserve(iterations);
  for (int i = 0; i < iterations; ++i) {
    Attributes a = Request(new_user ? "user-" + std::to_string(i) : "alice");
    auto t0 = SteadyClock::now();
    Result r = SyncWait(az.Authorize(a));
    us.push_back(std::chrono::duration<double, std::micro>(SteadyClock::now() - t0).count());
    if (r.decision != expect) {
      std::fprintf(stderr, "%s: unexpected decision (%s)\n", label, r.error.c_str());
      std::exit(1);
    }
  }
  double mean = 0;
  for (double x : us) mean += x;
  mean /= us.size();
  std::sort(us.begin(), us.end());
  std::printf("%-44s %10.2f us %10.2f us\n", label, mean, us[us.size() * 99 / 100]);
}

}  // namespace

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 20000;
  int called = argc > 2 ? std::atoi(argv[2]) : 2000;
  authn::testing::TestCa ca;
  std::atomic<int> calls{0};
  authn::testing::TestHttpsServer webhook(ca, [&](const http::HttpRequest& req) {
    calls++;
    boost::json::object review = boost::json::parse(req.body).as_object();
    review["status"] = boost::json::object{{"allowed", true}};
    return authn::testing::JsonReply(200, boost::json::serialize(review));
  });
  if (!webhook.ok()) return 1;
  authn::testing::TempDir dir;
  dir.Write("ca.crt", ca.pem());
  std::string kc = dir.Write("w.kubeconfig", "apiVersion: v1\nkind: Config\nclusters:\n- name: w\n  cluster:\n    server: " +
                                                 webhook.url("/authorize") +
                                                 "\n    certificate-authority: ca.crt\nusers:\n- name: a\n  user: {}\n"
                                                 "contexts:\n- name: c\n  context:\n    cluster: w\n    user: a\n"
                                                 "current-context: c\n");
  const std::string file = dir.path() + "/authz.yaml";
  std::printf("%-44s %13s %13s\n", "case", "mean", "p99");
  Run("skipped by matchConditions (no call)", file, Config(kc, "request.resourceAttributes.namespace == 'team-b'"), n,
      false, Decision::kNoOpinion);
  Run("matchConditions hold, answer cached", file, Config(kc, "request.resourceAttributes.namespace == 'team-a'"), n,
      false, Decision::kAllow);
  Run("no matchConditions, answer cached", file, Config(kc, ""), n, false, Decision::kAllow);
  int before = calls.load();
  Run("matchConditions hold, webhook called", file, Config(kc, "request.resourceAttributes.namespace == 'team-a'"),
      called, true, Decision::kAllow);
  std::printf("webhook calls in the last case: %d\n", calls.load() - before);
  return 0;
}
