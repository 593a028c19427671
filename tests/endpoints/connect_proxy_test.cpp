#include "endpoints/connect_proxy.h"

#include <gtest/gtest.h>

#include "apimachinery/errors.h"
#include "server/http/upstream.h"
#include "util/strings.h"

namespace capstan::endpoints {
namespace {

const std::string kPrefix = "/api/v1/nodes/n1/proxy";

TEST(ConnectProxyTest, SameHostRedirectsAreRewrittenUnderTheProxyPath) {
  // A path on the backend, relative to its root.
  EXPECT_EQ(RewriteProxyRedirect("/stats/summary", "10.0.0.1:10250", "apiserver:6443", kPrefix),
            "/api/v1/nodes/n1/proxy/stats/summary");
  EXPECT_EQ(RewriteProxyRedirect("/a/?x=1", "10.0.0.1:10250", "apiserver:6443", kPrefix), "/api/v1/nodes/n1/proxy/a/?x=1");
  // The backend's own absolute URL: scheme and host dropped.
  EXPECT_EQ(RewriteProxyRedirect("https://10.0.0.1:10250/logs/", "10.0.0.1:10250", "apiserver:6443", kPrefix),
            "/api/v1/nodes/n1/proxy/logs/");
  // Already under the proxy path.
  EXPECT_EQ(RewriteProxyRedirect(kPrefix + "/x", "10.0.0.1:10250", "apiserver:6443", kPrefix), kPrefix + "/x");
  // The request's own host keeps its scheme and host.
  EXPECT_EQ(RewriteProxyRedirect("https://apiserver:6443/x", "10.0.0.1:10250", "apiserver:6443", kPrefix),
            "https://apiserver:6443/api/v1/nodes/n1/proxy/x");
}

TEST(ConnectProxyTest, OtherHostsAndRelativePathsAreLeftAlone) {
  EXPECT_EQ(RewriteProxyRedirect("https://example.com/login", "10.0.0.1:10250", "apiserver:6443", kPrefix),
            "https://example.com/login");
  EXPECT_EQ(RewriteProxyRedirect("next/page", "10.0.0.1:10250", "apiserver:6443", kPrefix), "next/page");
}

TEST(ConnectProxyTest, UpstreamErrorsBecomeKubesGenericServerResponses) {
  Status nf = apimachinery::NewGenericServerResponse(404, {"", "pods/log"}, "web", "container not found");
  EXPECT_EQ(nf.code(), 404);
  EXPECT_EQ(nf.reason(), "NotFound");
  EXPECT_EQ(nf.message(), "the server could not find the requested resource ( pods/log web)");
  EXPECT_EQ(nf.details().kind, "pods/log");
  EXPECT_EQ(nf.details().name, "web");
  Status forbidden = apimachinery::NewGenericServerResponse(403, {"", "pods/log"}, "web", "no access");
  EXPECT_EQ(forbidden.message(), "no access ( pods/log web)");
  Status bad_gateway = apimachinery::NewGenericServerResponse(502, {"", "pods/log"}, "web", "down");
  EXPECT_EQ(bad_gateway.reason(), "InternalError");
  EXPECT_EQ(bad_gateway.message(), "an error on the server (\"down\") has prevented the request from succeeding ( pods/log web)");
  Status teapot = apimachinery::NewGenericServerResponse(418, {}, "", "");
  EXPECT_EQ(teapot.reason(), "");
  EXPECT_EQ(teapot.message(), "the server responded with the status code 418 but did not return more information");
}

TEST(ConnectProxyTest, PathsAreEscapedAsGoEscapesThem) {
  EXPECT_EQ(EscapeUrlPath("/stats/summary"), "/stats/summary");
  EXPECT_EQ(EscapeUrlPath("/a b/c?d#e%"), "/a%20b/c%3Fd%23e%25");
  EXPECT_EQ(EscapeUrlPath("/x:y@z=1;2,3+$&~"), "/x:y@z=1;2,3+$&~");
}

TEST(ConnectProxyTest, ForwardedForAppendsTheClientAddress) {
  EXPECT_EQ(http::ForwardedFor("", "10.0.0.7:51234"), "10.0.0.7");
  EXPECT_EQ(http::ForwardedFor("1.2.3.4", "10.0.0.7:51234"), "1.2.3.4, 10.0.0.7");
  EXPECT_EQ(http::ForwardedFor("", "[::1]:443"), "::1");
  EXPECT_EQ(http::ForwardedFor("", "fe80::1"), "fe80::1");
  EXPECT_EQ(http::ForwardedFor("x", ""), "x");
}

}  // namespace
}  // namespace capstan::endpoints
