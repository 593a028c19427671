// Services: kube's defaults and validation, ClusterIP and NodePort allocation (dynamic band first,
// specific requests, conflicts, release on delete and reuse, type changes, concurrent creates,
// several servers on one store, restarts), the printer.
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "api/core/service_alloc.h"
#include "registry/ip_range.h"
#include "registry/port_range.h"
#include "registry/range_allocator.h"
#include "core_test_util.h"
#include "util/strings.h"

namespace capstan::api::core::testing {
namespace {

Object Svc(const std::string& name, const std::string& type = "ClusterIP", const std::string& extra_spec = "") {
  return Parse(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":")" + name + R"("},"spec":{"type":")" + type +
               R"(","selector":{"app":")" + name + R"("},"ports":[{"port":80)" + "}]" + extra_spec + "}}");
}

std::string ClusterIp(const Object& s) { return Str(s, {"spec", "clusterIP"}); }
int64_t NodePort(const Object& s, size_t i = 0) {
  const auto& p = At(s, {"spec", "ports"})->as_array()[i].as_object();
  return p.contains("nodePort") ? p.at("nodePort").as_int64() : 0;
}

class ServiceTest : public ::testing::Test {
 protected:
  ServiceTest() : store_(::testing::UnitTest::GetInstance()->current_test_info()->name()), api_(store_.objects()) {}
  TestStore store_;
  CoreApi api_;
};

TEST(ServiceRanges, IpRangeIsKubes) {
  auto r = registry::IpRange::Parse("10.0.0.0/24");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->Size(), 254);  // no network, no broadcast
  EXPECT_EQ(r->First().String(), "10.0.0.1");
  EXPECT_EQ(r->DynamicOffset(), 16);
  EXPECT_FALSE(r->OffsetOf(*registry::IpAddress::Parse("10.0.0.0")));
  EXPECT_FALSE(r->OffsetOf(*registry::IpAddress::Parse("10.0.0.255")));
  EXPECT_EQ(*r->OffsetOf(*registry::IpAddress::Parse("10.0.0.254")), 253);
  EXPECT_EQ(registry::IpRange::Parse("10.96.0.0/12")->DynamicOffset(), 256);
  auto v6 = registry::IpRange::Parse("fd00::/108");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->Size(), 65535);
  EXPECT_EQ(v6->First().String(), "fd00::1");
  EXPECT_FALSE(registry::IpRange::Parse("10.0.0.0").ok());
  auto p = registry::PortRange::Parse("30000-32767");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->size(), 2768);
  EXPECT_EQ(p->DynamicOffset(), 86);
  EXPECT_EQ(registry::PortRange::Parse("30000+99")->String(), "30000-30099");
  EXPECT_FALSE(registry::PortRange::Parse("5-1").ok());
}

TEST(ServiceRanges, BitmapEncodingIsKubes) {
  std::vector<bool> bits(20, false);
  bits[0] = bits[9] = true;
  std::string enc = registry::RangeAllocator::EncodeBitmap(bits);
  EXPECT_EQ(enc, std::string("\x02\x01", 2));  // big-endian integer 2^9 + 2^0
  EXPECT_EQ(registry::RangeAllocator::DecodeBitmap(enc, 20), bits);
  EXPECT_EQ(registry::RangeAllocator::EncodeBitmap(std::vector<bool>(5, false)), "");
}

