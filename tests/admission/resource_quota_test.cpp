#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "admission/resource_quota.h"
#include "admission/resource_quota_config.h"
#include "admission/resource_quota_evaluator.h"
#include "admission/resource_quota_lists.h"

namespace capstan::admission {
namespace {

namespace json = boost::json;
namespace am = capstan::apimachinery;
using namespace quota;

Quantity Q(const char* s) { return *am::ParseQuantity(s); }
json::object J(const char* s) { return json::parse(s).as_object(); }
const auto kNow = Clock::now();

std::string Print(const ResourceList& l) { return PrettyPrint(l); }

TEST(QuotaQuantityTest, AddAndSubAreCanonical) {
  EXPECT_EQ(Q("500m").Add(Q("500m")).String(), "1");
  EXPECT_EQ(Q("1Gi").Add(Q("512Mi")).String(), "1536Mi");
  EXPECT_EQ(Quantity().Add(Q("1Gi")).String(), "1Gi");  // a zero takes the other's format
  EXPECT_EQ(Q("1").Add(Q("250m")).String(), "1250m");
  EXPECT_EQ(Q("2").Sub(Q("500m")).String(), "1500m");
  EXPECT_EQ(Q("1").Sub(Q("1")).String(), "0");
  EXPECT_EQ(Q("1").Sub(Q("2")).Sign(), -1);
}

TEST(QuotaListsTest, HelpersFollowKube) {
  ResourceList a{{"cpu", Q("1")}, {"memory", Q("1Gi")}};
  ResourceList b{{"cpu", Q("500m")}, {"pods", Q("1")}};
  EXPECT_EQ(Print(Add(a, b)), "cpu=1500m,memory=1Gi,pods=1");
  EXPECT_EQ(Print(SubtractNonNegative(b, a)), "cpu=0,memory=0,pods=1");
  EXPECT_EQ(Print(Mask(a, {"memory", "x"})), "memory=1Gi");
  std::vector<std::string> exceeded;
  EXPECT_FALSE(LessThanOrEqual(a, ResourceList{{"cpu", Q("900m")}, {"memory", Q("2Gi")}}, &exceeded));
  EXPECT_EQ(exceeded, std::vector<std::string>{"cpu"});
  EXPECT_TRUE(Equals(ResourceList{{"cpu", Q("1000m")}}, ResourceList{{"cpu", Q("1")}}));
  EXPECT_EQ(Print(RemoveZeros(ResourceList{{"a", Q("0")}, {"b", Q("1")}})), "b=1");
  EXPECT_EQ(PrettyPrintNames({"pods", "cpu"}), "cpu,pods");
}

TEST(PodEvaluatorTest, UsageSumsContainersAndTakesInitMaximum) {
  auto e = EvaluatorFor("", "pods");
  auto pod = J(R"({"spec":{
    "containers":[{"name":"a","resources":{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"cpu":"200m"}}},
                  {"name":"b","resources":{"requests":{"cpu":"300m","hugepages-2Mi":"4Mi","example.com/gpu":"1"}}}],
    "initContainers":[{"name":"i","resources":{"requests":{"cpu":"1","memory":"32Mi"}}}],
    "overhead":{"cpu":"10m"}}})");  // overhead goes to limits only where a limit is set
  EXPECT_EQ(Print(e->Usage(pod, kNow)),
            "count/pods=1,cpu=1010m,hugepages-2Mi=4Mi,limits.cpu=210m,memory=64Mi,pods=1,requests.cpu=1010m,"
            "requests.example.com/gpu=1,requests.hugepages-2Mi=4Mi,requests.memory=64Mi");
}

TEST(PodEvaluatorTest, SidecarsAddToTheSum) {
  auto e = EvaluatorFor("", "pods");
  auto pod = J(R"({"spec":{
    "containers":[{"name":"a","resources":{"requests":{"cpu":"1"}}}],
    "initContainers":[{"name":"s","restartPolicy":"Always","resources":{"requests":{"cpu":"500m"}}},
                      {"name":"i","resources":{"requests":{"cpu":"1"}}}]}})");
  // containers + sidecar = 1500m; the init step needs 1 + 500m = 1500m.
  EXPECT_EQ(e->Usage(pod, kNow).at("requests.cpu").String(), "1500m");
}

