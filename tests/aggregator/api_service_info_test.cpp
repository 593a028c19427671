#include "aggregator/api_service_info.h"
#include "aggregator/authentication_info.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace capstan::aggregator {
namespace {

namespace json = boost::json;

json::object Parse(const char* s) { return json::parse(s).as_object(); }

TEST(ApiServiceInfoTest, ParsesRemoteApiService) {
  auto info = ParseApiService(Parse(R"({"metadata":{"name":"v1beta1.metrics.example.com","resourceVersion":"7"},
    "spec":{"group":"metrics.example.com","version":"v1beta1","groupPriorityMinimum":100,"versionPriority":15,
            "service":{"namespace":"default","name":"metrics","port":8443},"caBundle":"aGVsbG8="},
    "status":{"conditions":[{"type":"Available","status":"True"}]}})"));
  ASSERT_TRUE(info);
  EXPECT_EQ(info->name, "v1beta1.metrics.example.com");
  EXPECT_EQ(info->resource_version, "7");
  EXPECT_EQ(info->group, "metrics.example.com");
  EXPECT_EQ(info->version, "v1beta1");
  EXPECT_TRUE(info->remote);
  EXPECT_EQ(info->service_namespace, "default");
  EXPECT_EQ(info->service_name, "metrics");
  EXPECT_EQ(info->port, 8443);
  EXPECT_EQ(info->ca_pem, "hello");
  EXPECT_EQ(info->group_priority_minimum, 100);
  EXPECT_EQ(info->version_priority, 15);
  EXPECT_TRUE(info->available);
}

TEST(ApiServiceInfoTest, LocalAndDefaults) {
  auto info = ParseApiService(Parse(R"({"metadata":{"name":"v1.apps"},"spec":{"group":"apps","version":"v1",
    "service":{"namespace":"x","name":"y"}}})"));
  ASSERT_TRUE(info);
  EXPECT_EQ(info->port, 443);
  EXPECT_FALSE(info->available);
  auto local = ParseApiService(Parse(R"({"metadata":{"name":"v1.apps"},"spec":{"group":"apps","version":"v1"}})"));
  ASSERT_TRUE(local);
  EXPECT_FALSE(local->remote);
  EXPECT_FALSE(ParseApiService(Parse(R"({"metadata":{"name":"x"}})")));
}

TEST(ApiServiceInfoTest, ProxyHeadersReplaceCredentialsAndIdentity) {
  http::Headers h;
  h.Set("Authorization", "Bearer secret");
  h.Set("X-Remote-User", "forged");
  h.Add("X-Remote-Extra-Foo", "forged");
  h.Set("Impersonate-User", "someone");
  h.Set("Connection", "keep-alive");
  h.Set("Accept", "application/json");
  UserInfo u;
  u.name = "alice";
  u.groups = {"system:masters", "system:authenticated"};
  u.extra["scopes.example/a b"] = {"x", "y"};
  SetProxyHeaders(h, u);
  EXPECT_FALSE(h.Has("Authorization"));
  EXPECT_FALSE(h.Has("Impersonate-User"));
  EXPECT_FALSE(h.Has("Connection"));
  EXPECT_FALSE(h.Has("X-Remote-Extra-Foo"));
  EXPECT_EQ(h.Get("Accept"), "application/json");
  EXPECT_EQ(h.Get("X-Remote-User"), "alice");
  auto groups = h.GetAll("X-Remote-Group");
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0], "system:masters");
  EXPECT_EQ(groups[1], "system:authenticated");
  auto extra = h.GetAll("X-Remote-Extra-scopes.example%2Fa%20b");
  ASSERT_EQ(extra.size(), 2u);
  EXPECT_EQ(extra[1], "y");
}

