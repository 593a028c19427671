// networking.k8s.io/v1 through the real Stores over the embedded backend: kube's defaults, validation
// messages, generation and status rules, printers, and the upstream fixtures.
#include <gtest/gtest.h>

#include "api/networking/catalog_test_util.h"
#include "api/networking/networking.h"
#include "api/networking/validators.h"

namespace capstan::api::networking {
namespace {

namespace am = capstan::apimachinery;
using namespace capstan::api::testing;

Object Ingress(const std::string& name) {
  return Parse(R"({"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":")" + name +
               R"("},"spec":{"rules":[{"host":"foo.example.com","http":{"paths":[{"path":"/","pathType":"Prefix",
               "backend":{"service":{"name":"web","port":{"number":80}}}}]}}]}})");
}

class NetworkingTest : public ::testing::Test {
 protected:
  ApiTestEnv env_{Install};
};

TEST_F(NetworkingTest, IngressGenerationAndStatus) {
  Object ing = Ingress("web");
  ing["status"] = Parse(R"({"loadBalancer":{"ingress":[{"ip":"10.0.0.9"}]}})");
  auto created = env_.Create("ingresses", ing);
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_EQ(am::GetGeneration(*created), 1);
  EXPECT_TRUE(Get(*created, "status.loadBalancer.ingress").is_null()) << "status is reset on create";

  auto labeled = env_.Mutate("ingresses", "web", [](Object& o) { am::SetLabel(o, "a", "b"); });
  ASSERT_TRUE(labeled.ok());
  EXPECT_EQ(am::GetGeneration(labeled->object), 1);
  auto changed = env_.Mutate("ingresses", "web", [](Object& o) { Set(o, "spec.rules[0].host", "bar.example.com"); });
  ASSERT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_EQ(am::GetGeneration(changed->object), 2);

  auto status = env_.Mutate("ingresses", "web", [](Object& o) {
    o["status"] = Parse(R"({"loadBalancer":{"ingress":[{"ip":"10.0.0.9"},{"hostname":"lb.example.com"}]}})");
    Set(o, "spec.rules[0].host", "ignored.example.com");
  }, "status");
  ASSERT_TRUE(status.ok()) << status.status().message();
  EXPECT_EQ(GetString(status->object, "status.loadBalancer.ingress[0].ip"), "10.0.0.9");
  EXPECT_EQ(GetString(status->object, "spec.rules[0].host"), "bar.example.com") << "/status keeps the spec";
  EXPECT_EQ(am::GetGeneration(status->object), 2);

  auto bad = env_.Mutate("ingresses", "web", [](Object& o) {
    o["status"] = Parse(R"({"loadBalancer":{"ingress":[{"ip":"not-an-ip","hostname":"1.2.3.4"}]}})");
  }, "status");
  EXPECT_EQ(ErrorOf(bad),
            "Ingress.networking.k8s.io \"web\" is invalid: [status.loadBalancer.ingress[0].ip: Invalid value: "
            "\"not-an-ip\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff), "
            "status.loadBalancer.ingress[0].hostname: Invalid value: \"1.2.3.4\": must be a DNS name, not an IP address]");
  auto cells = env_.Cells("ingresses", status->object);
  ASSERT_EQ(cells.size(), 6u);
  EXPECT_EQ(cells[1].as_string(), "<none>");
  EXPECT_EQ(cells[2].as_string(), "bar.example.com");
  EXPECT_EQ(cells[3].as_string(), "10.0.0.9,lb.example.com");
  EXPECT_EQ(cells[4].as_string(), "80");
}

