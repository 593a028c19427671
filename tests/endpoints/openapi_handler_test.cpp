// /openapi/v2 and /openapi/v3 over HTTP: negotiation, ETag and 304, the v3 hash contract, the
// protobuf form of v2.
#include "endpoints/openapi_handler.h"

#include <gtest/gtest.h>

#include <map>

#include "apimachinery/protobuf_wire.h"
#include "endpoints/openapi_test_util.h"
#include "fakes/fake_response_writer.h"

namespace capstan::endpoints {
namespace {

namespace json = boost::json;
namespace pb = apimachinery::protobuf;
using testing::BuiltinSchemas;
using testing::FakeResponseWriter;

class OpenApiHandlerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::InstallCoreSubset(apis_, BuiltinSchemas().get());
    handler_ = std::make_unique<OpenApiHandler>(apis_, BuiltinSchemas().get(), "v1.32.0+test");
  }

  struct Answer {
    int status;
    http::Headers headers;
    std::string body;
  };
  Answer Get(const std::string& target, std::vector<std::pair<std::string, std::string>> headers = {},
             const std::string& method = "GET", bool chain_cache_control = false) {
    FakeResponseWriter w;
    // What the handler chain's cache-control filter puts on every response.
    if (chain_cache_control) w.extra_headers().Set("Cache-Control", "no-cache, private");
    auto ctx = testing::MakeContext(method, target, w);
    for (auto& [k, v] : headers) ctx->request.headers.Add(k, v);
    if (ctx->request.path.rfind("/openapi/v2", 0) == 0) {
      SyncWait(handler_->HandleV2(*ctx));
    } else {
      SyncWait(handler_->HandleV3(*ctx));
    }
    return {w.status(), w.headers, w.body};
  }

  ApiRegistry apis_;
  std::unique_ptr<OpenApiHandler> handler_;
};

TEST_F(OpenApiHandlerTest, V2JsonWithEtagAndNotModified) {
  Answer a = Get("/openapi/v2");
  ASSERT_EQ(a.status, 200);
  EXPECT_EQ(a.headers.Get("Content-Type"), "application/json");
  EXPECT_EQ(a.headers.Get("Vary"), "Accept");
  std::string etag(a.headers.Get("Etag"));
  ASSERT_EQ(etag.size(), 130u) << etag;
  EXPECT_EQ(etag.front(), '"');
  EXPECT_EQ(etag.substr(1, 128), OpenApiEtag(a.body));
  EXPECT_FALSE(a.headers.Get("Last-Modified").empty());
  EXPECT_EQ(testing::ParseObject(a.body).at("swagger"), "2.0");

  Answer same = Get("/openapi/v2", {{"If-None-Match", etag}});
  EXPECT_EQ(same.status, 304);
  EXPECT_TRUE(same.body.empty());
  EXPECT_EQ(same.headers.Get("Etag"), etag);
  EXPECT_FALSE(same.headers.Has("Content-Type"));
  EXPECT_EQ(Get("/openapi/v2", {{"If-None-Match", "W/" + etag}}).status, 304);
  EXPECT_EQ(Get("/openapi/v2", {{"If-None-Match", "\"other\", " + etag}}).status, 304);
  EXPECT_EQ(Get("/openapi/v2", {{"If-None-Match", "*"}}).status, 304);
  EXPECT_EQ(Get("/openapi/v2", {{"If-None-Match", "\"other\""}}).status, 200);
  EXPECT_EQ(Get("/openapi/v2", {{"If-None-Match", etag.substr(1, 128)}}).status, 200) << "an unquoted tag is no tag";
  EXPECT_EQ(Get("/openapi/v2", {{"If-Modified-Since", std::string(a.headers.Get("Last-Modified"))}}).status, 304);
  EXPECT_EQ(Get("/openapi/v2", {{"If-Modified-Since", "Mon, 02 Jan 2006 15:04:05 GMT"}}).status, 200);
  EXPECT_EQ(Get("/openapi/v2", {{"If-Modified-Since", "Mon, 02 Jan 6 15:04:05 GMT"}}).status, 200) << "found by fuzzing";
  EXPECT_EQ(Get("/openapi/v2", {{"If-Modified-Since", "yesterday"}}).status, 200);

  // A changed API changes the document and its tag.
  testing::InstallStub<testing::FullStub>(
      apis_, testing::Info("", "v1", "secrets", "Secret", true, "io.k8s.api.core.v1.Secret"), BuiltinSchemas().get());
  Answer changed = Get("/openapi/v2", {{"If-None-Match", etag}});
  EXPECT_EQ(changed.status, 200);
  EXPECT_NE(changed.headers.Get("Etag"), etag);
  EXPECT_NE(changed.body.find("/api/v1/namespaces/{namespace}/secrets/{name}"), std::string::npos);
}