TEST(PodEvaluatorTest, TerminalPodsOnlyCountAsObjects) {
  auto e = EvaluatorFor("", "pods");
  auto pod = J(R"({"spec":{"containers":[{"name":"a","resources":{"requests":{"cpu":"1"}}}]},
                   "status":{"phase":"Succeeded"}})");
  EXPECT_EQ(Print(e->Usage(pod, kNow)), "count/pods=1");
  auto gone = J(R"({"metadata":{"deletionTimestamp":"2020-01-01T00:00:00Z","deletionGracePeriodSeconds":30},
                    "spec":{"containers":[{"name":"a"}]}})");
  EXPECT_EQ(Print(e->Usage(gone, kNow)), "count/pods=1");
}

TEST(PodEvaluatorTest, Scopes) {
  auto e = EvaluatorFor("", "pods");
  auto best = J(R"({"spec":{"containers":[{"name":"a"}]}})");
  auto burst = J(R"({"spec":{"activeDeadlineSeconds":10,"priorityClassName":"high",
      "containers":[{"name":"a","resources":{"requests":{"memory":"1Mi"}}}],
      "affinity":{"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[
        {"weight":1,"podAffinityTerm":{"topologyKey":"x","namespaceSelector":{}}}]}}}})");
  auto s = [](const char* name, const char* op = "Exists", std::vector<std::string> v = {}) {
    return ScopeRequirement{name, op, std::move(v)};
  };
  EXPECT_TRUE(e->MatchesScope(s("BestEffort"), best));
  EXPECT_FALSE(e->MatchesScope(s("BestEffort"), burst));
  EXPECT_TRUE(e->MatchesScope(s("NotBestEffort"), burst));
  EXPECT_TRUE(e->MatchesScope(s("Terminating"), burst));
  EXPECT_TRUE(e->MatchesScope(s("NotTerminating"), best));
  EXPECT_TRUE(e->MatchesScope(s("CrossNamespacePodAffinity"), burst));
  EXPECT_FALSE(e->MatchesScope(s("CrossNamespacePodAffinity"), best));
  EXPECT_TRUE(e->MatchesScope(s("PriorityClass"), burst));
  EXPECT_FALSE(e->MatchesScope(s("PriorityClass"), best));
  EXPECT_TRUE(e->MatchesScope(s("PriorityClass", "In", {"low", "high"}), burst));
  EXPECT_FALSE(e->MatchesScope(s("PriorityClass", "In", {"low"}), burst));
  EXPECT_TRUE(e->MatchesScope(s("PriorityClass", "NotIn", {"low"}), burst));
  EXPECT_TRUE(e->MatchesScope(s("PriorityClass", "NotIn", {"low"}), best));
  EXPECT_TRUE(e->MatchesScope(s("PriorityClass", "DoesNotExist"), best));
}

TEST(PodEvaluatorTest, ConstraintsNameTheContainers) {
  auto e = EvaluatorFor("", "pods");
  auto pod = J(R"({"spec":{"containers":[{"name":"b"},{"name":"a","resources":{"requests":{"cpu":"1"}}}],
                   "initContainers":[{"name":"i"}]}})");
  auto err = e->Constraints({"requests.cpu", "limits.cpu", "pods", "requests.storage"}, pod);
  ASSERT_TRUE(err.has_value());
  EXPECT_EQ(*err, "must specify limits.cpu for: a,b,i; requests.cpu for: b,i");
  EXPECT_FALSE(e->Constraints({"pods", "count/pods"}, pod).has_value());
}

TEST(ServiceEvaluatorTest, CountsNodePortsAndLoadBalancers) {
  auto e = EvaluatorFor("", "services");
  EXPECT_EQ(Print(e->Usage(J(R"({"spec":{"type":"ClusterIP","ports":[{"port":1}]}})"), kNow)),
            "count/services=1,services=1,services.loadbalancers=0,services.nodeports=0");
  EXPECT_EQ(Print(e->Usage(J(R"({"spec":{"type":"LoadBalancer","ports":[{"port":1},{"port":2}]}})"), kNow)),
            "count/services=1,services=1,services.loadbalancers=1,services.nodeports=2");
  EXPECT_EQ(Print(e->Usage(J(R"({"spec":{"type":"LoadBalancer","allocateLoadBalancerNodePorts":false,
                                 "ports":[{"port":1,"nodePort":30001},{"port":2}]}})"), kNow)),
            "count/services=1,services=1,services.loadbalancers=1,services.nodeports=1");
}