TEST(ApiServiceInfoTest, OrdersGroupsByPriorityThenName) {
  auto mk = [](std::string g, std::string v, int64_t gp, int64_t vp) {
    ApiServiceInfo i;
    i.group = std::move(g);
    i.version = std::move(v);
    i.group_priority_minimum = gp;
    i.version_priority = vp;
    return i;
  };
  auto order = OrderGroups({mk("b.example.com", "v1beta1", 100, 10), mk("apps", "v1", 17800, 15),
                            mk("a.example.com", "v1", 100, 10), mk("b.example.com", "v1", 100, 10),
                            mk("b.example.com", "v2alpha1", 100, 20)});
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[0].group, "apps");
  EXPECT_EQ(order[1].group, "a.example.com");
  EXPECT_EQ(order[2].group, "b.example.com");
  ASSERT_EQ(order[2].versions.size(), 3u);
  EXPECT_EQ(order[2].versions[0], "v2alpha1");  // higher versionPriority wins
  EXPECT_EQ(order[2].versions[1], "v1");
  EXPECT_EQ(order[2].versions[2], "v1beta1");
}

TEST(ApiServiceInfoTest, ResourceListToAggregatedDiscovery) {
  auto list = Parse(R"({"kind":"APIResourceList","groupVersion":"metrics.example.com/v1beta1","resources":[
    {"name":"widgets","singularName":"widget","namespaced":true,"kind":"Widget","verbs":["get","list"],"shortNames":["wd"]},
    {"name":"widgets/status","singularName":"","namespaced":true,"kind":"Widget","verbs":["get"]},
    {"name":"nodes","singularName":"","namespaced":false,"kind":"NodeMetrics","verbs":["get"]}]})");
  json::object v = VersionDiscoveryFromResourceList(list, "metrics.example.com", "v1beta1", false);
  EXPECT_EQ(v.at("version").as_string(), "v1beta1");
  EXPECT_EQ(v.at("freshness").as_string(), "Current");
  const json::array& rs = v.at("resources").as_array();
  ASSERT_EQ(rs.size(), 2u);
  const json::object& w = rs[0].as_object();
  EXPECT_EQ(w.at("resource").as_string(), "widgets");
  EXPECT_EQ(w.at("scope").as_string(), "Namespaced");
  EXPECT_EQ(w.at("singularResource").as_string(), "widget");
  EXPECT_EQ(w.at("responseKind").at("kind").as_string(), "Widget");
  EXPECT_EQ(w.at("responseKind").at("group").as_string(), "metrics.example.com");
  EXPECT_EQ(w.at("shortNames").as_array().size(), 1u);
  ASSERT_TRUE(w.contains("subresources"));
  EXPECT_EQ(w.at("subresources").as_array()[0].at("subresource").as_string(), "status");
  EXPECT_EQ(rs[1].at("scope").as_string(), "Cluster");
  EXPECT_EQ(VersionDiscoveryFromResourceList(list, "g", "v", true).at("freshness").as_string(), "Stale");
}

}  // namespace
}  // namespace capstan::aggregator

namespace capstan::aggregator {
namespace {

TEST(AuthenticationInfoTest, ConfigMapDataAsKubeWritesIt) {
  AuthenticationInfo info;
  info.client_ca_pem = "CLIENT-CA";
  auto only_client = AuthenticationConfigMapData(info);
  EXPECT_EQ(only_client.size(), 1u);
  EXPECT_EQ(only_client.at("client-ca-file").as_string(), "CLIENT-CA");
  info.requestheader_ca_pem = "FRONT-PROXY-CA";
  info.allowed_names = {"front-proxy-client"};
  info.username_headers = {"X-Remote-User"};
  info.group_headers = {"X-Remote-Group"};
  info.extra_headers_prefix = {"X-Remote-Extra-"};
  auto data = AuthenticationConfigMapData(info);
  EXPECT_EQ(data.at("requestheader-client-ca-file").as_string(), "FRONT-PROXY-CA");
  EXPECT_EQ(data.at("requestheader-allowed-names").as_string(), R"(["front-proxy-client"])");
  EXPECT_EQ(data.at("requestheader-username-headers").as_string(), R"(["X-Remote-User"])");
  EXPECT_EQ(data.at("requestheader-group-headers").as_string(), R"(["X-Remote-Group"])");
  EXPECT_EQ(data.at("requestheader-extra-headers-prefix").as_string(), R"(["X-Remote-Extra-"])");
  EXPECT_FALSE(data.contains("requestheader-uid-headers"));
}

}  // namespace
}  // namespace capstan::aggregator