TEST_F(OpenApiHandlerTest, Negotiation) {
  EXPECT_EQ(Get("/openapi/v2", {{"Accept", "application/json"}}).status, 200);
  EXPECT_EQ(Get("/openapi/v2", {{"Accept", "*/*"}}).headers.Get("Content-Type"), "application/json");
  EXPECT_EQ(Get("/openapi/v2", {{"Accept", "application/*"}}).headers.Get("Content-Type"), "application/json");
  Answer bad = Get("/openapi/v2", {{"Accept", "text/html"}});
  EXPECT_EQ(bad.status, 406);
  EXPECT_TRUE(bad.body.empty());
  EXPECT_EQ(bad.headers.Get("Vary"), "Accept");
  // Preference by q: protobuf preferred over JSON.
  Answer q = Get("/openapi/v2", {{"Accept", "application/json;q=0.5, application/com.github.proto-openapi.spec.v2.v1.0+protobuf"}});
  EXPECT_EQ(q.headers.Get("Content-Type"), "application/com.github.proto-openapi.spec.v2.v1.0+protobuf");

  auto clauses = ParseAcceptClauses("*/*;q=0.8, application/json, text/*, application/yaml;q=0.9");
  ASSERT_EQ(clauses.size(), 4u);
  EXPECT_EQ(clauses[0].subtype, "json");
  EXPECT_EQ(clauses[1].type, "text");
  EXPECT_EQ(clauses[2].subtype, "yaml");
  EXPECT_EQ(clauses[3].type, "*");
  EXPECT_TRUE(ParseAcceptClauses("a/b/c, nonsense").empty());
}

// Length-delimited fields of one message, by number (repeated ones in order).
std::multimap<int, std::string_view> Fields(std::string_view msg) {
  std::multimap<int, std::string_view> out;
  pb::WireReader r(msg);
  while (!r.done()) {
    int32_t field;
    pb::WireType wt;
    if (!r.ReadKey(field, wt)) break;
    if (wt == pb::WireType::kLengthDelimited) {
      std::string_view v;
      if (!r.ReadLengthDelimited(v)) break;
      out.emplace(field, v);
    } else if (!r.SkipValue(wt)) {
      break;
    }
  }
  return out;
}

std::string_view Field(std::string_view msg, int field) {
  auto f = Fields(msg);
  auto it = f.find(field);
  return it == f.end() ? std::string_view() : it->second;
}