TEST(PvcEvaluatorTest, ChargesStorageByClass) {
  auto e = EvaluatorFor("", "persistentvolumeclaims");
  auto pvc = J(R"({"spec":{"storageClassName":"gold","resources":{"requests":{"storage":"1Gi"}}},
                   "status":{"allocatedResources":{"storage":"2Gi"}}})");
  EXPECT_EQ(Print(e->Usage(pvc, kNow)),
            "count/persistentvolumeclaims=1,gold.storageclass.storage.k8s.io/persistentvolumeclaims=1,"
            "gold.storageclass.storage.k8s.io/requests.storage=2Gi,persistentvolumeclaims=1,requests.storage=2Gi");
  EXPECT_EQ(e->MatchingResources({"gold.storageclass.storage.k8s.io/requests.storage", "pods", "requests.storage"}),
            (std::vector<std::string>{"gold.storageclass.storage.k8s.io/requests.storage", "requests.storage"}));
}

TEST(ObjectCountEvaluatorTest, LegacyNamesAndGroups) {
  EXPECT_EQ(Print(EvaluatorFor("", "configmaps")->Usage(J("{}"), kNow)), "configmaps=1,count/configmaps=1");
  EXPECT_EQ(Print(EvaluatorFor("apps", "deployments")->Usage(J("{}"), kNow)), "count/deployments.apps=1");
  EXPECT_FALSE(EvaluatorFor("", "configmaps")->Handles("UPDATE", "", nullptr, nullptr));
  auto all = EvaluatorsForHard({"count/deployments.apps", "count/configmaps", "pods"});
  EXPECT_EQ(all.back()->Group(), "apps");
}

// ---- CheckQuotaRequest ----

struct Request {
  Request(std::string resource, const char* object, const char* operation = "CREATE") {
    info.version = "v1";
    info.resource = std::move(resource);
    info.kind = "X";
    obj = J(object);
    a.operation = operation;
    a.resource = &info;
    a.namespace_ = "ns";
    a.object = &obj;
  }
  registry::ResourceInfo info;
  registry::Object obj;
  Attributes a;
};

registry::Object Quota(const char* name, const char* hard, const char* used, const char* spec_extra = "") {
  std::string s = std::string(R"({"metadata":{"name":")") + name + R"(","namespace":"ns","resourceVersion":"5"},)" +
                  R"("spec":{"hard":)" + hard + spec_extra + R"(},"status":{"hard":)" + hard + R"(,"used":)" + used +
                  "}}";
  return J(s.c_str());
}

TEST(CheckQuotaRequestTest, ChargesAndRefusesWithKubesMessage) {
  Request r("configmaps", R"({"metadata":{"name":"c"}})");
  std::vector<registry::Object> quotas{Quota("q", R"({"count/configmaps":"2","pods":"5"})",
                                             R"({"count/configmaps":"1","pods":"0"})")};
  auto out = CheckQuotaRequest(quotas, r.a, *EvaluatorFor("", "configmaps"), kNow);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(json::serialize((*out)[0].at("status").at("used")), R"({"count/configmaps":"2","pods":"0"})");

  auto refused = CheckQuotaRequest(*out, r.a, *EvaluatorFor("", "configmaps"), kNow);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), 403);
  EXPECT_EQ(refused.status().message(),
            "configmaps \"c\" is forbidden: exceeded quota: q, requested: count/configmaps=1, used: "
            "count/configmaps=2, limited: count/configmaps=2");
}

TEST(CheckQuotaRequestTest, PodMessages) {
  auto pods = EvaluatorFor("", "pods");
  Request big("pods", R"({"metadata":{"name":"p"},"spec":{"containers":[
      {"name":"a","resources":{"requests":{"cpu":"1500m","memory":"1Gi"}}}]}})");
  std::vector<registry::Object> q{Quota("compute", R"({"requests.cpu":"2","pods":"3"})",
                                        R"({"requests.cpu":"1","pods":"1"})")};
  auto r = CheckQuotaRequest(q, big.a, *pods, kNow);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "pods \"p\" is forbidden: exceeded quota: compute, requested: requests.cpu=1500m, used: requests.cpu=1, "
            "limited: requests.cpu=2");

  Request bare("pods", R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"app"}]}})");
  r = CheckQuotaRequest(q, bare.a, *pods, kNow);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "pods \"p\" is forbidden: failed quota: compute: must specify requests.cpu for: app");

  std::vector<registry::Object> unknown{Quota("fresh", R"({"pods":"3"})", R"({})")};
  r = CheckQuotaRequest(unknown, bare.a, *pods, kNow);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "pods \"p\" is forbidden: status unknown for quota: fresh, resources: pods");
}

