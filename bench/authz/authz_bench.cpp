// bench/authz/authz_bench.cpp: RBAC decision time over a policy of N RoleBindings spread over
// namespaces, M ClusterRoles and the bootstrap policy, for allowed and denied requests (a denial
// visits every binding that names the caller, so it is the slower path), plus the snapshot rebuild
// time that every RBAC change costs. Prints p50/p99/max per case.
//
//   authz_bench [role_bindings=10000] [cluster_roles=1000] [namespaces=100] [iterations=200000]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "auth/authz/bootstrap_policy.h"
#include "auth/authz/rbac_authorizer.h"

using namespace capstan;
using namespace capstan::authz;
using Clock = std::chrono::steady_clock;

namespace {

struct Policy {
  std::vector<RoleData> roles, cluster_roles;
  std::vector<BindingData> rbs, crbs;
};

Policy MakePolicy(int role_bindings, int cluster_roles, int namespaces) {
  Policy p;
  const auto& bp = DefaultBootstrapPolicy();
  for (const auto& o : bp.cluster_roles) p.cluster_roles.push_back(RoleFromJson(o));
  for (const auto& o : bp.cluster_role_bindings) p.crbs.push_back(BindingFromJson(o));
  for (int i = 0; i < cluster_roles; ++i) {
    p.cluster_roles.push_back(RoleData{"", "role-" + std::to_string(i),
                                       {PolicyRule{{"get", "list", "watch"}, {"example.com"},
                                                   {"widgets" + std::to_string(i), "gadgets"}, {}, {}},
                                        PolicyRule{{"create"}, {""}, {"configmaps"}, {"cm-" + std::to_string(i)}, {}}}});
  }
  for (int i = 0; i < role_bindings; ++i) {
    std::string ns = "ns-" + std::to_string(i % namespaces);
    std::string user = "user-" + std::to_string(i);
    p.rbs.push_back(BindingData{ns, "rb-" + std::to_string(i),
                                RoleRef{kRbacGroup, "ClusterRole", "role-" + std::to_string(i % cluster_roles)},
                                {Subject{"User", kRbacGroup, user, ""}, Subject{"Group", kRbacGroup, "team-" + std::to_string(i % 50), ""}}});
  }
  return p;
}

struct Stats {
  double p50, p99, max;
};

Stats Measure(const RbacAuthorizer& rbac, const Attributes& a, int iterations, Decision expect) {
  std::vector<double> ns;
  ns.reserve(iterations);
  for (int i = 0; i < iterations; ++i) {
    auto t0 = Clock::now();
    Result r = rbac.Decide(a);
    auto t1 = Clock::now();
    if (r.decision != expect) {
      std::fprintf(stderr, "unexpected decision\n");
      std::exit(1);
    }
    ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count());
  }
  std::sort(ns.begin(), ns.end());
  return {ns[ns.size() / 2], ns[ns.size() * 99 / 100], ns.back()};
}

}  // namespace

int main(int argc, char** argv) {
  int role_bindings = argc > 1 ? std::atoi(argv[1]) : 10000;
  int cluster_roles = argc > 2 ? std::atoi(argv[2]) : 1000;
  int namespaces = argc > 3 ? std::atoi(argv[3]) : 100;
  int iterations = argc > 4 ? std::atoi(argv[4]) : 200000;
  Policy p = MakePolicy(role_bindings, cluster_roles, namespaces);
  auto t0 = Clock::now();
  auto policy = RbacPolicy::Build(p.roles, p.cluster_roles, p.rbs, p.crbs);
  double build_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  RbacAuthorizer rbac(policy);
  std::printf("policy: %d rolebindings in %d namespaces, %zu clusterroles, %zu clusterrolebindings; snapshot build %.1f ms\n",
              role_bindings, namespaces, p.cluster_roles.size(), p.crbs.size(), build_ms);

  const int u = role_bindings / 2;
  UserInfo user;
  user.name = "user-" + std::to_string(u);
  user.groups = {"team-" + std::to_string(u % 50), "system:authenticated"};
  Attributes allowed;
  allowed.user = user;
  allowed.verb = "list";
  allowed.resource_request = true;
  allowed.api_group = "example.com";
  allowed.resource = "gadgets";
  allowed.namespace_ = "ns-" + std::to_string(u % namespaces);
  Attributes denied = allowed;
  denied.verb = "delete";
  Attributes nonresource;
  nonresource.user = user;
  nonresource.verb = "get";
  nonresource.path = "/version";
  UserInfo admin;
  admin.name = "admin";
  admin.groups = {"system:masters", "system:authenticated"};
  Attributes admin_get = allowed;
  admin_get.user = admin;

  struct Case {
    const char* name;
    const Attributes* a;
    Decision expect;
  } cases[] = {{"allowed (namespaced, via group binding)", &allowed, Decision::kAllow},
               {"denied (visits every binding naming the user)", &denied, Decision::kNoOpinion},
               {"non-resource /version", &nonresource, Decision::kAllow},
               {"system:masters via cluster-admin binding", &admin_get, Decision::kAllow}};
  for (const auto& c : cases) {
    Measure(rbac, *c.a, iterations / 10, c.expect);  // warm-up
    Stats s = Measure(rbac, *c.a, iterations, c.expect);
    std::printf("%-48s p50 %7.0f ns  p99 %7.0f ns  max %8.0f ns\n", c.name, s.p50, s.p99, s.max);
  }
  return 0;
}
