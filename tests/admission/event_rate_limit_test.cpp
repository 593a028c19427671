#include "admission/event_rate_limit.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "admission/builtin_plugins.h"

namespace capstan::admission {
namespace {

namespace json = boost::json;
using std::chrono::milliseconds;

registry::ResourceInfo EventsInfo(std::string group = "") {
  registry::ResourceInfo i;
  i.group = std::move(group);
  i.version = "v1";
  i.resource = "events";
  i.kind = "Event";
  return i;
}

struct EventRequest {
  explicit EventRequest(std::string ns, std::string group = "") : info(EventsInfo(std::move(group))) {
    obj = json::parse(R"({"metadata":{"name":"e"},"source":{"component":"kubelet","host":"n1"},)"
                      R"("involvedObject":{"kind":"Pod","namespace":"default","name":"p","uid":"u1","apiVersion":"v1"}})")
              .as_object();
    user.name = "alice";
    a.operation = "CREATE";
    a.resource = &info;
    a.namespace_ = std::move(ns);
    a.object = &obj;
    a.user = &user;
  }
  registry::ResourceInfo info;
  registry::Object obj;
  UserInfo user;
  Attributes a;
};

std::optional<json::value> Config(const char* limits) {
  return json::parse(std::string(R"({"apiVersion":"eventratelimit.admission.k8s.io/v1alpha1","kind":"Configuration",)") +
                     R"("limits":)" + limits + "}");
}

std::unique_ptr<EventRateLimit> Plugin(const char* limits, const Clock& clock) {
  auto c = ParseEventRateLimitConfig(Config(limits));
  EXPECT_TRUE(c.ok()) << c.status().message();
  return std::make_unique<EventRateLimit>(c.ok() ? *c : EventRateLimitConfig{}, clock);
}

Status Send(EventRateLimit& p, EventRequest& r) { return SyncWait(p.Validate(r.a)); }

TEST(EventRateLimitConfigTest, KubesValidationAndDecodeErrors) {
  auto none = ParseEventRateLimitConfig(std::nullopt);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(), "limits: Invalid value: []eventratelimit.Limit(nil): must not be empty");
  auto empty = ParseEventRateLimitConfig(Config("[]"));
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(), "limits: Invalid value: []eventratelimit.Limit{}: must not be empty");

  auto bad = ParseEventRateLimitConfig(
      Config(R"([{"type":"Pod","qps":0,"burst":-1},{"type":"Namespace","qps":1,"burst":1,"cacheSize":-2},)"
             R"({"type":"Server","qps":1,"burst":1,"cacheSize":-2}])"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), 400);
  EXPECT_EQ(bad.status().message(),
            "[limits[0].type: Unsupported value: \"Pod\": supported values: \"Server\", \"Namespace\", \"User\", "
            "\"SourceAndObject\", limits[0].burst: Invalid value: -1: must be positive, limits[0].qps: Invalid value: 0: "
            "must be positive, limits[1].cacheSize: Invalid value: -2: must not be negative]");

  auto wrong_type = ParseEventRateLimitConfig(Config(R"([{"type":"Server","qps":"5","burst":1}])"));
  ASSERT_FALSE(wrong_type.ok());
  EXPECT_EQ(wrong_type.status().message(),
            "json: cannot unmarshal string into Go struct field Limit.limits.qps of type int32");
  auto fraction = ParseEventRateLimitConfig(Config(R"([{"type":"Server","qps":1.5,"burst":1}])"));
  ASSERT_FALSE(fraction.ok());
  EXPECT_EQ(fraction.status().message(),
            "json: cannot unmarshal number 1.5 into Go struct field Limit.limits.qps of type int32");