TEST(CheckQuotaRequestTest, ScopedQuotaOnlyChargesMatchingPods) {
  auto pods = EvaluatorFor("", "pods");
  std::vector<registry::Object> q{
      Quota("be", R"({"pods":"1"})", R"({"pods":"1"})", R"(,"scopes":["BestEffort"])")};
  Request burst("pods", R"({"metadata":{"name":"p"},"spec":{"containers":[
      {"name":"a","resources":{"requests":{"cpu":"1"}}}]}})");
  auto r = CheckQuotaRequest(q, burst.a, *pods, kNow);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(json::serialize((*r)[0].at("status").at("used")), R"({"pods":"1"})");
  Request best("pods", R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"a"}]}})");
  EXPECT_FALSE(CheckQuotaRequest(q, best.a, *pods, kNow).ok());
  // Object counts match no scope: a scoped quota never counts configmaps.
  std::vector<registry::Object> scoped{
      Quota("s", R"({"count/configmaps":"0"})", R"({"count/configmaps":"0"})", R"(,"scopes":["BestEffort"])")};
  Request cm("configmaps", R"({"metadata":{"name":"c"}})");
  EXPECT_TRUE(CheckQuotaRequest(scoped, cm.a, *EvaluatorFor("", "configmaps"), kNow).ok());
}

TEST(CheckQuotaRequestTest, ServiceUpdateIsChargedItsIncrease) {
  auto svc = EvaluatorFor("", "services");
  std::vector<registry::Object> q{
      Quota("lb", R"({"services.loadbalancers":"1","services":"5"})", R"({"services.loadbalancers":"1","services":"1"})")};
  Request up("services", R"({"metadata":{"name":"s"},"spec":{"type":"LoadBalancer","ports":[{"port":1}]}})", "UPDATE");
  auto old = J(R"({"metadata":{"name":"s","resourceVersion":"3"},"spec":{"type":"ClusterIP","ports":[{"port":1}]}})");
  up.a.old_object = &old;
  auto r = CheckQuotaRequest(q, up.a, *svc, kNow);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "services \"s\" is forbidden: exceeded quota: lb, requested: services.loadbalancers=1, used: "
            "services.loadbalancers=1, limited: services.loadbalancers=1");
  // Same type: nothing more is charged.
  auto same = J(R"({"metadata":{"name":"s","resourceVersion":"3"},"spec":{"type":"LoadBalancer","ports":[{"port":1}]}})");
  up.a.old_object = &same;
  r = CheckQuotaRequest(q, up.a, *svc, kNow);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(json::serialize((*r)[0].at("status").at("used")), R"({"services.loadbalancers":"1","services":"1"})");
}


// ---- limitedResources ----

TEST(QuotaConfigurationTest, ParsesKubesKindsAndValidates) {
  auto c = ParseQuotaConfiguration(json::parse(R"({"apiVersion":"apiserver.config.k8s.io/v1",
      "kind":"ResourceQuotaConfiguration","limitedResources":[{"resource":"pods","matchContains":["cpu"],
      "matchScopes":[{"scopeName":"PriorityClass","operator":"In","values":["cluster-services"]}]}]})"));
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->limited_resources.size(), 1u);
  EXPECT_EQ(c->limited_resources[0].match_contains, std::vector<std::string>{"cpu"});
  EXPECT_EQ(FormatScopes(c->limited_resources[0].match_scopes), "[{PriorityClass In [cluster-services]}]");
  EXPECT_TRUE(ParseQuotaConfiguration(std::nullopt).ok());
  EXPECT_TRUE(ParseQuotaConfiguration(json::parse(R"({"apiVersion":"resourcequota.admission.k8s.io/v1beta1",
      "kind":"Configuration"})")).ok());
  auto missing = ParseQuotaConfiguration(json::parse(R"({"apiVersion":"apiserver.config.k8s.io/v1",
      "kind":"ResourceQuotaConfiguration","limitedResources":[{"matchContains":["cpu"]}]})"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "limitedResources[0].resource: Required value");
  EXPECT_FALSE(ParseQuotaConfiguration(json::parse(R"({"apiVersion":"v1","kind":"Pod"})")).ok());
}

