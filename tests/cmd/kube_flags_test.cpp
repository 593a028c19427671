#include "cmd/kube_flags.h"

#include <gtest/gtest.h>

#include <set>

namespace capstan::cmd {
namespace {

const KubeFlag& Flag(std::string_view name) {
  const KubeFlag* f = FindKubeFlag(name);
  EXPECT_NE(f, nullptr) << name;
  static const KubeFlag kMissing{"missing", "", FlagKind::kString, "", "", "", false, ""};
  return f ? *f : kMissing;
}

// The message ValidateFlagValue gives, or "" when the value is accepted.
std::string Err(std::string_view flag, std::string_view value) {
  Status s = ValidateFlagValue(Flag(flag), value);
  return s.ok() ? "" : s.message();
}

TEST(KubeFlags, TableIsSortedUniqueAndComplete) {
  std::span<const KubeFlag> flags = KubeApiserverFlags();
  EXPECT_EQ(flags.size(), 172u);  // a flag added or dropped must be a deliberate change
  std::set<std::string_view> sections;
  for (size_t i = 1; i < flags.size(); ++i) EXPECT_LT(flags[i - 1].name, flags[i].name) << flags[i].name;
  for (const KubeFlag& f : flags) {
    EXPECT_FALSE(f.usage.empty()) << f.name;
    EXPECT_FALSE(f.section.empty()) << f.name;
    EXPECT_EQ(f.name.find('_'), std::string_view::npos) << f.name;
    EXPECT_EQ(f.type_name.empty(), f.kind == FlagKind::kBool) << f.name;
    sections.insert(f.section);
  }
  EXPECT_EQ(sections, (std::set<std::string_view>{"admission", "API enablement", "authentication", "authorization",
                                                  "auditing", "cloud provider", "egress selector", "etcd", "features",
                                                  "generic", "global", "logs", "metrics", "misc", "secure serving",
                                                  "traces"}));
}

TEST(KubeFlags, EveryDefaultIsAValidValueOfItsFlag) {
  for (const KubeFlag& f : KubeApiserverFlags()) {
    if (f.default_value.empty()) continue;
    Status s = ValidateFlagValue(f, f.default_value);
    EXPECT_TRUE(s.ok()) << f.name << ": " << s.message();
  }
}

TEST(KubeFlags, WellKnownFlagsHaveKubesKindsAndDefaults) {
  struct Want {
    const char* name;
    FlagKind kind;
    const char* def;
  } wants[] = {
      {"etcd-servers", FlagKind::kStringSlice, ""},
      {"etcd-prefix", FlagKind::kString, "/registry"},
      {"secure-port", FlagKind::kInt, "6443"},
      {"bind-address", FlagKind::kIP, "0.0.0.0"},
      {"advertise-address", FlagKind::kIP, ""},
      {"authorization-mode", FlagKind::kStringSlice, "Node,RBAC"},  // Capstan's default (kube's is AlwaysAllow)
      {"enable-admission-plugins", FlagKind::kStringSlice, ""},
      {"disable-admission-plugins", FlagKind::kStringSlice, ""},
      {"service-cluster-ip-range", FlagKind::kCIDRList, ""},
      {"service-node-port-range", FlagKind::kPortRange, "30000-32767"},
      {"anonymous-auth", FlagKind::kBool, "true"},
      {"max-requests-inflight", FlagKind::kInt, "400"},
      {"max-mutating-requests-inflight", FlagKind::kInt, "200"},
      {"request-timeout", FlagKind::kDuration, "1m0s"},
      {"min-request-timeout", FlagKind::kInt, "1800"},
      {"event-ttl", FlagKind::kDuration, "1h0m0s"},
      {"storage-media-type", FlagKind::kString, "application/vnd.kubernetes.protobuf"},
      {"cert-dir", FlagKind::kString, "/var/run/kubernetes"},
      {"service-account-issuer", FlagKind::kStringArray, ""},
      {"service-account-key-file", FlagKind::kStringArray, ""},
      {"feature-gates", FlagKind::kFeatureGates, ""},
      {"runtime-config", FlagKind::kConfigMap, ""},
      {"oidc-required-claim", FlagKind::kMapNoSplit, ""},
      {"tls-sni-cert-key", FlagKind::kNamedCertKey, ""},
      {"goaway-chance", FlagKind::kFloat64, ""},
      {"audit-webhook-batch-throttle-qps", FlagKind::kFloat32, "10"},
      {"kubelet-preferred-address-types", FlagKind::kStringSlice,
       "Hostname,InternalDNS,InternalIP,ExternalDNS,ExternalIP"},
      {"endpoint-reconciler-type", FlagKind::kString, "lease"},
      {"profiling", FlagKind::kBool, "true"},
      {"watch-cache", FlagKind::kBool, "true"},
      {"v", FlagKind::kLevel, ""},
  };
  for (const Want& w : wants) {
    const KubeFlag& f = Flag(w.name);
    EXPECT_EQ(f.kind, w.kind) << w.name << " is " << FlagKindName(f.kind);
    EXPECT_EQ(f.default_value, w.def) << w.name;
  }
  // Flags kube-apiserver 1.32 has that older or newer references lack.
  for (const char* name : {"service-account-signing-endpoint", "requestheader-uid-headers", "emulated-version",
                           "authentication-config", "authorization-config", "disable-http2-serving",
                           "etcd-readycheck-timeout", "cloud-provider", "apiserver-count", "kubelet-port",
                           "default-not-ready-toleration-seconds", "log-json-split-stream", "help", "version"}) {
    EXPECT_NE(FindKubeFlag(name), nullptr) << name;
  }
  // Flags it does not have (removed before 1.32, or added after).
  for (const char* name : {"insecure-port", "insecure-bind-address", "kubelet-https", "basic-auth-file",
                           "target-ram-mb", "min-compatibility-version", "emulation-forward-compatible",
                           "coordinated-leadership-lease-duration", "data-dir"}) {
    EXPECT_EQ(FindKubeFlag(name), nullptr) << name;
  }
}

TEST(KubeFlags, LookupNormalizesAsKubeApiserverDoes) {
  EXPECT_EQ(FindKubeFlag("--secure-port"), FindKubeFlag("secure-port"));
  EXPECT_EQ(FindKubeFlag("secure_port"), FindKubeFlag("secure-port"));
  EXPECT_EQ(FindKubeFlag("-v"), FindKubeFlag("v"));
  EXPECT_EQ(FindKubeFlag("no-such-flag"), nullptr);
  EXPECT_EQ(FindKubeFlag(""), nullptr);
  ASSERT_NE(FindKubeFlagByShorthand('v'), nullptr);
  EXPECT_EQ(FindKubeFlagByShorthand('v')->name, "v");
  EXPECT_EQ(FindKubeFlagByShorthand('h')->name, "help");
  EXPECT_EQ(FindKubeFlagByShorthand('x'), nullptr);
  EXPECT_TRUE(FlagValueIsOptional(Flag("anonymous-auth")));
  EXPECT_TRUE(FlagValueIsOptional(Flag("version")));
  EXPECT_FALSE(FlagValueIsOptional(Flag("secure-port")));
  EXPECT_TRUE(FlagIsRepeatable(Flag("service-account-key-file")));
  EXPECT_FALSE(FlagIsRepeatable(Flag("etcd-prefix")));
  EXPECT_EQ(FlagDisplayName(Flag("v")), "-v, --v");
}

TEST(KubeFlags, IntegersParseLikeStrconv) {
  EXPECT_EQ(Err("secure-port", "6443"), "");
  EXPECT_EQ(Err("secure-port", "-1"), "");  // range checks belong to option validation, not parsing
  EXPECT_EQ(Err("secure-port", "0x1F"), "");
  EXPECT_EQ(Err("secure-port", "1_000"), "");
  EXPECT_EQ(Err("secure-port", "0"), "");
  EXPECT_EQ(Err("secure-port", "abc"),
            R"(invalid argument "abc" for "--secure-port" flag: strconv.ParseInt: parsing "abc": invalid syntax)");
  EXPECT_EQ(Err("secure-port", ""),
            R"(invalid argument "" for "--secure-port" flag: strconv.ParseInt: parsing "": invalid syntax)");
  EXPECT_NE(Err("secure-port", "1__0"), "");
  EXPECT_NE(Err("secure-port", "_1"), "");
  EXPECT_NE(Err("secure-port", "08"), "");  // octal
  EXPECT_EQ(Err("secure-port", "99999999999999999999"),
            R"(invalid argument "99999999999999999999" for "--secure-port" flag: strconv.ParseInt: parsing "99999999999999999999": value out of range)");
  EXPECT_EQ(Err("kubelet-port", "10250"), "");
  EXPECT_EQ(Err("kubelet-port", "-1"),
            R"(invalid argument "-1" for "--kubelet-port" flag: strconv.ParseUint: parsing "-1": invalid syntax)");
}

TEST(KubeFlags, BoolsFloatsAndDurations) {
  for (const char* ok : {"true", "false", "1", "0", "t", "F", "TRUE", "False"}) EXPECT_EQ(Err("anonymous-auth", ok), "") << ok;
  EXPECT_EQ(Err("anonymous-auth", "yes"),
            R"(invalid argument "yes" for "--anonymous-auth" flag: strconv.ParseBool: parsing "yes": invalid syntax)");
  EXPECT_EQ(Err("goaway-chance", "0.001"), "");
  EXPECT_EQ(Err("goaway-chance", "1e-3"), "");
  EXPECT_EQ(Err("goaway-chance", "often"),
            R"(invalid argument "often" for "--goaway-chance" flag: strconv.ParseFloat: parsing "often": invalid syntax)");
  EXPECT_NE(Err("goaway-chance", " 1"), "");
  EXPECT_EQ(Err("goaway-chance", "0_0.5"), "");
  EXPECT_NE(Err("goaway-chance", "0__5"), "");
  EXPECT_NE(Err("audit-log-batch-throttle-qps", "1e39"), "");  // float32 overflow
  for (const char* ok : {"5m0s", "1h", "300ms", "0", "1h30m", "1.5s", "-2s"}) EXPECT_EQ(Err("request-timeout", ok), "") << ok;
  EXPECT_EQ(Err("request-timeout", "5"),
            R"(invalid argument "5" for "--request-timeout" flag: time: missing unit in duration "5")");
  EXPECT_EQ(Err("request-timeout", "5x"),
            R"(invalid argument "5x" for "--request-timeout" flag: time: unknown unit "x" in duration "5x")");
  EXPECT_EQ(Err("request-timeout", "soon"),
            R"(invalid argument "soon" for "--request-timeout" flag: time: invalid duration "soon")");
}

TEST(KubeFlags, AddressesRangesAndPorts) {
  EXPECT_EQ(Err("bind-address", "127.0.0.1"), "");
  EXPECT_EQ(Err("bind-address", "::"), "");
  EXPECT_EQ(Err("bind-address", "1.2.3"), R"(invalid argument "1.2.3" for "--bind-address" flag: failed to parse IP: "1.2.3")");
  EXPECT_EQ(Err("service-cluster-ip-range", "10.96.0.0/12"), "");
  EXPECT_EQ(Err("service-cluster-ip-range", "10.96.0.0/12,fd00::/108"), "");
  EXPECT_EQ(Err("service-cluster-ip-range", "10.0.0.0/33"),
            R"(invalid argument "10.0.0.0/33" for "--service-cluster-ip-range" flag: service-cluster-ip-range[0] is not a valid cidr)");
  EXPECT_NE(Err("service-cluster-ip-range", "10.0.0.0/8,10.1.0.0"), "");
  EXPECT_NE(Err("service-cluster-ip-range", "10.0.0.0/8,fd00::/108,10.1.0.0/16"), "");
  EXPECT_EQ(Err("service-node-port-range", "30000-32767"), "");
  EXPECT_EQ(Err("service-node-port-range", "30000+2767"), "");
  EXPECT_EQ(Err("service-node-port-range", "8080"), "");
  EXPECT_EQ(Err("service-node-port-range", "32767-30000"),
            R"(invalid argument "32767-30000" for "--service-node-port-range" flag: end port cannot be less than start port: 32767-30000)");
  EXPECT_EQ(Err("service-node-port-range", "1-70000"),
            R"(invalid argument "1-70000" for "--service-node-port-range" flag: the port range cannot be greater than 65535: 1-70000)");
  EXPECT_EQ(Err("service-node-port-range", "a-b"),
            R"(invalid argument "a-b" for "--service-node-port-range" flag: strconv.Atoi: parsing "a": invalid syntax)");
  EXPECT_NE(Err("service-node-port-range", "1-2+3"), "");
}

TEST(KubeFlags, ListsAndMaps) {
  EXPECT_EQ(Err("enable-admission-plugins", "NamespaceLifecycle,LimitRanger"), "");
  EXPECT_EQ(Err("enable-admission-plugins", ""), "");
  EXPECT_EQ(Err("enable-admission-plugins", R"("a,b",c)"), "");
  EXPECT_NE(Err("enable-admission-plugins", R"(a,"b)"), "");
  EXPECT_EQ(Err("allow-metric-labels", "m,l=v1"), "");
  EXPECT_EQ(Err("allow-metric-labels", "a=1,b=2"), "");
  EXPECT_EQ(Err("allow-metric-labels", "ab"),
            R"(invalid argument "ab" for "--allow-metric-labels" flag: ab must be formatted as key=value)");
  EXPECT_EQ(Err("oidc-required-claim", "hd=example.com,x"), "");
  EXPECT_NE(Err("oidc-required-claim", "hd"), "");
  EXPECT_EQ(Err("runtime-config", "api/all=true,batch/v2alpha1"), "");
  EXPECT_EQ(Err("feature-gates", "Foo=true,kube:Bar=false"), "");
  EXPECT_EQ(Err("feature-gates", "Foo"),
            R"(invalid argument "Foo" for "--feature-gates" flag: missing bool value for Foo)");
  EXPECT_EQ(Err("feature-gates", "Foo=maybe"),
            R"(invalid argument "Foo=maybe" for "--feature-gates" flag: invalid value of Foo=maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax)");
  EXPECT_NE(Err("feature-gates", "wardle:Foo=true"), "");
  EXPECT_EQ(Err("tls-sni-cert-key", "a.crt,a.key"), "");
  EXPECT_EQ(Err("tls-sni-cert-key", "a.crt,a.key:*.foo.com,foo.com"), "");
  EXPECT_EQ(Err("tls-sni-cert-key", "a.crt"),
            R"(invalid argument "a.crt" for "--tls-sni-cert-key" flag: expected comma separated certificate and key file paths)");
  EXPECT_NE(Err("tls-sni-cert-key", "a.crt,a.key:"), "");
}

TEST(KubeFlags, LoggingAndVersion) {
  EXPECT_EQ(Err("v", "4"), "");
  EXPECT_EQ(Err("v", "-1"), R"(invalid argument "-1" for "-v, --v" flag: strconv.ParseUint: parsing "-1": invalid syntax)");
  EXPECT_EQ(Err("vmodule", "server*=4,store=2"), "");
  EXPECT_EQ(Err("vmodule", "server"),
            R"(invalid argument "server" for "--vmodule" flag: "server" does not have the pattern=N format)");
  EXPECT_NE(Err("vmodule", "server=x"), "");
  EXPECT_EQ(Err("log-json-info-buffer-size", "2Ki"), "");
  EXPECT_EQ(Err("log-json-info-buffer-size", "512"), "");
  EXPECT_EQ(Err("log-json-info-buffer-size", "1e3"), "");
  EXPECT_NE(Err("log-json-info-buffer-size", "1x"), "");
  EXPECT_NE(Err("log-json-info-buffer-size", "lots"), "");
  for (const char* ok : {"true", "false", "raw", "v1.32.0", "v1.32.0-alpha.1+abc"}) EXPECT_EQ(Err("version", ok), "") << ok;
  EXPECT_NE(Err("version", "maybe"), "");
  EXPECT_NE(Err("version", "v1.32"), "");
}

}  // namespace
}  // namespace capstan::cmd
