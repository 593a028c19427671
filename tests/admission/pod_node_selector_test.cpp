#include "admission/pod_node_selector.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "admission/builtin_plugins.h"

namespace capstan::admission {
namespace {

namespace json = boost::json;

// Namespaces by name, with their node-selector annotation (nullopt: no annotations at all).
NamespaceLookup Namespaces(std::map<std::string, std::optional<std::string>> selectors) {
  return [selectors](const std::string& name) -> Task<StatusOr<registry::Object>> {
    auto it = selectors.find(name);
    if (it == selectors.end()) co_return Status(404, "NotFound", "namespaces \"" + name + "\" not found");
    json::object ns{{"metadata", {{"name", name}}}};
    if (it->second) ns["metadata"].as_object()["annotations"] = {{"scheduler.alpha.kubernetes.io/node-selector", *it->second}};
    co_return ns;
  };
}

struct PodRequest {
  PodRequest(std::string ns, const char* pod) {
    info.version = "v1";
    info.resource = "pods";
    info.kind = "Pod";
    obj = json::parse(pod).as_object();
    a.operation = "CREATE";
    a.resource = &info;
    a.namespace_ = std::move(ns);
    a.object = &obj;
  }
  std::string NodeSelector() const {
    const json::value* sel = obj.at("spec").as_object().if_contains("nodeSelector");
    return sel ? json::serialize(*sel) : "none";
  }
  registry::ResourceInfo info;
  registry::Object obj;
  Attributes a;
};

constexpr char kPlainPod[] = R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"c"}]}})";
constexpr char kGpuPod[] = R"({"metadata":{"name":"p"},"spec":{"nodeSelector":{"gpu":"yes","env":"dev"}}})";

TEST(PodNodeSelectorTest, NamespaceAnnotationOrClusterDefaultIsMergedIn) {
  PodNodeSelector p({{"clusterDefaultNodeSelector", "zone=a"}},
                    Namespaces({{"prod", "env=prod, tier=web"}, {"plain", std::nullopt}, {"open", ""}}));
  PodRequest prod("prod", R"({"metadata":{"name":"p"},"spec":{"nodeSelector":{"disk":"ssd"}}})");
  ASSERT_TRUE(SyncWait(p.Admit(prod.a)).ok());
  EXPECT_EQ(prod.NodeSelector(), R"({"disk":"ssd","env":"prod","tier":"web"})");

  PodRequest plain("plain", kPlainPod);
  ASSERT_TRUE(SyncWait(p.Admit(plain.a)).ok());
  EXPECT_EQ(plain.NodeSelector(), R"({"zone":"a"})");

  // An empty annotation is the namespace's choice: no selector, not the cluster default.
  PodRequest open("open", kPlainPod);
  ASSERT_TRUE(SyncWait(p.Admit(open.a)).ok());
  EXPECT_EQ(open.NodeSelector(), "none");

  EXPECT_TRUE(p.Handles("CREATE"));
  EXPECT_FALSE(p.Handles("UPDATE"));
}

TEST(PodNodeSelectorTest, ConflictWithTheNamespaceSelectorIsForbidden) {
  PodNodeSelector p({}, Namespaces({{"prod", "env=prod"}}));
  PodRequest r("prod", kGpuPod);
  Status st = SyncWait(p.Admit(r.a));
  EXPECT_EQ(st.code(), 403);
  EXPECT_EQ(st.message(), "pods \"p\" is forbidden: pod node label selector conflicts with its namespace node label selector");
  EXPECT_EQ(r.NodeSelector(), R"({"gpu":"yes","env":"dev"})");  // untouched
  // The validating phase checks again (a later mutation may have changed the selector).
  Status again = SyncWait(p.Validate(r.a));
  EXPECT_EQ(again.code(), 403);
  // A generated name is not known yet.
  PodRequest unnamed("prod", R"({"metadata":{"generateName":"p-"},"spec":{"nodeSelector":{"env":"dev"}}})");
  EXPECT_EQ(SyncWait(p.Admit(unnamed.a)).message(),
            "pods is forbidden: pod node label selector conflicts with its namespace node label selector");
}

