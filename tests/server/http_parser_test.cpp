#include "server/http/http_parser.h"

#include <gtest/gtest.h>

namespace capstan::http {
namespace {

using R = RequestParser::Result;

R FeedAll(RequestParser& p, std::string_view data, size_t* used = nullptr) {
  size_t consumed = 0;
  R r = p.Feed(data, &consumed);
  if (used) *used = consumed;
  return r;
}

TEST(HttpParserTest, ParsesContentLengthBodyAndPath) {
  RequestParser p;
  std::string req =
      "POST /api/v1/namespaces/a%2Fb/configmaps?dryRun=All HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello";
  ASSERT_EQ(FeedAll(p, req), R::kDone);
  HttpRequest r = p.TakeRequest();
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.path, "/api/v1/namespaces/a/b/configmaps");
  EXPECT_EQ(r.raw_path, "/api/v1/namespaces/a%2Fb/configmaps");
  EXPECT_EQ(r.query.Get("dryRun"), "All");
  EXPECT_EQ(r.body, "hello");
  EXPECT_TRUE(r.keep_alive);
  EXPECT_EQ(r.headers.Get("host"), "x");
}

TEST(HttpParserTest, ByteAtATimeGivesTheSameResult) {
  RequestParser p;
  std::string req = "PUT /x HTTP/1.1\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc";
  R r = R::kNeedMore;
  for (size_t i = 0; i < req.size(); ++i) {
    size_t used = 0;
    r = p.Feed(std::string_view(req).substr(i, 1), &used);
    ASSERT_EQ(used, 1u);
    if (i + 1 < req.size()) ASSERT_EQ(r, R::kNeedMore) << i;
  }
  ASSERT_EQ(r, R::kDone);
  HttpRequest out = p.TakeRequest();
  EXPECT_EQ(out.body, "abc");
  EXPECT_FALSE(out.keep_alive);
}

TEST(HttpParserTest, ChunkedBodyWithExtensionsAndTrailers) {
  RequestParser p;
  std::string req =
      "POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\nWiki\r\n5\r\npedia\r\n0\r\nTrailer: x\r\n\r\n";
  ASSERT_EQ(FeedAll(p, req), R::kDone);
  EXPECT_EQ(p.TakeRequest().body, "Wikipedia");
}

TEST(HttpParserTest, PipelinedRequestsLeaveTheRestUnconsumed) {
  RequestParser p;
  std::string two = "GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n";
  size_t used = 0;
  ASSERT_EQ(FeedAll(p, two, &used), R::kDone);
  EXPECT_EQ(p.TakeRequest().path, "/a");
  ASSERT_EQ(FeedAll(p, std::string_view(two).substr(used)), R::kDone);
  EXPECT_EQ(p.TakeRequest().path, "/b");
}

TEST(HttpParserTest, OversizedBodyIs413) {
  ParserLimits lim;
  lim.max_body_bytes = 10;
  RequestParser p(lim);
  EXPECT_EQ(FeedAll(p, "POST /x HTTP/1.1\r\nContent-Length: 11\r\n\r\n"), R::kError);
  EXPECT_EQ(p.error_status(), 413);
  RequestParser c(lim);
  EXPECT_EQ(FeedAll(c, "POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nb\r\n"), R::kError);
  EXPECT_EQ(c.error_status(), 413);
}

TEST(HttpParserTest, OversizedHeadIs431) {
  ParserLimits lim;
  lim.max_header_bytes = 64;
  RequestParser p(lim);
  std::string req = "GET /x HTTP/1.1\r\nX-Big: " + std::string(100, 'a') + "\r\n\r\n";
  EXPECT_EQ(FeedAll(p, req), R::kError);
  EXPECT_EQ(p.error_status(), 431);
}

TEST(HttpParserTest, MalformedInputIs400Or505) {
  const std::pair<const char*, int> cases[] = {
      {"GARBAGE\r\n\r\n", 400},
      {"GET /x HTTP/2.0\r\n\r\n", 505},
      {"GET /x FOO/1.1\r\n\r\n", 400},
      {"GET x HTTP/1.1\r\n\r\n", 400},
      {"GET /x HTTP/1.1\r\nNoColon\r\n\r\n", 400},
      {"GET /x HTTP/1.1\r\nA: b\r\n folded\r\n\r\n", 400},
      {"GET /%zz HTTP/1.1\r\n\r\n", 400},
      {"POST /x HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400},
      {"POST /x HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400},
      {"POST /x HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501},
      {"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400},
      {"G\x01T /x HTTP/1.1\r\n\r\n", 400},
  };
  for (const auto& [req, code] : cases) {
    RequestParser p;
    EXPECT_EQ(FeedAll(p, req), R::kError) << req;
    EXPECT_EQ(p.error_status(), code) << req;
  }
}

TEST(HttpParserTest, ExpectContinueIsReported) {
  RequestParser p;
  ASSERT_EQ(FeedAll(p, "POST /x HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n"), R::kNeedMore);
  EXPECT_TRUE(p.WantsContinue());
  ASSERT_EQ(FeedAll(p, "ok"), R::kDone);
}

TEST(HttpParserTest, Http10DefaultsToClose) {
  RequestParser p;
  ASSERT_EQ(FeedAll(p, "GET /x HTTP/1.0\r\n\r\n"), R::kDone);
  EXPECT_FALSE(p.TakeRequest().keep_alive);
}

}  // namespace
}  // namespace capstan::http