TEST_F(OpenApiHandlerTest, V2ProtobufIsGnosticsDocument) {
  Answer json_answer = Get("/openapi/v2");
  Answer a = Get("/openapi/v2", {{"Accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"}});
  ASSERT_EQ(a.status, 200);
  EXPECT_EQ(a.headers.Get("Content-Type"), "application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
  EXPECT_EQ(a.headers.Get("Etag"), json_answer.headers.Get("Etag")) << "kube reuses the JSON tag (Vary: Accept)";
  std::string_view doc = a.body;
  EXPECT_EQ(Field(doc, 1), "2.0");
  EXPECT_EQ(Field(Field(doc, 2), 1), "Kubernetes");
  EXPECT_EQ(Field(Field(doc, 2), 2), "v1.32.0+test");

  // paths: NamedPathItem{name, PathItem{patch = 8: Operation{operation_id = 5, vendor_extension = 13}}}
  std::string_view item;
  for (auto [n, named] : Fields(Field(doc, 8))) {
    if (n == 2 && Field(named, 1) == "/api/v1/namespaces/{namespace}/configmaps/{name}") item = Field(named, 2);
  }
  ASSERT_FALSE(item.empty());
  std::string_view patch = Field(item, 8);
  EXPECT_EQ(Field(patch, 5), "patchCoreV1NamespacedConfigMap");
  bool gvk = false;
  for (auto [n, ext] : Fields(patch)) {
    if (n != 13 || Field(ext, 1) != "x-kubernetes-group-version-kind") continue;
    std::string yaml(Field(Field(ext, 2), 2));
    json::value v = json::parse(yaml);
    EXPECT_EQ(v.at("kind"), "ConfigMap");
    gvk = true;
  }
  EXPECT_TRUE(gvk);
  // A shared parameter is a JsonReference (ParametersItem.json_reference = 2).
  bool ref = false;
  for (auto [n, p] : Fields(patch)) {
    if (n == 8 && Fields(p).count(2)) ref |= Field(Field(p, 2), 1).starts_with("#/parameters/");
  }
  EXPECT_TRUE(ref);
  // definitions: NamedSchema{name, Schema{type = 22: TypeItem{"object"}, properties = 25}}
  std::string_view cm;
  for (auto [n, named] : Fields(Field(doc, 9))) {
    if (Field(named, 1) == "io.k8s.api.core.v1.ConfigMap") cm = Field(named, 2);
  }
  ASSERT_FALSE(cm.empty());
  EXPECT_EQ(Field(Field(cm, 22), 1), "object");
  EXPECT_EQ(Fields(Field(cm, 25)).count(1), 6u) << "apiVersion, binaryData, data, immutable, kind, metadata";
  // security definitions: NamedSecurityDefinitionsItem{BearerToken, {api_key_security = 2}}
  std::string_view sec = Field(Field(Field(doc, 13), 1), 2);
  EXPECT_EQ(Field(Field(sec, 2), 3), "header");

  Answer nm = Get("/openapi/v2", {{"Accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"},
                                  {"If-None-Match", std::string(a.headers.Get("Etag"))}});
  EXPECT_EQ(nm.status, 304);
}

TEST_F(OpenApiHandlerTest, V3IndexAndHashedDocuments) {
  Answer idx = Get("/openapi/v3");
  ASSERT_EQ(idx.status, 200);
  EXPECT_EQ(idx.headers.Get("Content-Type"), "application/json");
  json::object index = testing::ParseObject(idx.body);
  std::string url(index.at("paths").at("api/v1").at("serverRelativeURL").as_string());
  ASSERT_EQ(url.rfind("/openapi/v3/api/v1?hash=", 0), 0u) << url;
  std::string hash = url.substr(url.find('=') + 1);

  Answer doc = Get(url, {}, "GET", /*chain_cache_control=*/true);
  ASSERT_EQ(doc.status, 200);
  EXPECT_EQ(doc.headers.GetAll("Cache-Control").size(), 1u) << "the handler replaces the chain's no-cache";
  EXPECT_EQ(doc.headers.Get("Content-Type"), "application/json");
  EXPECT_EQ(doc.headers.Get("Cache-Control"), "public, immutable");
  EXPECT_FALSE(doc.headers.Get("Expires").empty());
  EXPECT_EQ(doc.headers.Get("Etag"), "\"" + hash + "\"");
  EXPECT_EQ(OpenApiEtag(doc.body), hash);
  EXPECT_EQ(testing::ParseObject(doc.body).at("openapi"), "3.0.0");

  Answer plain = Get("/openapi/v3/api/v1");
  EXPECT_EQ(plain.status, 200);
  EXPECT_FALSE(plain.headers.Has("Cache-Control"));
  EXPECT_EQ(plain.body, doc.body);

  Answer stale = Get("/openapi/v3/api/v1?hash=0123");
  EXPECT_EQ(stale.status, 301);
  EXPECT_EQ(stale.headers.Get("Location"), url);
  EXPECT_TRUE(stale.body.empty());

  EXPECT_EQ(Get(url, {{"If-None-Match", "\"" + hash + "\""}}).status, 304);
  EXPECT_EQ(Get("/openapi/v3/apis/coordination.k8s.io/v1").status, 200);
  Answer missing = Get("/openapi/v3/apis/apps/v1");
  EXPECT_EQ(missing.status, 404);
  EXPECT_TRUE(missing.body.empty());
  EXPECT_EQ(Get("/openapi/v3/").status, 404);
  EXPECT_EQ(Get("/openapi/v3/api/v1", {{"Accept", "application/com.github.proto-openapi.spec.v3@v1.0+protobuf"}}).status,
            406);
  EXPECT_EQ(Get("/openapi/v3/api/v1", {{"Accept", "application/com.github.proto-openapi.spec.v3@v1.0+protobuf, */*"}})
                .headers.Get("Content-Type"),
            "application/json");
}

TEST(OpenApiHttpTest, IfNoneMatchAndDates) {
  EXPECT_TRUE(IfNoneMatchMatches("\"A\"", "A"));
  EXPECT_TRUE(IfNoneMatchMatches(" W/\"A\" ", "A"));
  EXPECT_TRUE(IfNoneMatchMatches("\"B\",\"A\"", "A"));
  EXPECT_FALSE(IfNoneMatchMatches("\"B\"", "A"));
  EXPECT_FALSE(IfNoneMatchMatches("", "A"));
  EXPECT_FALSE(IfNoneMatchMatches("\"", "A"));
  EXPECT_EQ(HttpTime(std::chrono::system_clock::from_time_t(1136214245)), "Mon, 02 Jan 2006 15:04:05 GMT");
}

}  // namespace
}  // namespace capstan::endpoints