TEST_F(ServiceTest, KubeDefaultsAndAllocatedClusterIp) {
  auto s = api_.Create("services", Svc("web"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  const auto& spec = At(*s, {"spec"})->as_object();
  EXPECT_EQ(spec.at("sessionAffinity"), "None");
  EXPECT_EQ(spec.at("ipFamilyPolicy"), "SingleStack");
  EXPECT_EQ(spec.at("ipFamilies"), json::array{"IPv4"});
  EXPECT_EQ(spec.at("internalTrafficPolicy"), "Cluster");
  EXPECT_EQ(spec.at("ports").as_array()[0], Parse(R"({"port":80,"protocol":"TCP","targetPort":80})"));
  EXPECT_FALSE(spec.contains("externalTrafficPolicy"));
  EXPECT_EQ(*At(*s, {"status"}), Parse(R"({"loadBalancer":{}})"));
  // Dynamic allocations come from the upper band: 10.0.0.17 and up.
  auto ip = registry::IpAddress::Parse(ClusterIp(*s));
  ASSERT_TRUE(ip);
  EXPECT_EQ(ip->bytes[0], 10);
  EXPECT_GE(ip->bytes[3], 17);
  EXPECT_EQ(spec.at("clusterIPs"), json::array{json::value(ClusterIp(*s))});
}

TEST_F(ServiceTest, SpecificIpConflictsAndRange) {
  auto a = api_.Create("services", Svc("a", "ClusterIP", R"(,"clusterIP":"10.0.0.5")"));
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(ClusterIp(*a), "10.0.0.5");
  auto b = api_.Create("services", Svc("b", "ClusterIP", R"(,"clusterIP":"10.0.0.5")"));
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), 422);
  EXPECT_EQ(b.status().message(),
            "Service \"b\" is invalid: spec.clusterIPs: Invalid value: []string{\"10.0.0.5\"}: failed to allocate IP 10.0.0.5: "
            "provided IP is already allocated");
  auto c = api_.Create("services", Svc("c", "ClusterIP", R"(,"clusterIP":"10.9.0.5")"));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(Causes(c.status())[0],
            "spec.clusterIPs: Invalid value: []string{\"10.9.0.5\"}: failed to allocate IP 10.9.0.5: the provided IP (10.9.0.5) "
            "is not in the valid range. The range of valid IPs is 10.0.0.0/24");
  // Freed on delete, then reusable.
  ASSERT_TRUE(api_.Delete("services", "a").ok());
  auto again = api_.Create("services", Svc("b", "ClusterIP", R"(,"clusterIP":"10.0.0.5")"));
  ASSERT_TRUE(again.ok()) << again.status().message();
}

TEST_F(ServiceTest, ClusterIpIsImmutable) {
  auto a = api_.Create("services", Svc("a"));
  ASSERT_TRUE(a.ok());
  auto up = api_.Modify("services", "a", [](Object& s) {
    s["spec"].as_object()["clusterIP"] = "10.0.0.9";
    s["spec"].as_object()["clusterIPs"] = json::array{"10.0.0.9"};
  });
  ASSERT_FALSE(up.ok());
  EXPECT_EQ(Causes(up.status())[0], "spec.clusterIPs[0]: Invalid value: []string{\"10.0.0.9\"}: may not change once set");
  // A PUT that leaves clusterIP out keeps it.
  auto put = *a;
  put["spec"].as_object().erase("clusterIP");
  put["spec"].as_object().erase("clusterIPs");
  auto kept = api_.Put("services", "a", put);
  ASSERT_TRUE(kept.ok()) << kept.status().message();
  EXPECT_EQ(ClusterIp(*kept), ClusterIp(*a));
}

