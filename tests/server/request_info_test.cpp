#include "server/http/request_info.h"

#include <gtest/gtest.h>

namespace capstan::http {
namespace {

struct Case {
  const char* method;
  const char* url;
  const char* verb;
  const char* prefix;
  const char* group;
  const char* version;
  const char* ns;
  const char* resource;
  const char* subresource;
  const char* name;
  std::vector<std::string> parts;
};

RequestInfo Resolve(const std::string& method, const std::string& url) {
  std::string path = url, raw_query;
  if (auto q = url.find('?'); q != std::string::npos) {
    path = url.substr(0, q);
    raw_query = url.substr(q + 1);
  }
  RequestInfo info;
  EXPECT_TRUE(ResolveRequestInfo(method, path, Query::Parse(raw_query), info).ok()) << url;
  return info;
}

// The cases of kube's TestGetAPIRequestInfo, one for one.
TEST(RequestInfoTest, ResolvesResourceRequestsAsKubeDoes) {
  const std::vector<Case> cases = {
      {"GET", "/api/v1/namespaces", "list", "api", "", "v1", "", "namespaces", "", "", {"namespaces"}},
      {"GET", "/api/v1/namespaces/other", "get", "api", "", "v1", "other", "namespaces", "", "other", {"namespaces", "other"}},
      {"GET", "/api/v1/namespaces/other/pods", "list", "api", "", "v1", "other", "pods", "", "", {"pods"}},
      {"GET", "/api/v1/namespaces/other/pods/foo", "get", "api", "", "v1", "other", "pods", "", "foo", {"pods", "foo"}},
      {"HEAD", "/api/v1/namespaces/other/pods/foo", "get", "api", "", "v1", "other", "pods", "", "foo", {"pods", "foo"}},
      {"GET", "/api/v1/pods", "list", "api", "", "v1", "", "pods", "", "", {"pods"}},
      {"HEAD", "/api/v1/pods", "list", "api", "", "v1", "", "pods", "", "", {"pods"}},
      {"GET", "/api/v1/proxy/namespaces/other/pods/foo", "proxy", "api", "", "v1", "other", "pods", "", "foo", {"pods", "foo"}},
      {"GET", "/api/v1/proxy/namespaces/other/pods/foo/subpath/not/a/subresource", "proxy", "api", "", "v1", "other",
       "pods", "", "foo", {"pods", "foo", "subpath", "not", "a", "subresource"}},
      {"GET", "/api/v1/watch/pods", "watch", "api", "", "v1", "", "pods", "", "", {"pods"}},
      {"GET", "/api/v1/pods?watch=true", "watch", "api", "", "v1", "", "pods", "", "", {"pods"}},
      {"GET", "/api/v1/pods?watch=false", "list", "api", "", "v1", "", "pods", "", "", {"pods"}},
      {"GET", "/api/v1/watch/namespaces/other/pods", "watch", "api", "", "v1", "other", "pods", "", "", {"pods"}},
      {"GET", "/api/v1/namespaces/other/pods?watch=1", "watch", "api", "", "v1", "other", "pods", "", "", {"pods"}},
      {"GET", "/api/v1/namespaces/other/pods?watch=0", "list", "api", "", "v1", "other", "pods", "", "", {"pods"}},
      {"GET", "/api/v1/namespaces/other/pods/foo/status", "get", "api", "", "v1", "other", "pods", "status", "foo",
       {"pods", "foo", "status"}},
      {"GET", "/api/v1/namespaces/other/pods/foo/proxy/subpath", "get", "api", "", "v1", "other", "pods", "proxy", "foo",
       {"pods", "foo", "proxy", "subpath"}},
      {"PUT", "/api/v1/namespaces/other/finalize", "update", "api", "", "v1", "other", "namespaces", "finalize", "other",
       {"namespaces", "other", "finalize"}},
      {"PUT", "/api/v1/namespaces/other/status", "update", "api", "", "v1", "other", "namespaces", "status", "other",
       {"namespaces", "other", "status"}},
      {"PATCH", "/api/v1/namespaces/other/pods/foo", "patch", "api", "", "v1", "other", "pods", "", "foo", {"pods", "foo"}},
      {"DELETE", "/api/v1/namespaces/other/pods/foo", "delete", "api", "", "v1", "other", "pods", "", "foo", {"pods", "foo"}},
      {"POST", "/api/v1/namespaces/other/pods", "create", "api", "", "v1", "other", "pods", "", "", {"pods"}},
      {"DELETE", "/api/v1/nodes", "deletecollection", "api", "", "v1", "", "nodes", "", "", {"nodes"}},
      {"DELETE", "/api/v1/namespaces", "deletecollection", "api", "", "v1", "", "namespaces", "", "", {"namespaces"}},
      {"DELETE", "/api/v1/namespaces/other/pods", "deletecollection", "api", "", "v1", "other", "pods", "", "", {"pods"}},
      {"DELETE", "/apis/extensions/v1/namespaces/other/pods", "deletecollection", "apis", "extensions", "v1", "other",
       "pods", "", "", {"pods"}},
      {"POST", "/apis/extensions/v1/namespaces/other/pods", "create", "apis", "extensions", "v1", "other", "pods", "", "",
       {"pods"}},
      {"POST", "/apis/extensions/v1beta3/namespaces/other/pods", "create", "apis", "extensions", "v1beta3", "other", "pods",
       "", "", {"pods"}},
  };
  for (const auto& c : cases) {
    RequestInfo info = Resolve(c.method, c.url);
    SCOPED_TRACE(std::string(c.method) + " " + c.url);
    EXPECT_TRUE(info.is_resource_request);
    EXPECT_EQ(info.verb, c.verb);
    EXPECT_EQ(info.api_prefix, c.prefix);
    EXPECT_EQ(info.api_group, c.group);
    EXPECT_EQ(info.api_version, c.version);
    EXPECT_EQ(info.namespace_, c.ns);
    EXPECT_EQ(info.resource, c.resource);
    EXPECT_EQ(info.subresource, c.subresource);
    EXPECT_EQ(info.name, c.name);
    EXPECT_EQ(info.parts, c.parts);
  }
}

TEST(RequestInfoTest, NonResourcePathsKeepLowercasedMethod) {
  for (const char* url : {"/", "/api/version/", "/apis/group/version/", "/badprefix/version/resource",
                          "/apis/version/resource", "/healthz", "/api", "/apis", "/api/v1", "/apis/apps/v1"}) {
    RequestInfo info = Resolve("GET", url);
    EXPECT_FALSE(info.is_resource_request) << url;
    EXPECT_EQ(info.verb, "get");
    EXPECT_EQ(info.path, std::string(url).substr(0, std::string(url).find('?')));
  }
}

TEST(RequestInfoTest, SpecialVerbWithoutResourceIsAnError) {
  RequestInfo info;
  Status st = ResolveRequestInfo("GET", "/api/v1/watch", Query(), info);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("unable to determine kind and namespace from url"), std::string::npos);
}

TEST(RequestInfoTest, FieldSelectorOnNameMakesItANamedRequest) {
  RequestInfo info = Resolve("GET", "/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Dfoo&watch=true");
  EXPECT_EQ(info.verb, "watch");
  EXPECT_EQ(info.name, "foo");
  EXPECT_EQ(info.field_selector, "metadata.name=foo");
  RequestInfo info2 = Resolve("GET", "/api/v1/configmaps?fieldSelector=metadata.name%3D..&labelSelector=a%3Db");
  EXPECT_EQ(info2.name, "");
  EXPECT_EQ(info2.label_selector, "a=b");
}

TEST(RequestInfoTest, SelectorsNotRecordedForVerbViaPath) {
  RequestInfo info = Resolve("GET", "/api/v1/watch/pods?labelSelector=a%3Db");
  EXPECT_EQ(info.verb, "watch");
  EXPECT_EQ(info.label_selector, "");
}

TEST(RequestInfoTest, LongRunningRequests) {
  EXPECT_TRUE(IsLongRunning(Resolve("GET", "/api/v1/pods?watch=1")));
  EXPECT_TRUE(IsLongRunning(Resolve("GET", "/api/v1/namespaces/a/pods/p/log")));
  EXPECT_TRUE(IsLongRunning(Resolve("POST", "/api/v1/namespaces/a/pods/p/exec")));
  EXPECT_FALSE(IsLongRunning(Resolve("GET", "/api/v1/pods")));
  EXPECT_FALSE(IsLongRunning(Resolve("GET", "/healthz")));
  // Resolution decides it once for every filter.
  EXPECT_TRUE(Resolve("GET", "/api/v1/pods?watch=1").long_running);
  EXPECT_TRUE(Resolve("GET", "/api/v1/namespaces/a/pods/p/log").long_running);
  EXPECT_FALSE(Resolve("GET", "/api/v1/pods").long_running);
}

}  // namespace
}  // namespace capstan::http