  auto kind = ParseEventRateLimitConfig(json::parse(R"({"apiVersion":"eventratelimit.admission.k8s.io/v1","kind":"Configuration"})"));
  ASSERT_FALSE(kind.ok());
  EXPECT_EQ(kind.status().message(),
            "no kind \"Configuration\" is registered for version \"eventratelimit.admission.k8s.io/v1\" in scheme "
            "\"k8s.io/kubernetes/plugin/pkg/admission/eventratelimit/config.go:31\"");
  auto no_kind = ParseEventRateLimitConfig(json::parse(R"({"limits":[]})"));
  ASSERT_FALSE(no_kind.ok());
  EXPECT_EQ(no_kind.status().message(), "Object 'Kind' is missing in '{\"limits\":[]}'");

  auto ok = ParseEventRateLimitConfig(Config(R"([{"type":"User","qps":3,"burst":10,"cacheSize":7}])"));
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  ASSERT_EQ(ok->limits.size(), 1u);
  EXPECT_EQ(ok->limits[0].type, "User");
  EXPECT_EQ(ok->limits[0].qps, 3);
  EXPECT_EQ(ok->limits[0].burst, 10);
  EXPECT_EQ(ok->limits[0].cache_size, 7);
}

TEST(TokenBucketTest, StartsFullAndRefillsAtQpsUpToBurst) {
  FakeClock clock;
  TokenBucket b(2, 3);
  auto now = clock.Monotonic();
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(b.TryAccept(now)) << i;
  EXPECT_FALSE(b.TryAccept(now));
  EXPECT_FALSE(b.TryAccept(now + milliseconds(499)));  // 0.998 of a token
  EXPECT_TRUE(b.TryAccept(now + milliseconds(500)));
  EXPECT_FALSE(b.TryAccept(now + milliseconds(500)));
  // A long pause saves up `burst` tokens, no more.
  auto later = now + std::chrono::seconds(60);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(b.TryAccept(later)) << i;
  EXPECT_FALSE(b.TryAccept(later));
}

TEST(EventRateLimitTest, NamespaceBucketsRefuseWithKubesTooManyRequests) {
  FakeClock clock;
  auto p = Plugin(R"([{"type":"Namespace","qps":1,"burst":2}])", clock);
  EventRequest a("team-a"), b("team-b");
  EXPECT_TRUE(Send(*p, a).ok());
  EXPECT_TRUE(Send(*p, a).ok());
  Status st = Send(*p, a);
  EXPECT_EQ(st.code(), 429);
  EXPECT_EQ(st.reason(), "TooManyRequests");
  EXPECT_EQ(st.message(), "Too many requests: limit reached on type Namespace for key team-a");
  EXPECT_TRUE(Send(*p, b).ok());  // a bucket of its own
  // Updates count too.
  b.a.operation = "UPDATE";
  EXPECT_TRUE(Send(*p, b).ok());
  EXPECT_EQ(Send(*p, b).code(), 429);
  clock.Advance(std::chrono::seconds(1));
  EXPECT_TRUE(Send(*p, a).ok());
  EXPECT_EQ(Send(*p, a).code(), 429);
}

TEST(EventRateLimitTest, ServerUserAndSourceAndObjectKeys) {
  FakeClock clock;
  auto server = Plugin(R"([{"type":"Server","qps":1,"burst":1}])", clock);
  EventRequest a("a"), b("b");
  EXPECT_TRUE(Send(*server, a).ok());
  EXPECT_EQ(Send(*server, b).message(), "Too many requests: limit reached on type Server for key ");

  auto user = Plugin(R"([{"type":"User","qps":1,"burst":1}])", clock);
  EXPECT_TRUE(Send(*user, a).ok());
  EXPECT_EQ(Send(*user, b).message(), "Too many requests: limit reached on type User for key alice");
  b.user.name = "bob";
  EXPECT_TRUE(Send(*user, b).ok());

  auto source = Plugin(R"([{"type":"SourceAndObject","qps":1,"burst":1}])", clock);
  EXPECT_TRUE(Send(*source, a).ok());
  EXPECT_EQ(Send(*source, b).message(),
            "Too many requests: limit reached on type SourceAndObject for key kubeletn1Poddefaultpu1v1");
  b.obj["involvedObject"].as_object()["name"] = "q";
  EXPECT_TRUE(Send(*source, b).ok());
}