TEST_F(ServiceTest, NodePortsAllocatedAndReleased) {
  auto s = api_.Create("services", Svc("np", "NodePort"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  int64_t np = NodePort(*s);
  EXPECT_GE(np, 30000 + 86);  // the dynamic band
  EXPECT_LE(np, 32767);
  EXPECT_EQ(Str(*s, {"spec", "externalTrafficPolicy"}), "Cluster");
  auto taken = api_.Create("services", Parse(R"({"metadata":{"name":"np2"},"spec":{"type":"NodePort","ports":[{"port":80,"nodePort":)" +
                                             std::to_string(np) + "}]}}"));
  ASSERT_FALSE(taken.ok());
  EXPECT_EQ(Causes(taken.status())[0],
            "spec.ports[0].nodePort: Invalid value: " + std::to_string(np) + ": provided port is already allocated");
  auto out = api_.Create("services", Parse(R"({"metadata":{"name":"np3"},"spec":{"type":"NodePort","ports":[{"port":80,"nodePort":80}]}})"));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(Causes(out.status())[0],
            "spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767");
  // Changing to ClusterIP gives the port back.
  auto cip = api_.Modify("services", "np", [](Object& o) { o["spec"].as_object()["type"] = "ClusterIP"; });
  ASSERT_TRUE(cip.ok()) << cip.status().message();
  EXPECT_EQ(NodePort(*cip), 0);
  auto reuse = api_.Create("services", Parse(R"({"metadata":{"name":"np4"},"spec":{"type":"NodePort","ports":[{"port":80,"nodePort":)" +
                                             std::to_string(np) + "}]}}"));
  ASSERT_TRUE(reuse.ok()) << reuse.status().message();
  ASSERT_TRUE(api_.Delete("services", "np4").ok());
  reuse = api_.Create("services", Parse(R"({"metadata":{"name":"np5"},"spec":{"type":"NodePort","ports":[{"port":80,"nodePort":)" +
                                        std::to_string(np) + "}]}}"));
  ASSERT_TRUE(reuse.ok()) << reuse.status().message();
}

TEST_F(ServiceTest, ValidationMessages) {
  auto bad = Parse(R"({"metadata":{"name":"bad"},"spec":{"type":"Weird","ports":[{"port":0,"protocol":"ICMP"},{"port":81}]}})");
  auto r = api_.Create("services", bad);
  ASSERT_FALSE(r.ok());
  auto causes = Causes(r.status());
  auto has = [&](const std::string& s) { return std::find(causes.begin(), causes.end(), s) != causes.end(); };
  EXPECT_TRUE(has("spec.ports[0].name: Required value")) << Join(causes, "\n");
  EXPECT_TRUE(has("spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive")) << Join(causes, "\n");
  EXPECT_TRUE(has("spec.ports[0].protocol: Unsupported value: \"ICMP\": supported values: \"SCTP\", \"TCP\", \"UDP\""));
  EXPECT_TRUE(has("spec.type: Unsupported value: \"Weird\": supported values: \"ClusterIP\", \"ExternalName\", \"LoadBalancer\", \"NodePort\""));
  auto noports = api_.Create("services", Parse(R"({"metadata":{"name":"x"},"spec":{}})"));
  ASSERT_FALSE(noports.ok());
  EXPECT_EQ(noports.status().message(), "Service \"x\" is invalid: spec.ports: Required value");
  auto cipnp = api_.Create("services", Parse(R"({"metadata":{"name":"x"},"spec":{"ports":[{"port":80,"nodePort":30001}]}})"));
  ASSERT_FALSE(cipnp.ok());
  EXPECT_EQ(Causes(cipnp.status())[0], "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'");
  auto dup = api_.Create("services", Parse(R"({"metadata":{"name":"x"},"spec":{"ports":[{"name":"a","port":80},{"name":"b","port":80}]}})"));
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(Causes(dup.status())[0],
            "spec.ports[1]: Duplicate value: core.ServicePort{Name:\"\", Protocol:\"TCP\", AppProtocol:(*string)(nil), Port:80, "
            "TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}, NodePort:0}");
  auto name = api_.Create("services", Svc("1abc"));
  ASSERT_FALSE(name.ok());
  EXPECT_TRUE(StartsWith(Causes(name.status())[0], "metadata.name: Invalid value: \"1abc\": a DNS-1035 label must consist of"));
  auto v6 = api_.Create("services", Svc("v6", "ClusterIP", R"(,"ipFamilies":["IPv6"])"));
  ASSERT_FALSE(v6.ok());
  EXPECT_EQ(Causes(v6.status())[0], "spec.ipFamilies[0]: Invalid value: \"IPv6\": not configured on this cluster");
}

TEST_F(ServiceTest, HeadlessAndExternalName) {
  auto h = api_.Create("services", Svc("h", "ClusterIP", R"(,"clusterIP":"None")"));
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(ClusterIp(*h), "None");
  EXPECT_EQ(Str(*h, {"spec", "ipFamilyPolicy"}), "SingleStack");
  auto e = api_.Create("services", Parse(R"({"metadata":{"name":"e"},"spec":{"type":"ExternalName","externalName":"example.com"}})"));
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_FALSE(At(*e, {"spec", "clusterIP"}));
  EXPECT_FALSE(At(*e, {"spec", "ipFamilies"}));
  auto cells = api_.As<registry::TableConvertor>("services")->TableCells(*e);
  EXPECT_EQ(cells[1], "ExternalName");
  EXPECT_EQ(cells[2], "<none>");
  EXPECT_EQ(cells[3], "example.com");
  EXPECT_EQ(cells[4], "<none>");
}

TEST_F(ServiceTest, PrinterMatchesKube) {
  auto s = api_.Create("services", Parse(R"({"metadata":{"name":"w"},"spec":{"type":"NodePort","selector":{"app":"w","tier":"x"},
      "ports":[{"name":"http","port":80,"nodePort":30080},{"name":"dns","port":53,"protocol":"UDP"}]}})"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  auto* t = api_.As<registry::TableConvertor>("services");
  std::vector<std::string> names;
  for (const auto& c : t->TableColumns()) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age", "Selector"}));
  auto cells = t->TableCells(*s);
  EXPECT_EQ(cells[1], "NodePort");
  EXPECT_EQ(cells[2], json::value(ClusterIp(*s)));
  EXPECT_EQ(cells[3], "<none>");
  EXPECT_EQ(cells[4], json::value("80:30080/TCP,53:" + std::to_string(NodePort(*s, 1)) + "/UDP"));
  EXPECT_EQ(cells[6], "app=w,tier=x");
}

TEST_F(ServiceTest, ConcurrentCreatesNeverShareAnAllocation) {
  constexpr int kThreads = 8, kEach = 6;
  std::vector<std::thread> threads;
  std::mutex mu;
  std::vector<std::string> ips;
  std::vector<int64_t> ports;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        auto s = api_.Create("services", Svc("s-" + std::to_string(t) + "-" + std::to_string(i), "NodePort"));
        if (!s.ok()) {
          ++failures;
          continue;
        }
        std::lock_guard lock(mu);
        ips.push_back(ClusterIp(*s));
        ports.push_back(NodePort(*s));
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(ips.size(), static_cast<size_t>(kThreads * kEach));
  EXPECT_EQ(std::set<std::string>(ips.begin(), ips.end()).size(), ips.size());
  EXPECT_EQ(std::set<int64_t>(ports.begin(), ports.end()).size(), ports.size());
}

TEST_F(ServiceTest, TwoServersOnOneStoreAndRestartsShareAllocations) {
  // A second server process (its own allocators, same store).
  CoreApi replica(store_.objects());
  std::set<std::string> ips;
  for (int i = 0; i < 20; ++i) {
    auto a = api_.Create("services", Svc("a" + std::to_string(i)));
    auto b = replica.Create("services", Svc("b" + std::to_string(i)));
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_TRUE(ips.insert(ClusterIp(*a)).second);
    EXPECT_TRUE(ips.insert(ClusterIp(*b)).second);
  }
  auto held = api_.Create("services", Svc("held", "ClusterIP", R"(,"clusterIP":"10.0.0.200")"));
  ASSERT_TRUE(held.ok() || ips.count("10.0.0.200")) << held.status().message();
  // A restart (fresh allocators over the same store) still sees every allocation.
  CoreApi restarted(store_.objects());
  for (const auto& ip : ips) {
    auto dup = restarted.Create("services", Svc("dup", "ClusterIP", R"(,"clusterIP":")" + ip + "\""));
    ASSERT_FALSE(dup.ok()) << ip;
    EXPECT_TRUE(EndsWith(dup.status().message(), "provided IP is already allocated")) << dup.status().message();
  }
}