TEST_F(NetworkingTest, IngressValidationMessages) {
  Object empty = Parse(R"({"metadata":{"name":"empty"},"spec":{}})");
  EXPECT_EQ(ErrorOf(env_.Create("ingresses", empty)),
            "Ingress.networking.k8s.io \"empty\" is invalid: spec: Invalid value: []networking.IngressRule(nil): either "
            "`defaultBackend` or `rules` must be specified");

  Object ing = Ingress("bad");
  Set(ing, "spec.rules[0].host", "*.*.example.com");
  Erase(ing, "spec.rules[0].http.paths[0].pathType");
  Set(ing, "spec.tls", json::parse(R"([{"hosts":["1.2.3.4"],"secretName":"Bad_Secret"}])"));
  auto r = env_.Create("ingresses", ing);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), 422);
  EXPECT_NE(r.status().message().find("spec.rules[0].host: Invalid value: \"*.*.example.com\": a wildcard DNS-1123 "
                                      "subdomain must start with '*.'"),
            std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified"),
            std::string::npos);
  EXPECT_NE(r.status().message().find("spec.tls[0].secretName: Invalid value: \"Bad_Secret\": a lowercase RFC 1123 subdomain"),
            std::string::npos);

  Object ports = Ingress("ports");
  Set(ports, "spec.rules[0].host", "10.1.2.3");
  Set(ports, "spec.rules[0].http.paths[0].backend.service.port", json::parse(R"({"name":"http","number":80})"));
  Set(ports, "spec.rules[0].http.paths[0].path", "/a//b");
  EXPECT_EQ(ErrorOf(env_.Create("ingresses", ports)),
            "Ingress.networking.k8s.io \"ports\" is invalid: [spec.rules[0].host: Invalid value: \"10.1.2.3\": must be a "
            "DNS name, not an IP address, spec.rules[0].http.paths[0].path: Invalid value: \"/a//b\": must not contain "
            "'//', spec.rules[0].http.paths[0].backend: Invalid value: \"\": cannot set both port name & port number]");

  Object cls = Ingress("cls");
  am::SetAnnotation(cls, "kubernetes.io/ingress.class", "nginx");
  Set(cls, "spec.ingressClassName", "other");
  EXPECT_EQ(ErrorOf(env_.Create("ingresses", cls)),
            "Ingress.networking.k8s.io \"cls\" is invalid: annotations.kubernetes.io/ingress.class: Invalid value: "
            "\"nginx\": must match `ingressClassName` when both are specified");

  // The deprecated annotation alone is accepted with kube's warning.
  Object warn = Ingress("warn");
  am::SetAnnotation(warn, "kubernetes.io/ingress.class", "nginx");
  RequestScope scope;
  registry::Context ctx = env_.Ctx();
  ctx.scope = &scope;
  ASSERT_TRUE(CreateAs(env_, "ingresses", warn, ctx).ok());
  auto warnings = scope.warnings();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], "annotation \"kubernetes.io/ingress.class\" is deprecated, please use 'spec.ingressClassName' instead");
}

TEST_F(NetworkingTest, IngressClassDefaultsImmutabilityAndPrinter) {
  Object ic = Parse(R"({"metadata":{"name":"nginx"},"spec":{"controller":"example.com/ingress",
                       "parameters":{"apiGroup":"k8s.example.com","kind":"IngressParameters","name":"external"}}})");
  auto created = env_.Create("ingressclasses", ic);
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_EQ(GetString(*created, "spec.parameters.scope"), "Cluster");
  EXPECT_EQ(am::GetGeneration(*created), 1);
  auto cells = env_.Cells("ingressclasses", *created);
  EXPECT_EQ(cells[1].as_string(), "example.com/ingress");
  EXPECT_EQ(cells[2].as_string(), "IngressParameters.k8s.example.com/external");

  auto changed = env_.Mutate("ingressclasses", "nginx", [](Object& o) { Set(o, "spec.controller", "example.com/other"); });
  EXPECT_EQ(ErrorOf(changed),
            "IngressClass.networking.k8s.io \"nginx\" is invalid: spec.controller: Invalid value: \"example.com/other\": "
            "field is immutable");

  Object bad = Parse(R"({"metadata":{"name":"bad"},"spec":{"controller":"nodomain",
                        "parameters":{"kind":"K","name":"n","scope":"Namespace"}}})");
  EXPECT_EQ(ErrorOf(env_.Create("ingressclasses", bad)),
            "IngressClass.networking.k8s.io \"bad\" is invalid: [spec.controller: Invalid value: \"nodomain\": must be a "
            "domain-prefixed path (such as \"acme.io/foo\"), spec.parameters.namespace: Required value: `parameters.scope` "
            "is set to 'Namespace']");
}

