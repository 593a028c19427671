// apf_bench: nanoseconds per request through flowcontrol::Controller (classify, estimate, start,
// finish) under kube's bootstrap configuration at 600 seats, with the metrics on; one thread, so it
// is the work APF adds to a request, without the machine's noise. Prints one line per case.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "api/flowcontrol/flowcontrol.h"
#include "flowcontrol/controller.h"

using namespace capstan;

namespace {

std::vector<boost::json::value> Values(std::vector<registry::Object> objs) {
  std::vector<boost::json::value> out;
  int uid = 0;
  for (auto& o : objs) {
    o["metadata"].as_object()["uid"] = "uid-" + std::to_string(uid++);
    out.emplace_back(std::move(o));
  }
  return out;
}

void Run(const char* name, flowcontrol::Controller& c, const flowcontrol::RequestDigest& d,
         const flowcontrol::WorkRequest& w, int n) {
  for (int i = 0; i < n / 10; ++i) {  // warm
    auto t = c.Start(d, w);
    c.Finish(t);
  }
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    auto t = c.Start(d, w);
    c.Finish(t);
  }
  double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / n;
  std::printf("%-40s %9d %8.0f ns/op\n", name, n, ns);
}

}  // namespace

int main() {
  auto levels = api::flowcontrol::MandatoryPriorityLevels();
  for (auto& o : api::flowcontrol::SuggestedPriorityLevels()) levels.push_back(std::move(o));
  auto schemas = api::flowcontrol::MandatoryFlowSchemas();
  for (auto& o : api::flowcontrol::SuggestedFlowSchemas()) schemas.push_back(std::move(o));
  MetricsRegistry reg;
  flowcontrol::Metrics metrics(reg);
  flowcontrol::ControllerConfig cfg;
  cfg.server_concurrency_limit = 600;
  cfg.object_count = [](const std::string&, const std::string&) -> std::optional<int64_t> { return 250; };
  auto c = std::make_shared<flowcontrol::Controller>(RealClock::Get(), cfg, &metrics);
  c->Apply(Values(std::move(levels)), Values(std::move(schemas)));

  flowcontrol::RequestDigest admin;
  admin.is_resource_request = true;
  admin.verb = "get";
  admin.api_version = "v1";
  admin.resource = "configmaps";
  admin.namespace_ = "default";
  admin.name = "x";
  admin.user = {"kubernetes-admin", "", {"system:masters", "system:authenticated"}, {}};
  flowcontrol::WorkRequest get;
  get.verb = "get";
  get.resource = "configmaps";
  get.namespace_ = "default";
  get.name = "x";
  flowcontrol::RequestDigest user = admin;
  user.user = {"gooduser", "", {"system:authenticated"}, {}};
  flowcontrol::RequestDigest sa = admin;
  sa.user = {"system:serviceaccount:team:builder", "", {"system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"}, {}};
  flowcontrol::WorkRequest list = get;
  list.verb = "list";
  list.name.clear();
  flowcontrol::RequestDigest user_list = user;
  user_list.verb = "list";
  user_list.name.clear();

  const int n = 200000;
  Run("exempt (system:masters) GET", *c, admin, get, n);
  Run("global-default user GET", *c, user, get, n);
  Run("global-default user LIST (250 objects)", *c, user_list, list, n);
  Run("workload-low service account GET", *c, sa, get, n);
  return 0;
}