TEST_F(ServiceTest, AllocationsAreRebuiltFromStoredServices) {
  auto s = api_.Create("services", Svc("a", "NodePort"));
  ASSERT_TRUE(s.ok());
  // Lose the allocation objects (an older store, or a changed flag): they are rebuilt from services.
  ASSERT_TRUE(SyncWait(store_.objects().Delete("/registry/ranges/serviceips", {}, nullptr)).ok());
  ASSERT_TRUE(SyncWait(store_.objects().Delete("/registry/ranges/servicenodeports", {}, nullptr)).ok());
  CoreApi fresh(store_.objects());
  auto dup = fresh.Create("services", Svc("b", "ClusterIP", R"(,"clusterIP":")" + ClusterIp(*s) + "\""));
  ASSERT_FALSE(dup.ok());
  auto np = fresh.Create("services", Parse(R"({"metadata":{"name":"c"},"spec":{"type":"NodePort","ports":[{"port":80,"nodePort":)" +
                                           std::to_string(NodePort(*s)) + "}]}}"));
  ASSERT_FALSE(np.ok());
  EXPECT_TRUE(EndsWith(np.status().message(), "provided port is already allocated"));
}

TEST_F(ServiceTest, FailedCreatesGiveTheirAllocationsBack) {
  // Two services with one name: the second allocates, fails with AlreadyExists, and releases.
  ASSERT_TRUE(api_.Create("services", Svc("same", "ClusterIP", R"(,"clusterIP":"10.0.0.30")")).ok());
  auto dup = api_.Create("services", Svc("same", "ClusterIP", R"(,"clusterIP":"10.0.0.31")"));
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().code(), 409);
  auto reuse = api_.Create("services", Svc("other", "ClusterIP", R"(,"clusterIP":"10.0.0.31")"));
  EXPECT_TRUE(reuse.ok()) << reuse.status().message();
}

TEST_F(ServiceTest, ProxyWithoutEndpoints) {
  ASSERT_TRUE(api_.Create("services", Svc("web")).ok());
  registry::ConnectRequest get;
  get.method = "GET";
  auto r = api_.Connect("services/proxy", "web", get);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), 404);
  EXPECT_EQ(r.status().message(), "endpoints \"web\" not found");
  ASSERT_TRUE(api_.Create("endpoints", Parse(R"({"metadata":{"name":"web"}})")).ok());
  r = api_.Connect("services/proxy", "web", get);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), 503);
  EXPECT_EQ(r.status().message(), "no endpoints available for service \"web\"");
  r = api_.Connect("services/proxy", "web:81", get);
  EXPECT_EQ(r.status().message(), "no service port 81 found for service \"web\"");
}

}  // namespace
}  // namespace capstan::api::core::testing