TEST(PodNodeSelectorTest, NamespaceWhitelistFromTheConfiguration) {
  PodNodeSelector p({{"team", "env=dev,gpu=yes"}}, Namespaces({{"team", std::nullopt}, {"other", std::nullopt}}));
  PodRequest ok("team", kGpuPod);
  EXPECT_TRUE(SyncWait(p.Admit(ok.a)).ok());
  PodRequest bad("team", R"({"metadata":{"name":"p"},"spec":{"nodeSelector":{"gpu":"no"}}})");
  Status st = SyncWait(p.Admit(bad.a));
  EXPECT_EQ(st.code(), 403);
  EXPECT_EQ(st.message(), "pods \"p\" is forbidden: pod node label selector labels conflict with its namespace whitelist");
  PodRequest elsewhere("other", R"({"metadata":{"name":"p"},"spec":{"nodeSelector":{"gpu":"no"}}})");
  EXPECT_TRUE(SyncWait(p.Admit(elsewhere.a)).ok());
}

TEST(PodNodeSelectorTest, BadSelectorsAndMissingNamespacesAre500s) {
  PodNodeSelector p({{"team", "env"}}, Namespaces({{"bad", "a=b=c"}, {"badkey", "Bad Key=x"}, {"badvalue", "k=-x-"},
                                                   {"team", std::nullopt}}));
  PodRequest bad("bad", kPlainPod);
  Status st = SyncWait(p.Admit(bad.a));
  EXPECT_EQ(st.code(), 500);
  EXPECT_EQ(st.reason(), "");
  EXPECT_EQ(st.message(), "invalid selector: [a b c]");
  PodRequest badkey("badkey", kPlainPod);
  EXPECT_EQ(SyncWait(p.Admit(badkey.a)).message(),
            "<nil>: Invalid value: \"Bad Key\": name part must consist of alphanumeric characters, '-', '_' or '.', and "
            "must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "
            "for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
  PodRequest badvalue("badvalue", kPlainPod);
  EXPECT_EQ(SyncWait(p.Admit(badvalue.a)).message(),
            "[k]: Invalid value: \"-x-\": a valid label must be an empty string or consist of alphanumeric characters, "
            "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  "
            "or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
  PodRequest team("team", kPlainPod);
  EXPECT_EQ(SyncWait(p.Admit(team.a)).message(), "invalid selector: [env]");
  PodRequest gone("gone", kPlainPod);
  Status missing = SyncWait(p.Admit(gone.a));
  EXPECT_EQ(missing.code(), 500);
  EXPECT_EQ(missing.message(), "Internal error occurred: namespace gone does not exist");
}

TEST(PodNodeSelectorTest, OnlyPodsProper) {
  PodNodeSelector p({}, Namespaces({{"prod", "env=prod"}}));
  PodRequest status("prod", kGpuPod);
  status.a.subresource = "status";
  EXPECT_TRUE(SyncWait(p.Admit(status.a)).ok());
  PodRequest cm("prod", R"({"metadata":{"name":"c"},"spec":{}})");
  cm.info.resource = "configmaps";
  EXPECT_TRUE(SyncWait(p.Admit(cm.a)).ok());
  EXPECT_EQ(cm.NodeSelector(), "none");
}

TEST(PodNodeSelectorConfigTest, KubesLenientPluginConfigFile) {
  auto m = ParsePodNodeSelectorConfig(json::parse(
      R"({"PodNodeSelectorPluginConfig":{"clusterDefaultNodeSelector":"env=dev","ns1":"a=b","ns2":5}})"));
  EXPECT_EQ(m, (std::map<std::string, std::string>{{"clusterDefaultNodeSelector", "env=dev"}, {"ns1", "a=b"}, {"ns2", ""}}));
  EXPECT_TRUE(ParsePodNodeSelectorConfig(std::nullopt).empty());
  EXPECT_TRUE(ParsePodNodeSelectorConfig(json::parse(R"({"podNodeSelectorPluginConfig":"x"})")).empty());
  EXPECT_TRUE(ParsePodNodeSelectorConfig(json::parse("[1]")).empty());

  // From an admission configuration file, as kube-apiserver reads it; enabled by name.
  auto config = ParseAdmissionConfig(R"(apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: PodNodeSelector
  configuration:
    podNodeSelectorPluginConfig:
      clusterDefaultNodeSelector: zone=b
)",
                                     "/etc");
  ASSERT_TRUE(config.ok()) << config.status().message();
  PluginDeps deps;
  deps.config = std::make_shared<const AdmissionConfig>(std::move(*config));
  deps.namespace_lookup = Namespaces({{"default", std::nullopt}});
  auto built = BuildChain({"PodNodeSelector"}, {"DefaultTolerationSeconds"}, deps);
  ASSERT_TRUE(built.ok()) << built.status().message();
  PodRequest r("default", kPlainPod);
  ASSERT_TRUE(SyncWait(built->chain->Admit(r.a)).ok());
  EXPECT_EQ(r.NodeSelector(), R"({"zone":"b"})");
}

}  // namespace
}  // namespace capstan::admission
