#include "admission/pod_toleration_restriction.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "admission/builtin_plugins.h"

namespace capstan::admission {
namespace {

namespace json = boost::json;

constexpr char kDefaults[] = "scheduler.alpha.kubernetes.io/defaultTolerations";
constexpr char kWhitelist[] = "scheduler.alpha.kubernetes.io/tolerationsWhitelist";

// Namespaces by name, with their annotations.
NamespaceLookup Namespaces(std::map<std::string, std::map<std::string, std::string>> annotations) {
  return [annotations](const std::string& name) -> Task<StatusOr<registry::Object>> {
    auto it = annotations.find(name);
    if (it == annotations.end()) co_return Status(404, "NotFound", "namespaces \"" + name + "\" not found");
    json::object ann;
    for (const auto& [k, v] : it->second) ann[k] = v;
    co_return json::object{{"metadata", {{"name", name}, {"annotations", ann}}}};
  };
}

struct PodRequest {
  PodRequest(std::string ns, const char* pod, std::string op = "CREATE") {
    info.version = "v1";
    info.resource = "pods";
    info.kind = "Pod";
    obj = json::parse(pod).as_object();
    a.operation = std::move(op);
    a.resource = &info;
    a.namespace_ = std::move(ns);
    a.object = &obj;
  }
  std::string Tolerations() const {
    const json::value* t = obj.at("spec").as_object().if_contains("tolerations");
    return t ? json::serialize(*t) : "none";
  }
  registry::ResourceInfo info;
  registry::Object obj;
  Attributes a;
};

constexpr char kBestEffort[] = R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"c"}]}})";
constexpr char kBurstable[] =
    R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"100m"}}}]}})";

std::optional<json::value> Config(const char* body) {
  return json::parse(std::string(R"({"apiVersion":"podtolerationrestriction.admission.k8s.io/v1alpha1",)") +
                     R"("kind":"Configuration")" + body + "}");
}

PodTolerationRestrictionConfig ConfigOf(const char* body) {
  auto c = ParsePodTolerationRestrictionConfig(Config(body));
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? *c : PodTolerationRestrictionConfig{};
}

TEST(TolerationsTest, MergeKeepsTheBroadestAndWhitelistCovers) {
  Toleration exists_all{"", "Exists", "", "", std::nullopt};
  Toleration gpu{"gpu", "Equal", "yes", "NoSchedule", std::nullopt};
  Toleration gpu_any_effect{"gpu", "Equal", "yes", "", std::nullopt};
  Toleration gpu_empty_op{"gpu", "", "yes", "NoSchedule", std::nullopt};
  EXPECT_TRUE(IsSuperset(gpu_any_effect, gpu));
  EXPECT_FALSE(IsSuperset(gpu, gpu_any_effect));
  EXPECT_TRUE(IsSuperset(exists_all, gpu));
  // kube compares the covered toleration's operator with "Equal" as written: "" is not covered.
  EXPECT_FALSE(IsSuperset(gpu_any_effect, gpu_empty_op));
  Toleration short_wait{"k", "Exists", "", "NoExecute", 30};
  Toleration long_wait{"k", "Exists", "", "NoExecute", 60};
  EXPECT_TRUE(IsSuperset(long_wait, short_wait));
  EXPECT_FALSE(IsSuperset(short_wait, long_wait));

  auto merged = MergeTolerations({gpu, short_wait}, {gpu_any_effect, long_wait, gpu_any_effect});
  ASSERT_EQ(merged.size(), 2u);
  EXPECT_EQ(merged[0], gpu_any_effect);
  EXPECT_EQ(merged[1], long_wait);

  EXPECT_TRUE(VerifyAgainstWhitelist({gpu, short_wait}, {gpu_any_effect, long_wait}));
  EXPECT_FALSE(VerifyAgainstWhitelist({gpu, long_wait}, {gpu_any_effect, short_wait}));
  EXPECT_TRUE(VerifyAgainstWhitelist({gpu}, {}));
}