TEST_F(NetworkingTest, NetworkPolicyDefaultsValidationAndPrinter) {
  Object np = Parse(R"({"metadata":{"name":"db"},"spec":{"podSelector":{},
      "egress":[{"ports":[{"port":5432}],"to":[{"ipBlock":{"cidr":"10.0.0.0/16","except":["10.0.1.0/24"]}}]}]}})");
  auto created = env_.Create("networkpolicies", np);
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_EQ(json::serialize(Get(*created, "spec.policyTypes")), R"(["Ingress","Egress"])");
  EXPECT_EQ(GetString(*created, "spec.egress[0].ports[0].protocol"), "TCP");
  EXPECT_EQ(am::GetGeneration(*created), 1);
  EXPECT_EQ(env_.Cells("networkpolicies", *created)[1].as_string(), "<none>");

  Object bad = Parse(R"({"metadata":{"name":"bad"},"spec":{"podSelector":{"matchLabels":{"app":"web"}},
      "ingress":[{"ports":[{"protocol":"ICMP","port":80,"endPort":70}],
                  "from":[{"ipBlock":{"cidr":"10.0.0.0/16","except":["192.168.0.0/24","10.0.0.0/8"]}},{},
                          {"ipBlock":{"cidr":"nope"},"podSelector":{}}]}],
      "policyTypes":["Ingress","Sideways"]}})");
  EXPECT_EQ(ErrorOf(env_.Create("networkpolicies", bad)),
            "NetworkPolicy.networking.k8s.io \"bad\" is invalid: [spec.ingress[0].ports[0].protocol: Unsupported value: "
            "\"ICMP\": supported values: \"TCP\", \"UDP\", \"SCTP\", spec.ingress[0].ports[0].endPort: Invalid value: 70: "
            "must be greater than or equal to `port`, spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "
            "\"192.168.0.0/24\": must be a strict subset of `cidr`, spec.ingress[0].from[0].ipBlock.except[1]: Invalid "
            "value: \"10.0.0.0/8\": must be a strict subset of `cidr`, spec.ingress[0].from[1]: Required value: must "
            "specify a peer, spec.ingress[0].from[2].ipBlock.cidr: Invalid value: \"nope\": must be a valid CIDR value, "
            "(e.g. 10.9.8.0/24 or 2001:db8::/64), spec.ingress[0].from[2]: Forbidden: may not specify both ipBlock and "
            "another peer, spec.policyTypes[1]: Unsupported value: \"Sideways\": supported values: \"Ingress\", \"Egress\"]");
  Object selected = np;
  am::SetName(selected, "sel");
  Set(selected, "spec.podSelector", json::parse(R"({"matchLabels":{"app":"db"}})"));
  auto sel = env_.Create("networkpolicies", selected);
  ASSERT_TRUE(sel.ok());
  EXPECT_EQ(env_.Cells("networkpolicies", *sel)[1].as_string(), "app=db");
}

