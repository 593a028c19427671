#include "flowcontrol/rules.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace capstan::flowcontrol {
namespace {

RequestDigest Resource(std::string verb, std::string group, std::string resource, std::string ns, std::string user,
                       std::vector<std::string> groups = {"system:authenticated"}, std::string sub = "") {
  RequestDigest d;
  d.is_resource_request = true;
  d.verb = std::move(verb);
  d.api_group = std::move(group);
  d.resource = std::move(resource);
  d.subresource = std::move(sub);
  d.namespace_ = std::move(ns);
  d.user.name = std::move(user);
  d.user.groups = std::move(groups);
  return d;
}

RequestDigest NonResource(std::string verb, std::string path, std::string user, std::vector<std::string> groups = {}) {
  RequestDigest d;
  d.verb = std::move(verb);
  d.path = std::move(path);
  d.user.name = std::move(user);
  d.user.groups = std::move(groups);
  return d;
}

FlowSchema Schema(const char* spec) {
  auto v = boost::json::parse(std::string(R"({"metadata":{"name":"s","uid":"u1"},"spec":)") + spec + "}");
  auto fs = ParseFlowSchema(v);
  EXPECT_TRUE(fs.ok()) << fs.status().message();
  return *fs;
}

TEST(RulesTest, SubjectKinds) {
  FlowSchema users = Schema(R"({"priorityLevelConfiguration":{"name":"p"},"rules":[{"subjects":[
      {"kind":"User","user":{"name":"alice"}},
      {"kind":"Group","group":{"name":"devs"}},
      {"kind":"ServiceAccount","serviceAccount":{"namespace":"kube-system","name":"ctrl"}},
      {"kind":"ServiceAccount","serviceAccount":{"namespace":"team","name":"*"}}],
    "resourceRules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"],"clusterScope":true,"namespaces":["*"]}]}]})");
  struct Case {
    std::string user;
    std::vector<std::string> groups;
    bool match;
  } cases[] = {
      {"alice", {}, true},
      {"bob", {}, false},
      {"bob", {"devs"}, true},
      {"system:serviceaccount:kube-system:ctrl", {}, true},
      {"system:serviceaccount:kube-system:other", {}, false},
      {"system:serviceaccount:team:any", {}, true},
      {"system:serviceaccount:teams:any", {}, false},  // a namespace prefix is not enough
      {"team:any", {}, false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(MatchesFlowSchema(Resource("get", "", "pods", "default", c.user, c.groups), users), c.match) << c.user;
  }
  FlowSchema everyone = Schema(R"({"priorityLevelConfiguration":{"name":"p"},"rules":[{"subjects":[
      {"kind":"User","user":{"name":"*"}}],"nonResourceRules":[{"verbs":["get"],"nonResourceURLs":["*"]}]}]})");
  EXPECT_TRUE(MatchesFlowSchema(NonResource("get", "/healthz", "anyone"), everyone));
  EXPECT_FALSE(MatchesFlowSchema(NonResource("post", "/healthz", "anyone"), everyone));
  // A resource request needs a resource rule.
  EXPECT_FALSE(MatchesFlowSchema(Resource("get", "", "pods", "default", "anyone"), everyone));
}

TEST(RulesTest, ResourceRules) {
  FlowSchema fs = Schema(R"({"priorityLevelConfiguration":{"name":"p"},"rules":[{"subjects":[
      {"kind":"Group","group":{"name":"*"}}],
    "resourceRules":[
      {"verbs":["get","list"],"apiGroups":[""],"resources":["pods","pods/log"],"namespaces":["a","b"]},
      {"verbs":["*"],"apiGroups":["apps"],"resources":["*"],"clusterScope":true},
      {"verbs":["create"],"apiGroups":["*"],"resources":["nodes"],"clusterScope":true,"namespaces":["*"]}]}]})");
  struct Case {
    RequestDigest d;
    bool match;
    const char* why;
  } cases[] = {
      {Resource("get", "", "pods", "a", "u"), true, "listed namespace"},
      {Resource("list", "", "pods", "c", "u"), false, "other namespace"},
      {Resource("watch", "", "pods", "a", "u"), false, "verb"},
      {Resource("get", "", "pods", "a", "u", {}, "log"), true, "subresource named"},
      {Resource("get", "", "pods", "a", "u", {}, "status"), false, "subresource not named"},
      {Resource("get", "", "pods", "", "u"), false, "cluster-scoped without clusterScope"},
      {Resource("delete", "apps", "deployments", "", "u"), true, "clusterScope"},
      {Resource("delete", "apps", "deployments", "x", "u"), false, "no namespaces"},
      {Resource("create", "", "nodes", "", "u"), true, "wildcard group"},
      {Resource("create", "extra", "nodes", "z", "u"), true, "wildcard namespaces"},
  };
  for (const auto& c : cases) EXPECT_EQ(MatchesFlowSchema(c.d, fs), c.match) << c.why;
}

