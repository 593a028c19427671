// pod_security_bench: time of one PodSecurity decision on a pod create, for a namespace without labels
// (privileged), enforce=baseline and enforce=restricted, with the namespace lookup answered from
// memory (in the server it is a watch-cache Get). Prints ns per decision.
//   pod_security_bench [iterations]
#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "admission/pod_security.h"
#include "util/task.h"

using namespace capstan;
using namespace capstan::admission;
namespace json = boost::json;

namespace {

// The pod `kubectl run` writes, after defaulting, plus a restricted-compliant security context.
const char* kPod = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"ns","labels":{"run":"web"}},
 "spec":{"securityContext":{"runAsNonRoot":true,"seccompProfile":{"type":"RuntimeDefault"}},
 "containers":[{"name":"web","image":"nginx","imagePullPolicy":"Always","resources":{},
 "terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File",
 "securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}},
 "volumeMounts":[{"name":"kube-api-access","mountPath":"/var/run/secrets/kubernetes.io/serviceaccount","readOnly":true}]}],
 "volumes":[{"name":"kube-api-access","projected":{"sources":[{"serviceAccountToken":{"path":"token"}}]}}],
 "restartPolicy":"Always","dnsPolicy":"ClusterFirst","serviceAccountName":"default","enableServiceLinks":true}})";

double NsPerDecision(const char* level, int iterations) {
  json::object ns = {{"metadata", json::object{{"name", "ns"}}}};
  if (level) ns["metadata"].as_object()["labels"] = json::object{{"pod-security.kubernetes.io/enforce", level}};
  PodSecurityPlugin::Deps d;
  d.namespace_lookup = [ns](const std::string&) -> Task<StatusOr<registry::Object>> { co_return ns; };
  auto plugin = PodSecurityPlugin::Create(std::nullopt, std::move(d));
  if (!plugin.ok()) std::abort();
  registry::ResourceInfo info;
  info.resource = "pods";
  info.version = "v1";
  info.kind = "Pod";
  registry::Object pod = json::parse(kPod).as_object();
  UserInfo user;
  user.name = "admin";
  Attributes a;
  a.operation = "CREATE";
  a.resource = &info;
  a.namespace_ = "ns";
  a.name = "web";
  a.object = &pod;
  a.user = &user;
  auto run = [&] {
    auto decision = SyncWait((*plugin)->Decide(a));
    if (!decision.status.ok()) std::abort();
  };
  for (int i = 0; i < iterations / 10 + 1; ++i) run();  // warm up
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) run();
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / iterations;
}

}  // namespace

int main(int argc, char** argv) {
  int iterations = argc > 1 ? std::atoi(argv[1]) : 200000;
  for (int round = 0; round < 2; ++round) {
    std::printf("no labels (privileged): %8.0f ns/decision\n", NsPerDecision(nullptr, iterations));
    std::printf("enforce=baseline:       %8.0f ns/decision\n", NsPerDecision("baseline", iterations));
    std::printf("enforce=restricted:     %8.0f ns/decision\n", NsPerDecision("restricted", iterations));
  }
  return 0;
}