TEST(EventRateLimitTest, EvictedKeyStartsWithAFullBucket) {
  FakeClock clock;
  auto p = Plugin(R"([{"type":"Namespace","qps":1,"burst":1,"cacheSize":1}])", clock);
  EventRequest a("a"), b("b");
  EXPECT_TRUE(Send(*p, a).ok());
  EXPECT_EQ(Send(*p, a).code(), 429);
  EXPECT_TRUE(Send(*p, b).ok());  // evicts a
  EXPECT_TRUE(Send(*p, a).ok());
}

TEST(EventRateLimitTest, EveryLimitTakesATokenAndAllRefusalsAreReported) {
  FakeClock clock;
  auto p = Plugin(R"([{"type":"Server","qps":2,"burst":1},{"type":"Namespace","qps":1,"burst":1}])", clock);
  EventRequest a("a"), b("b");
  EXPECT_TRUE(Send(*p, a).ok());
  EXPECT_EQ(Send(*p, a).message(),
            "Too many requests: [limit reached on type Server for key , limit reached on type Namespace for key a]");
  // The server bucket refused b, and b's namespace bucket still paid.
  EXPECT_EQ(Send(*p, b).message(), "Too many requests: limit reached on type Server for key ");
  clock.Advance(milliseconds(500));  // a token for the server, half of one for namespace b
  EXPECT_EQ(Send(*p, b).message(), "Too many requests: limit reached on type Namespace for key b");
}

TEST(EventRateLimitTest, DryRunsOtherKindsAndEventsGroupAreNotLimited) {
  FakeClock clock;
  auto p = Plugin(R"([{"type":"Server","qps":1,"burst":1}])", clock);
  EventRequest dry("a");
  dry.a.dry_run = true;
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(Send(*p, dry).ok());
  EventRequest new_api("a", "events.k8s.io");
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(Send(*p, new_api).ok());
  EventRequest pod("a");
  pod.info.resource = "pods";
  pod.info.kind = "Pod";
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(Send(*p, pod).ok());
  EventRequest real("a");
  EXPECT_TRUE(Send(*p, real).ok());
  EXPECT_EQ(Send(*p, real).code(), 429);
  EXPECT_TRUE(p->Handles("CREATE"));
  EXPECT_TRUE(p->Handles("UPDATE"));
  EXPECT_FALSE(p->Handles("DELETE"));
}

TEST(EventRateLimitTest, BuiltFromTheAdmissionConfigurationFile) {
  PluginDeps deps;
  auto missing = BuildChain({"EventRateLimit"}, {}, deps);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(),
            "couldn't init admission plugin \"EventRateLimit\": limits: Invalid value: []eventratelimit.Limit(nil): "
            "must not be empty");
  auto config = ParseAdmissionConfig(R"(apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: EventRateLimit
  configuration:
    apiVersion: eventratelimit.admission.k8s.io/v1alpha1
    kind: Configuration
    limits:
    - type: Namespace
      qps: 1
      burst: 1
)",
                                     "/etc");
  ASSERT_TRUE(config.ok()) << config.status().message();
  deps.config = std::make_shared<const AdmissionConfig>(std::move(*config));
  FakeClock clock;
  deps.clock = &clock;
  auto built = BuildChain({"EventRateLimit"}, {}, deps);
  ASSERT_TRUE(built.ok()) << built.status().message();
  EventRequest a("a");
  EXPECT_TRUE(SyncWait(built->chain->Validate(a.a)).ok());
  EXPECT_EQ(SyncWait(built->chain->Validate(a.a)).code(), 429);
  clock.Advance(std::chrono::seconds(1));
  EXPECT_TRUE(SyncWait(built->chain->Validate(a.a)).ok());
}

}  // namespace
}  // namespace capstan::admission