TEST(CheckQuotaRequestTest, LimitedResourcesNeedACoveringQuota) {
  auto pods = EvaluatorFor("", "pods");
  std::vector<LimitedResource> limited{{"", "pods", {"cpu"}, {{"PriorityClass", "In", {"cluster-services"}}}}};
  Request cpu("pods", R"({"metadata":{"name":"p"},"spec":{"containers":[
      {"name":"a","resources":{"requests":{"cpu":"1"}}}]}})");
  auto r = CheckQuotaRequest({}, cpu.a, *pods, kNow, limited);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "pods \"p\" is forbidden: insufficient quota to consume: cpu,requests.cpu");
  std::vector<registry::Object> q{Quota("compute", R"({"cpu":"4","requests.cpu":"4"})", R"({"cpu":"0","requests.cpu":"0"})")};
  EXPECT_TRUE(CheckQuotaRequest(q, cpu.a, *pods, kNow, limited).ok());
  Request none("pods", R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"a"}]}})");
  EXPECT_TRUE(CheckQuotaRequest({}, none.a, *pods, kNow, limited).ok());

  Request critical("pods", R"({"metadata":{"name":"p"},"spec":{"priorityClassName":"cluster-services",
      "containers":[{"name":"a"}]}})");
  r = CheckQuotaRequest({}, critical.a, *pods, kNow, limited);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), 500);
  EXPECT_EQ(r.status().message(), "insufficient quota to match these scopes: [{PriorityClass In [cluster-services]}]");
  std::vector<registry::Object> scoped{Quota("critical", R"({"pods":"10"})", R"({"pods":"0"})",
      R"(,"scopeSelector":{"matchExpressions":[{"scopeName":"PriorityClass","operator":"In","values":["cluster-services"]}]})")};
  auto ok = CheckQuotaRequest(scoped, critical.a, *pods, kNow, limited);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(json::serialize((*ok)[0].at("status").at("used")), R"({"pods":"1"})");
}

// ---- the plugin, over fake storage ----

struct FakeQuotas {
  std::map<std::string, registry::Object> stored;
  int version = 10;
  int conflicts_left = 0;
  int updates = 0;
  bool block = false;                 // updates wait for Release()
  std::function<void(int)> pending;
  void Release() {
    auto p = std::move(pending);
    pending = nullptr;
    p(0);
  }
  PluginDeps Deps() {
    PluginDeps d;
    d.list = [this](const std::string&, const std::string&, const std::string&,
                    const std::string&) -> Task<StatusOr<std::vector<registry::Object>>> {
      std::vector<registry::Object> out;
      for (auto& [n, q] : stored) out.push_back(q);
      co_return out;
    };
    d.get = [this](const std::string&, const std::string&, const std::string&, const std::string&,
                   const std::string& name) -> Task<StatusOr<registry::Object>> {
      auto it = stored.find(name);
      if (it == stored.end()) co_return Status(404, "NotFound", "not found");
      co_return it->second;
    };
    d.update = [this](const std::string&, const std::string&, const std::string&, const std::string& sub,
                      const std::string&, registry::Object obj) -> Task<StatusOr<registry::Object>> {
      EXPECT_EQ(sub, "status");
      if (block) co_await Await<int>([this](std::function<void(int)> cb) { pending = std::move(cb); });
      std::string name(obj.at("metadata").at("name").as_string());
      auto& cur = stored.at(name);
      if (conflicts_left > 0 || obj.at("metadata").at("resourceVersion") != cur.at("metadata").at("resourceVersion")) {
        if (conflicts_left > 0) {
          --conflicts_left;
          // Someone else charged the quota meanwhile.
          cur["status"].as_object()["used"].as_object()["count/configmaps"] = "1";
          cur["metadata"].as_object()["resourceVersion"] = std::to_string(++version);
        }
        co_return Status(409, "Conflict", "the object has been modified; please apply your changes to the latest version");
      }
      ++updates;
      obj["metadata"].as_object()["resourceVersion"] = std::to_string(++version);
      cur = obj;
      co_return obj;
    };
    return d;
  }
};