TEST(PodTolerationRestrictionConfigTest, KubesDecodeAndValidationErrors) {
  auto none = ParsePodTolerationRestrictionConfig(std::nullopt);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->default_tolerations.empty() && none->whitelist.empty());

  auto good = ParsePodTolerationRestrictionConfig(
      Config(R"(,"default":[{"key":"a","operator":"Exists","effect":"NoSchedule"}],"whitelist":[{"operator":"Exists"}])"));
  ASSERT_TRUE(good.ok()) << good.status().message();
  ASSERT_EQ(good->default_tolerations.size(), 1u);
  EXPECT_EQ(good->default_tolerations[0].key, "a");
  ASSERT_EQ(good->whitelist.size(), 1u);

  auto invalid = ParsePodTolerationRestrictionConfig(Config(
      R"(,"default":[{"key":"a","operator":"Maybe"},{"operator":"Equal","tolerationSeconds":5}],)"
      R"("whitelist":[{"key":"b","operator":"Exists","value":"x","effect":"Sometimes"}])"));
  ASSERT_FALSE(invalid.ok());
  EXPECT_EQ(invalid.status().message(),
            "invalid config: [podtolerationrestriction.default[0].operator: Unsupported value: \"Maybe\": supported "
            "values: \"Equal\", \"Exists\" podtolerationrestriction.default[1].operator: Invalid value: \"Equal\": "
            "operator must be Exists when `key` is empty, which means \"match all values and all keys\" "
            "podtolerationrestriction.default[1].effect: Invalid value: \"\": effect must be 'NoExecute' when "
            "`tolerationSeconds` is set podtolerationrestriction.whitelist[0].operator: Invalid value: \"x\": value "
            "must be empty when `operator` is 'Exists' podtolerationrestriction.whitelist[0].effect: Unsupported value: "
            "\"Sometimes\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"]");

  auto wrong = ParsePodTolerationRestrictionConfig(Config(R"(,"default":[{"key":5}])"));
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().message(), "json: cannot unmarshal number into Go struct field Toleration.default.key of type string");
  auto seconds = ParsePodTolerationRestrictionConfig(Config(R"(,"whitelist":[{"tolerationSeconds":1.5}])"));
  ASSERT_FALSE(seconds.ok());
  EXPECT_EQ(seconds.status().message(),
            "json: cannot unmarshal number 1.5 into Go struct field Toleration.whitelist.tolerationSeconds of type int64");
  auto list = ParsePodTolerationRestrictionConfig(Config(R"(,"default":{"key":"a"})"));
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.status().message(),
            "json: cannot unmarshal object into Go struct field Configuration.default of type []v1.Toleration");
  auto kind = ParsePodTolerationRestrictionConfig(json::parse(R"({"apiVersion":"v1","kind":"Configuration"})"));
  ASSERT_FALSE(kind.ok());
  EXPECT_EQ(kind.status().message(),
            "no kind \"Configuration\" is registered for version \"v1\" in scheme "
            "\"k8s.io/kubernetes/plugin/pkg/admission/podtolerationrestriction/config.go:32\"");
}

TEST(PodTolerationRestrictionConfigTest, AnnotationsDecodeAsEncodingJson) {
  auto t = ParseTolerationsAnnotation(R"([{"Key":"a","OPERATOR":"Exists","other":1},null])");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->size(), 2u);
  EXPECT_EQ((*t)[0], (Toleration{"a", "Exists", "", "", std::nullopt}));
  EXPECT_TRUE(ParseTolerationsAnnotation("null")->empty());
  EXPECT_EQ(ParseTolerationsAnnotation("{}").status().message(),
            "json: cannot unmarshal object into Go value of type []v1.Toleration");
  EXPECT_EQ(ParseTolerationsAnnotation(R"([{"key":1}])").status().message(),
            "json: cannot unmarshal number into Go struct field Toleration.key of type string");
  EXPECT_EQ(ParseTolerationsAnnotation(R"([{"key":)").status().message(), "unexpected end of JSON input");
  EXPECT_EQ(ParseTolerationsAnnotation("x").status().message(), "invalid character 'x' looking for beginning of value");
}

TEST(PodTolerationRestrictionTest, NamespaceDefaultsOrClusterDefaultsAreMergedOnCreate) {
  PodTolerationRestriction p(ConfigOf(R"(,"default":[{"key":"cluster","operator":"Exists"}])"),
                             Namespaces({{"team", {{kDefaults, R"([{"key":"team","operator":"Exists","effect":"NoSchedule"}])"}}},
                                         {"plain", {}},
                                         {"none", {{kDefaults, ""}}}}));
  PodRequest team("team", kBestEffort);
  ASSERT_TRUE(SyncWait(p.Admit(team.a)).ok());
  EXPECT_EQ(team.Tolerations(), R"([{"key":"team","operator":"Exists","effect":"NoSchedule"}])");

  PodRequest plain("plain", R"({"metadata":{"name":"p"},"spec":{"tolerations":[{"key":"own","operator":"Exists"}]}})");
  ASSERT_TRUE(SyncWait(p.Admit(plain.a)).ok());
  EXPECT_EQ(plain.Tolerations(), R"([{"key":"own","operator":"Exists"},{"key":"cluster","operator":"Exists"}])");

  // An empty annotation means no defaults (not the cluster's).
  PodRequest none("none", kBestEffort);
  ASSERT_TRUE(SyncWait(p.Admit(none.a)).ok());
  EXPECT_EQ(none.Tolerations(), "none");

  // Updates get no defaults.
  PodRequest update("team", kBestEffort, "UPDATE");
  ASSERT_TRUE(SyncWait(p.Admit(update.a)).ok());
  EXPECT_EQ(update.Tolerations(), "none");
}

