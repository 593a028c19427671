// discovery.k8s.io/v1 EndpointSlices through the real Store over the embedded backend: defaults,
// validation messages, v1's deprecatedTopology rule, generation, the printer, the fixture, and the
// mirror of the default/kubernetes Endpoints.
#include <gtest/gtest.h>

#include "api/discovery/discovery.h"
#include "api/networking/catalog_test_util.h"

namespace capstan::api::discovery {
namespace {

namespace am = capstan::apimachinery;
using namespace capstan::api::testing;

Object Slice(const std::string& name, const std::string& type, const std::string& address) {
  return Parse(R"({"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":")" + name +
               R"(","labels":{"kubernetes.io/service-name":"web"}},"addressType":")" + type +
               R"(","endpoints":[{"addresses":[")" + address + R"("]}],"ports":[{"port":80}]})");
}

class DiscoveryTest : public ::testing::Test {
 protected:
  ApiTestEnv env_{Install};
};

TEST_F(DiscoveryTest, DefaultsGenerationAndPrinter) {
  auto created = env_.Create("endpointslices", Slice("web-1", "IPv4", "10.1.2.3"));
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_EQ(GetString(*created, "ports[0].protocol"), "TCP");
  EXPECT_EQ(GetString(*created, "ports[0].name"), "");
  EXPECT_TRUE(Get(*created, "ports[0].name").is_string()) << "the name is defaulted to \"\", not left out";
  EXPECT_EQ(am::GetGeneration(*created), 1);
  auto relabeled = env_.Mutate("endpointslices", "web-1", [](Object& o) { am::SetLabel(o, "extra", "x"); });
  ASSERT_TRUE(relabeled.ok());
  EXPECT_EQ(am::GetGeneration(relabeled->object), 2) << "kube bumps an EndpointSlice's generation on label changes";
  auto annotated = env_.Mutate("endpointslices", "web-1", [](Object& o) { am::SetAnnotation(o, "a", "b"); });
  EXPECT_EQ(am::GetGeneration(annotated->object), 2);
  auto cells = env_.Cells("endpointslices", *created);
  ASSERT_EQ(cells.size(), 5u);
  EXPECT_EQ(cells[1].as_string(), "IPv4");
  EXPECT_EQ(cells[2].as_string(), "80");
  EXPECT_EQ(cells[3].as_string(), "10.1.2.3");
  Object many = Slice("many", "IPv4", "10.0.0.1");
  Set(many, "endpoints", json::parse(R"([{"addresses":["10.0.0.1","10.0.0.2"]},{"addresses":["10.0.0.3","10.0.0.4","10.0.0.5"]}])"));
  Erase(many, "ports");
  EXPECT_EQ(env_.Cells("endpointslices", many)[3].as_string(), "10.0.0.1,10.0.0.2,10.0.0.3 + 2 more...");
  EXPECT_EQ(env_.Cells("endpointslices", many)[2].as_string(), "<unset>");
}

TEST_F(DiscoveryTest, ValidationMessages) {
  EXPECT_EQ(ErrorOf(env_.Create("endpointslices", Slice("a", "IPv4", "fe80::1"))),
            "EndpointSlice.discovery.k8s.io \"a\" is invalid: endpoints[0].addresses[0]: Invalid value: \"fe80::1\": must "
            "be a valid IPv4 address");
  EXPECT_EQ(ErrorOf(env_.Create("endpointslices", Slice("b", "IPv4", "127.0.0.1"))),
            "EndpointSlice.discovery.k8s.io \"b\" is invalid: endpoints[0].addresses[0]: Invalid value: \"127.0.0.1\": may "
            "not be in the loopback range (127.0.0.0/8, ::1/128)");
  EXPECT_EQ(ErrorOf(env_.Create("endpointslices", Slice("c", "IP", "10.0.0.1"))),
            "EndpointSlice.discovery.k8s.io \"c\" is invalid: addressType: Unsupported value: \"IP\": supported values: "
            "\"FQDN\", \"IPv4\", \"IPv6\"");
  Object ports = Slice("d", "FQDN", "example.com");
  Set(ports, "ports", json::parse(R"([{"name":"http","port":80,"protocol":"HTTP"},{"name":"http","port":81}])"));
  Set(ports, "endpoints[0].hostname", "Not_A_Label");
  EXPECT_EQ(ErrorOf(env_.Create("endpointslices", ports)),
            "EndpointSlice.discovery.k8s.io \"d\" is invalid: [endpoints[0].hostname: Invalid value: \"Not_A_Label\": a "
            "lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
            "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?'), ports[0].protocol: Unsupported value: \"HTTP\": supported values: \"SCTP\", "
            "\"TCP\", \"UDP\", ports[1].name: Duplicate value: \"http\"]");
  ASSERT_TRUE(env_.Create("endpointslices", Slice("e", "IPv4", "10.0.0.1")).ok());
  auto changed = env_.Mutate("endpointslices", "e", [](Object& o) {
    o["addressType"] = "IPv6";
    Set(o, "endpoints[0].addresses[0]", "2001:db8::1");
  });
  EXPECT_EQ(ErrorOf(changed),
            "EndpointSlice.discovery.k8s.io \"e\" is invalid: addressType: Invalid value: \"IPv6\": field is immutable");
}