TEST(ResourceQuotaPluginTest, WritesUsageAndRetriesConflicts) {
  FakeQuotas f;
  f.stored["q"] = Quota("q", R"({"count/configmaps":"2"})", R"({"count/configmaps":"0"})");
  PluginDeps d = f.Deps();
  ResourceQuotaPlugin p(d.get, d.list, d.update);
  Request r("configmaps", R"({"metadata":{"name":"c"}})");
  f.conflicts_left = 1;
  ASSERT_TRUE(SyncWait(p.Validate(r.a)).ok());
  EXPECT_EQ(json::serialize(f.stored["q"].at("status").at("used")), R"({"count/configmaps":"2"})");
  Status third = SyncWait(p.Validate(r.a));
  EXPECT_EQ(third.code(), 403);
  EXPECT_EQ(f.updates, 1);

  r.a.dry_run = true;
  f.stored["q"] = Quota("q", R"({"count/configmaps":"2"})", R"({"count/configmaps":"0"})");
  ASSERT_TRUE(SyncWait(p.Validate(r.a)).ok());
  EXPECT_EQ(f.updates, 1);  // a dry run writes nothing
}

TEST(ResourceQuotaPluginTest, RequestsQueuedMeanwhileAreCheckedTogetherWithOneWrite) {
  FakeQuotas f;
  f.stored["q"] = Quota("q", R"({"count/configmaps":"3"})", R"({"count/configmaps":"0"})");
  f.block = true;
  PluginDeps d = f.Deps();
  ResourceQuotaPlugin p(d.get, d.list, d.update);
  std::vector<std::unique_ptr<Request>> reqs;
  std::vector<std::optional<Status>> results(5);
  for (int i = 0; i < 5; ++i) {
    reqs.push_back(std::make_unique<Request>("configmaps", R"({"metadata":{"name":"c"}})"));
    SpawnThen(p.Validate(reqs.back()->a), [&results, i](Status st) { results[i] = std::move(st); });
  }
  // The first request's write is in flight; the other four wait for the next batch.
  ASSERT_TRUE(f.pending);
  EXPECT_FALSE(results[0] || results[1]);
  f.Release();
  ASSERT_TRUE(results[0] && results[0]->ok());
  ASSERT_TRUE(f.pending);  // one write for the second batch
  f.Release();
  EXPECT_EQ(f.updates, 2);
  EXPECT_TRUE(results[1]->ok());
  EXPECT_TRUE(results[2]->ok());
  EXPECT_EQ(results[3]->code(), 403);
  EXPECT_EQ(results[4]->code(), 403);
  EXPECT_EQ(json::serialize(f.stored["q"].at("status").at("used")), R"({"count/configmaps":"3"})");
}

TEST(ResourceQuotaPluginTest, IgnoresWhatKubeIgnores) {
  FakeQuotas f;
  f.stored["q"] = Quota("q", R"({"count/configmaps":"0","count/events":"0"})", R"({"count/configmaps":"0","count/events":"0"})");
  PluginDeps d = f.Deps();
  ResourceQuotaPlugin p(d.get, d.list, d.update);
  Request ev("events", R"({"metadata":{"name":"e"}})");
  EXPECT_TRUE(SyncWait(p.Validate(ev.a)).ok());
  EXPECT_TRUE(IgnoredByQuota("authorization.k8s.io", "localsubjectaccessreviews"));
  EXPECT_TRUE(IgnoredByQuota("events.k8s.io", "events"));
  EXPECT_FALSE(IgnoredByQuota("", "configmaps"));
  Request upd("configmaps", R"({"metadata":{"name":"c"}})", "UPDATE");
  EXPECT_TRUE(SyncWait(p.Validate(upd.a)).ok());
  Request cluster("configmaps", R"({"metadata":{"name":"c"}})");
  cluster.a.namespace_ = "";
  EXPECT_TRUE(SyncWait(p.Validate(cluster.a)).ok());
  Request cm("configmaps", R"({"metadata":{"name":"c"}})");
  EXPECT_EQ(SyncWait(p.Validate(cm.a)).code(), 403);
}

}  // namespace
}  // namespace capstan::admission