TEST(RulesTest, NonResourceUrls) {
  FlowSchema fs = Schema(R"({"priorityLevelConfiguration":{"name":"p"},"rules":[{"subjects":[
      {"kind":"Group","group":{"name":"system:unauthenticated"}}],
    "nonResourceRules":[{"verbs":["get"],"nonResourceURLs":["/healthz","/apis/*","/version/"]}]}]})");
  struct Case {
    const char* path;
    bool match;
  } cases[] = {{"/healthz", true}, {"/healthz/etcd", true}, {"/healthzx", false}, {"/apis", false},
               {"/apis/", true},   {"/apis/apps/v1", true}, {"/version/", true}, {"/version", false},
               {"/livez", false}};
  for (const auto& c : cases) {
    EXPECT_EQ(MatchesFlowSchema(NonResource("get", c.path, "u", {"system:unauthenticated"}), fs), c.match) << c.path;
  }
}

TEST(RulesTest, DistinguishersAndFlowHash) {
  RequestDigest d = Resource("get", "", "pods", "ns1", "alice");
  EXPECT_EQ(FlowDistinguisher(d, Distinguisher::kByUser), "alice");
  EXPECT_EQ(FlowDistinguisher(d, Distinguisher::kByNamespace), "ns1");
  EXPECT_EQ(FlowDistinguisher(d, Distinguisher::kNone), "");
  // sha256("catch-all" 0x00 "alice"), first 8 bytes little endian.
  EXPECT_EQ(HashFlowId("catch-all", "alice"), 15531453230597747500ULL);
  EXPECT_EQ(HashFlowId("workload-low", "system:serviceaccount:ns:sa"), 15761295023160203001ULL);
  EXPECT_NE(HashFlowId("catch-all", "bob"), HashFlowId("catch-all", "alice"));
}

TEST(ConfigTest, ParsesLevelsWithV1Defaults) {
  auto limited = ParsePriorityLevel(boost::json::parse(
      R"({"metadata":{"name":"x","uid":"u"},"spec":{"type":"Limited","limited":{"limitResponse":{"type":"Queue","queuing":{}}}}})"));
  ASSERT_TRUE(limited.ok());
  EXPECT_EQ(limited->nominal_concurrency_shares, 30);
  EXPECT_TRUE(limited->queuing);
  EXPECT_EQ(limited->queues, 64);
  EXPECT_EQ(limited->hand_size, 8);
  EXPECT_EQ(limited->queue_length_limit, 50);
  EXPECT_FALSE(limited->borrowing_limit_percent);
  auto reject = ParsePriorityLevel(boost::json::parse(
      R"({"metadata":{"name":"x"},"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":1,"borrowingLimitPercent":50,"limitResponse":{"type":"Reject"}}}})"));
  ASSERT_TRUE(reject.ok());
  EXPECT_FALSE(reject->queuing);
  EXPECT_EQ(reject->borrowing_limit_percent, 50);
  // Only "exempt" may be Exempt, and "exempt" must be.
  EXPECT_FALSE(ParsePriorityLevel(boost::json::parse(R"({"metadata":{"name":"x"},"spec":{"type":"Exempt","exempt":{}}})")).ok());
  EXPECT_FALSE(ParsePriorityLevel(boost::json::parse(
      R"({"metadata":{"name":"exempt"},"spec":{"type":"Limited","limited":{"limitResponse":{"type":"Reject"}}}})")).ok());
  EXPECT_FALSE(ParsePriorityLevel(boost::json::parse(
      R"({"metadata":{"name":"q"},"spec":{"type":"Limited","limited":{"limitResponse":{"type":"Queue","queuing":{"queues":4,"handSize":5}}}}})")).ok());
}

}  // namespace
}  // namespace capstan::flowcontrol
