#include "endpoints/proxy_html.h"

#include <gtest/gtest.h>

#include "endpoints/connect_proxy.h"

namespace capstan::endpoints {
namespace {

const std::string kPrefix = "/api/v1/namespaces/default/services/web/proxy";

std::string Rewrite(std::string_view html) {
  return RewriteHtmlLinks(html, [](std::string_view url) {
    return RewriteProxyRedirect(url, "10.0.0.7:8080", "apiserver:6443", kPrefix);
  });
}

TEST(ProxyHtmlTest, AbsolutePathsAndTheBackendsOwnUrlsGoUnderTheProxyPath) {
  EXPECT_EQ(Rewrite(R"(<a href="/docs/">Docs</a>)"), R"(<a href="/api/v1/namespaces/default/services/web/proxy/docs/">Docs</a>)");
  EXPECT_EQ(Rewrite(R"(<IMG SRC='/logo.png' alt=Logo>)"),
            R"(<img src="/api/v1/namespaces/default/services/web/proxy/logo.png" alt=Logo>)");
  EXPECT_EQ(Rewrite(R"(<script src=http://10.0.0.7:8080/app.js></script>)"),
            R"(<script src="/api/v1/namespaces/default/services/web/proxy/app.js"></script>)");
  EXPECT_EQ(Rewrite(R"(<link rel="stylesheet" href="/s.css"/>)"),
            R"(<link rel="stylesheet" href="/api/v1/namespaces/default/services/web/proxy/s.css"/>)");
  EXPECT_EQ(Rewrite(R"(<form method=post action="/login?next=/a&amp;b=1">)"),
            R"(<form method=post action="/api/v1/namespaces/default/services/web/proxy/login?next=/a&amp;b=1">)");
}

TEST(ProxyHtmlTest, OtherHostsRelativeLinksAndOtherAttributesStay) {
  for (const char* same : {R"(<a href="https://example.com/x">x</a>)", R"(<a href="//cdn.example.com/x.js">x</a>)",
                           R"(<a href="page.html">p</a>)", R"(<a href="#top">t</a>)", R"(<a href="mailto:a@b">m</a>)",
                           R"(<div data-href="/x" title="/y">z</div>)", R"(<a href="/x&copy;">z</a>)",
                           R"(<a name=x>no url</a>)"}) {
    EXPECT_EQ(Rewrite(same), same);
  }
  // Already under the proxy path.
  std::string done = "<a href=\"" + kPrefix + "/x\">x</a>";
  EXPECT_EQ(Rewrite(done), done);
}

TEST(ProxyHtmlTest, CommentsScriptsAndRawTextAreNotTags) {
  const std::string page =
      "<!DOCTYPE html><!-- <a href=\"/c\"> --><script>var s = '<a href=\"/s\">';</script>"
      "<style>a[href=\"/q\"] {}</style><textarea><img src=\"/t\"></textarea><p>1 < 2 & 3 > 2</p>";
  EXPECT_EQ(Rewrite(page), page);
  // After the raw text ends, tags are read again.
  EXPECT_EQ(Rewrite("<title>x</TITLE><a href=/y>"), "<title>x</TITLE><a href=\"" + kPrefix + "/y\">");
}

TEST(ProxyHtmlTest, MalformedMarkupIsCopied) {
  for (const char* bad : {"<a href=\"/x", "<a href=", "<", "<a", "</", "<!--", "<a href='/x' ", "<<a>>", "<1a href=/x>"}) {
    EXPECT_EQ(Rewrite(bad), bad) << bad;
  }
  // Values are escaped as Go's html.EscapeString when written again.
  EXPECT_EQ(Rewrite(R"(<a href="/a?x=&quot;1&quot;&#39;">)"),
            "<a href=\"" + kPrefix + "/a?x=&#34;1&#34;&#39;\">");
}

TEST(ProxyHtmlTest, GzipAndDeflateBodiesRoundTrip) {
  const std::string page(100000, 'x');
  for (const char* enc : {"gzip", "deflate"}) {
    std::string packed = EncodeContent(page, enc);
    EXPECT_LT(packed.size(), page.size()) << enc;
    auto back = DecodeContent(packed, enc, 1 << 20);
    ASSERT_TRUE(back.ok()) << enc << back.status().message();
    EXPECT_EQ(*back, page);
    EXPECT_FALSE(DecodeContent(packed, enc, 1000).ok()) << enc;  // over the limit
  }
  EXPECT_FALSE(DecodeContent("not gzip", "gzip", 1000).ok());
}

}  // namespace
}  // namespace capstan::endpoints