TEST_F(DiscoveryTest, V1DropsDeprecatedTopology) {
  Object s = Slice("topo", "IPv4", "10.0.0.7");
  Set(s, "endpoints[0].deprecatedTopology", json::parse(R"({"kubernetes.io/hostname":"node-1"})"));
  auto created = env_.Create("endpointslices", s);
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_TRUE(Get(*created, "endpoints[0].deprecatedTopology").is_null());
  EXPECT_TRUE(Get(*created, "endpoints[0].nodeName").is_null()) << "only a hostname the stored slice had becomes nodeName";
}

TEST_F(DiscoveryTest, Fixture) {
  CheckFixture(
      env_, "discovery.k8s.io.v1.EndpointSlice", "endpointslices",
      [](Object& o) {
        o["addressType"] = "IPv4";
        Set(o, "endpoints[0].addresses[0]", "10.1.2.3");
        Set(o, "endpoints[0].hostname", "host-1");
        Set(o, "endpoints[0].nodeName", "node-1");
        Set(o, "endpoints[0].hints.forZones[0].name", "zone-a");
        Set(o, "ports[0].name", "http");
        Set(o, "ports[0].protocol", "TCP");
        Set(o, "ports[0].appProtocol", "example.com/proto");
      },
      {"endpoints[0].deprecatedTopology"});
}

TEST_F(DiscoveryTest, SliceFromEndpoints) {
  Object ep = Parse(R"({"metadata":{"name":"kubernetes","namespace":"default"},"subsets":[{"addresses":[{"ip":"192.0.2.10"}],
                       "notReadyAddresses":[{"ip":"192.0.2.11","nodeName":"n1"}],
                       "ports":[{"name":"https","port":6443,"protocol":"TCP"}]}]})");
  Object slice = EndpointSliceFromEndpoints(ep);
  EXPECT_EQ(json::serialize(slice),
            R"({"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"kubernetes","namespace":"default",)"
            R"("labels":{"kubernetes.io/service-name":"kubernetes"}},"addressType":"IPv4","endpoints":[{"addresses":["192.0.2.10"],)"
            R"("conditions":{"ready":true}},{"addresses":["192.0.2.11"],"conditions":{"ready":false},"nodeName":"n1"}],)"
            R"("ports":[{"name":"https","protocol":"TCP","port":6443}]})");
  Object v6 = Parse(R"({"metadata":{"name":"kubernetes","namespace":"default"},"subsets":[{"addresses":[{"ip":"2001:db8::10"}]}]})");
  EXPECT_EQ(GetString(EndpointSliceFromEndpoints(v6), "addressType"), "IPv6");
}

TEST_F(DiscoveryTest, MirrorCreatesUpdatesAndRecreates) {
  auto mirror = EndpointSliceMirror(env_.Find("endpointslices")->storage);
  Object ep = Parse(R"({"metadata":{"name":"kubernetes","namespace":"default"},"subsets":[{"addresses":[{"ip":"192.0.2.10"}],
                       "ports":[{"name":"https","port":6443,"protocol":"TCP"}]}]})");
  ASSERT_TRUE(SyncWait(mirror(ep)).ok());
  auto first = env_.Get("endpointslices", "kubernetes");
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(GetString(*first, "endpoints[0].addresses[0]"), "192.0.2.10");
  // Nothing changed: nothing written.
  ASSERT_TRUE(SyncWait(mirror(ep)).ok());
  EXPECT_EQ(am::GetResourceVersion(*env_.Get("endpointslices", "kubernetes")), am::GetResourceVersion(*first));
  Set(ep, "subsets[0].addresses[0].ip", "192.0.2.20");
  ASSERT_TRUE(SyncWait(mirror(ep)).ok());
  auto second = env_.Get("endpointslices", "kubernetes");
  EXPECT_EQ(GetString(*second, "endpoints[0].addresses[0]"), "192.0.2.20");
  EXPECT_EQ(am::GetUid(*second), am::GetUid(*first));
  Set(ep, "subsets[0].addresses[0].ip", "2001:db8::20");
  ASSERT_TRUE(SyncWait(mirror(ep)).ok());
  auto third = env_.Get("endpointslices", "kubernetes");
  EXPECT_EQ(GetString(*third, "addressType"), "IPv6");
  EXPECT_NE(am::GetUid(*third), am::GetUid(*first)) << "a new address type means a new slice";
}

}  // namespace
}  // namespace capstan::api::discovery