TEST(PodTolerationRestrictionTest, PodsThatAreNotBestEffortTolerateMemoryPressure) {
  PodTolerationRestriction p({}, Namespaces({{"plain", {}}}));
  for (const char* op : {"CREATE", "UPDATE"}) {
    PodRequest r("plain", kBurstable, op);
    ASSERT_TRUE(SyncWait(p.Admit(r.a)).ok());
    EXPECT_EQ(r.Tolerations(), R"([{"key":"node.kubernetes.io/memory-pressure","operator":"Exists","effect":"NoSchedule"}])")
        << op;
  }
  // The status's class, when set, is the pod's.
  PodRequest classed("plain", R"({"metadata":{"name":"p"},"spec":{},"status":{"qosClass":"Guaranteed"}})");
  ASSERT_TRUE(SyncWait(p.Admit(classed.a)).ok());
  EXPECT_NE(classed.Tolerations(), "none");
  // Covered by a broader toleration of the pod's own: nothing added.
  PodRequest covered("plain",
                     R"({"metadata":{"name":"p"},"spec":{"tolerations":[{"operator":"Exists"}],"containers":[{"name":"c",)"
                     R"("resources":{"limits":{"memory":"1Gi"}}}]}})");
  ASSERT_TRUE(SyncWait(p.Admit(covered.a)).ok());
  EXPECT_EQ(covered.Tolerations(), R"([{"operator":"Exists"}])");
}

TEST(PodTolerationRestrictionTest, WhitelistOfTheNamespaceOrTheCluster) {
  PodTolerationRestriction p(ConfigOf(R"(,"whitelist":[{"key":"ok","operator":"Exists"}])"),
                             Namespaces({{"team", {{kWhitelist, R"([{"key":"gpu","operator":"Exists"}])"}}},
                                         {"plain", {}},
                                         {"open", {{kWhitelist, ""}}},
                                         {"broken", {{kWhitelist, "[{"}}}}));
  const char* gpu_pod = R"({"metadata":{"name":"p"},"spec":{"tolerations":[{"key":"gpu","operator":"Exists"}]}})";
  PodRequest team("team", gpu_pod);
  EXPECT_TRUE(SyncWait(p.Admit(team.a)).ok());
  PodRequest plain("plain", gpu_pod);
  Status st = SyncWait(p.Admit(plain.a));
  EXPECT_EQ(st.code(), 500);
  EXPECT_EQ(st.reason(), "");
  EXPECT_EQ(st.message(),
            "pod tolerations (possibly merged with namespace default tolerations) conflict with its cluster whitelist");
  PodRequest team_other("team", R"({"metadata":{"name":"p"},"spec":{"tolerations":[{"key":"ok","operator":"Exists"}]}})");
  EXPECT_EQ(SyncWait(p.Validate(team_other.a)).message(),
            "pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist");
  PodRequest open("open", gpu_pod);
  EXPECT_TRUE(SyncWait(p.Validate(open.a)).ok());
  PodRequest broken("broken", gpu_pod);
  Status bad = SyncWait(p.Validate(broken.a));
  EXPECT_EQ(bad.code(), 500);
  EXPECT_EQ(bad.message(), "unexpected end of JSON input");
  // A pod without tolerations is not checked (nor is its namespace read).
  PodRequest gone("gone", kBestEffort);
  EXPECT_TRUE(SyncWait(p.Validate(gone.a)).ok());
  PodRequest gone_create("gone", kBestEffort);
  EXPECT_EQ(SyncWait(p.Admit(gone_create.a)).code(), 404);
}

TEST(PodTolerationRestrictionTest, BuiltByNameWithItsConfiguration) {
  PluginDeps deps;
  deps.namespace_lookup = Namespaces({{"default", {}}});
  auto config = ParseAdmissionConfig(R"(apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: PodTolerationRestriction
  configuration:
    apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1
    kind: Configuration
    default:
    - key: dedicated
      operator: Equal
      value: infra
      effect: NoSchedule
)",
                                     "/etc");
  ASSERT_TRUE(config.ok()) << config.status().message();
  deps.config = std::make_shared<const AdmissionConfig>(std::move(*config));
  auto built = BuildChain({"PodTolerationRestriction"}, {"DefaultTolerationSeconds"}, deps);
  ASSERT_TRUE(built.ok()) << built.status().message();
  PodRequest r("default", kBestEffort);
  ASSERT_TRUE(SyncWait(built->chain->Admit(r.a)).ok());
  EXPECT_EQ(r.Tolerations(), R"([{"key":"dedicated","operator":"Equal","value":"infra","effect":"NoSchedule"}])");

  auto bad_config = ParseAdmissionConfig(R"({"apiVersion":"apiserver.config.k8s.io/v1","kind":"AdmissionConfiguration",
    "plugins":[{"name":"PodTolerationRestriction","configuration":{"apiVersion":"podtolerationrestriction.admission.k8s.io/v1alpha1",
    "kind":"Configuration","whitelist":[{"operator":"Equal"}]}}]})",
                                         "/etc");
  ASSERT_TRUE(bad_config.ok()) << bad_config.status().message();
  deps.config = std::make_shared<const AdmissionConfig>(std::move(*bad_config));
  auto refused = BuildChain({"PodTolerationRestriction"}, {}, deps);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "couldn't init admission plugin \"PodTolerationRestriction\": invalid config: "
            "[podtolerationrestriction.whitelist[0].operator: Invalid value: \"Equal\": operator must be Exists when "
            "`key` is empty, which means \"match all values and all keys\"]");
}

}  // namespace
}  // namespace capstan::admission