TEST(CatalogValidators, AddressesAndCidrs) {
  EXPECT_TRUE(catalog::ParseIp("010.001.1.1").has_value()) << "sloppy IPv4 allows leading zeros";
  EXPECT_FALSE(catalog::ParseIp("1.2.3").has_value());
  EXPECT_FALSE(catalog::ParseIp("256.1.1.1").has_value());
  EXPECT_FALSE(catalog::ParseIp("fe80::1%eth0").has_value());
  auto mapped = catalog::ParseIp("::ffff:1.2.3.4");
  ASSERT_TRUE(mapped);
  EXPECT_FALSE(mapped->v6) << "IPv4-mapped addresses count as IPv4, as Go's To4";
  auto c = catalog::ParseCidr("10.1.2.3/8");
  ASSERT_TRUE(c);
  EXPECT_TRUE(catalog::CidrContains(*c, *catalog::ParseIp("10.200.0.1")));
  EXPECT_FALSE(catalog::CidrContains(*c, *catalog::ParseIp("11.0.0.1")));
  EXPECT_FALSE(catalog::ParseCidr("10.0.0.0/33"));
  auto v6 = catalog::ParseCidr("2001:db8::/32");
  ASSERT_TRUE(v6);
  EXPECT_TRUE(catalog::CidrContains(*v6, *catalog::ParseIp("2001:db8:1::1")));
  EXPECT_EQ(catalog::PortNameProblems("-Http--").size(), 3u);
}

// --- fixtures ---

TEST_F(NetworkingTest, IngressFixture) {
  auto fix_backend = [](Object& o, const std::string& path) {
    Erase(o, path + ".resource");
    Erase(o, path + ".service.port.name");
    Set(o, path + ".service.name", "svc");
  };
  CheckFixture(
      env_, "networking.k8s.io.v1.Ingress", "ingresses",
      [&](Object& o) {
        Set(o, "spec.ingressClassName", "nginx");
        fix_backend(o, "spec.defaultBackend");
        fix_backend(o, "spec.rules[0].http.paths[0].backend");
        Set(o, "spec.rules[0].host", "host.example.com");
        Set(o, "spec.rules[0].http.paths[0].path", "/api");
        Set(o, "spec.rules[0].http.paths[0].pathType", "Prefix");
        Set(o, "spec.tls[0].hosts[0]", "host.example.com");
        Set(o, "spec.tls[0].secretName", "tls-secret");
      },
      {},
      [](Object& s) {
        Set(s, "loadBalancer.ingress[0].ip", "192.0.2.1");
        Set(s, "loadBalancer.ingress[0].hostname", "lb.example.com");
        Set(s, "loadBalancer.ingress[0].ports[0].protocol", "TCP");
      });
}

TEST_F(NetworkingTest, IngressClassFixture) {
  CheckFixture(env_, "networking.k8s.io.v1.IngressClass", "ingressclasses", [](Object& o) {
    Set(o, "spec.controller", "example.com/controller");
    Set(o, "spec.parameters.apiGroup", "example.com");
    Set(o, "spec.parameters.scope", "Namespace");
    Set(o, "spec.parameters.namespace", "default");
  });
}

TEST_F(NetworkingTest, NetworkPolicyFixture) {
  CheckFixture(env_, "networking.k8s.io.v1.NetworkPolicy", "networkpolicies", [](Object& o) {
    for (const char* sel : {"spec.podSelector", "spec.ingress[0].from[0].podSelector", "spec.ingress[0].from[0].namespaceSelector",
                            "spec.egress[0].to[0].podSelector", "spec.egress[0].to[0].namespaceSelector"}) {
      Set(o, std::string(sel) + ".matchExpressions[0].operator", "In");
    }
    for (const char* dir : {"spec.ingress[0]", "spec.egress[0]"}) {
      std::string d(dir);
      std::string peers = d + (d == "spec.ingress[0]" ? ".from[0]" : ".to[0]");
      // A peer with an ipBlock may not have another selector; keep the selectors in a second peer.
      json::value peer = Get(o, peers);
      json::object block{{"ipBlock", json::object{{"cidr", "10.0.0.0/16"}, {"except", json::array{"10.0.1.0/24"}}}}};
      peer.as_object().erase("ipBlock");
      Set(o, d + (d == "spec.ingress[0]" ? ".from" : ".to"), json::array{peer, block});
      Set(o, d + ".ports[0].protocol", "TCP");
      Set(o, d + ".ports[0].port", 80);
      Set(o, d + ".ports[0].endPort", 90);
    }
    Set(o, "spec.policyTypes", json::array{"Ingress", "Egress"});
  });
}

}  // namespace
}  // namespace capstan::api::networking
