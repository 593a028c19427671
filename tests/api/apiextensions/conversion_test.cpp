// CRD conversion (strategy Webhook) against an in-process fake HTTP client that plays the webhook,
// defaulting on read from storage, names refused because a built-in resource of the group has them,
// and the API approval rule of the protected groups.
#include <gtest/gtest.h>

#include <functional>
#include <mutex>

#include "api/apiextensions/conversion_webhook.h"
#include "api/apiextensions/crd_controller.h"
#include "api/apiextensions/crd_resource.h"
#include "api/apiextensions/crd_types.h"
#include "apimachinery/json_parse.h"
#include "apimachinery/object_meta.h"
#include "apps/api_test_env.h"
#include "endpoints/installer.h"

namespace capstan::api::apiextensions {
namespace {

namespace am = capstan::apimachinery;
namespace json = boost::json;
using testing::ApiTestEnv;
using testing::Parse;

// A CRD whose v1 (storage) has spec.name and v2 calls it spec.title.
const char* kBooks = R"({
  "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "books.library.example.com"},
  "spec": {
    "group": "library.example.com", "scope": "Namespaced",
    "names": {"plural": "books", "kind": "Book"},
    "conversion": {"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"],
                   "clientConfig": {"url": "https://127.0.0.1:8443/convert"}}},
    "versions": [
      {"name": "v1", "served": true, "storage": true,
       "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object", "properties": {
         "name": {"type": "string"}, "pages": {"type": "integer"}}}}}}},
      {"name": "v2", "served": true, "storage": false,
       "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object", "properties": {
         "title": {"type": "string"}, "pages": {"type": "integer"}}}}}}}]
  }
})";

// Converts like the e2e test's webhook: spec.name (v1) <-> spec.title (v2).
json::object Rename(json::object o, const std::string& desired) {
  if (auto* spec = o.if_contains("spec"); spec && spec->is_object()) {
    auto& s = spec->as_object();
    const char* from = desired == "library.example.com/v2" ? "name" : "title";
    const char* to = desired == "library.example.com/v2" ? "title" : "name";
    if (auto* v = s.if_contains(from)) {
      s[to] = *v;
      s.erase(from);
    }
  }
  o["apiVersion"] = desired;
  return o;
}

// The answer a correct webhook gives to `req`, with `edit` applied to each converted object.
http::ClientResponse Answer(const http::ClientRequest& req, const std::function<void(json::object&)>& edit = {}) {
  json::object review = json::parse(req.body).as_object();
  const json::object& request = review["request"].as_object();
  std::string desired(request.at("desiredAPIVersion").as_string());
  json::array out;
  for (const auto& o : request.at("objects").as_array()) {
    json::object c = Rename(o.as_object(), desired);
    if (edit) edit(c);
    out.push_back(std::move(c));
  }
  json::object resp{{"apiVersion", review["apiVersion"]},
                    {"kind", "ConversionReview"},
                    {"response", json::object{{"uid", request.at("uid")},
                                              {"convertedObjects", std::move(out)},
                                              {"result", json::object{{"status", "Success"}}}}}};
  http::ClientResponse r;
  r.status = 200;
  r.body = json::serialize(resp);
  return r;
}

class FakeHttp : public http::HttpClientFactory {
 public:
  using Fn = std::function<StatusOr<http::ClientResponse>(const http::ClientRequest&)>;
  class Client : public http::HttpClient {
   public:
    explicit Client(FakeHttp* f) : f_(f) {}
    Task<StatusOr<http::ClientResponse>> Do(http::ClientRequest req) override {
      Fn fn;
      {
        std::lock_guard lock(f_->mu);
        f_->requests.push_back(req);
        fn = f_->fn;
      }
      co_return fn(req);
    }

   private:
    FakeHttp* f_;
  };
  StatusOr<std::unique_ptr<http::HttpClient>> NewClient(const http::ClientTlsConfig& tls) override {
    std::lock_guard lock(mu);
    server_names.push_back(tls.server_name);
    return std::unique_ptr<http::HttpClient>(std::make_unique<Client>(this));
  }
  std::mutex mu;
  Fn fn = [](const http::ClientRequest& r) -> StatusOr<http::ClientResponse> { return Answer(r); };
  std::vector<http::ClientRequest> requests;
  std::vector<std::string> server_names;
};

class ConversionTest : public ::testing::Test {
 protected:
  ConversionTest()
      : env_([this](const registry::GroupDeps& d) {
          deps_ = d;
          return Install(d);
        }) {
    endpoints::InstallResources(apis_, env_.resources());
    CrdController::Options o;
    o.deps.deps = deps_;
    o.deps.webhook.http = &http_;
    o.deps.webhook.metrics = ConversionWebhookMetrics::Register(metrics_);
    controller_ = std::make_unique<CrdController>(apis_, nullptr, o);
  }
  void Settle() {
    for (int i = 0; i < 10; ++i) {
      auto wrote = controller_->ReconcileOnce();
      ASSERT_TRUE(wrote.ok()) << wrote.status().message();
      if (!*wrote) return;
    }
    FAIL() << "controller did not settle";
  }
  const endpoints::ResourceEntry* Books(const std::string& version) {
    snap_ = apis_.Snapshot();
    return snap_->FindResource("library.example.com", version, "books", "");
  }
  registry::Context Ns() {
    registry::Context c;
    c.namespace_ = "default";
    return c;
  }
  static Object Book(const std::string& version, const std::string& name, const std::string& spec) {
    return Parse(R"({"apiVersion":"library.example.com/)" + version + R"(","kind":"Book","metadata":{"name":")" + name +
                 R"(","namespace":"default"},"spec":)" + spec + "}");
  }
  StatusOr<Object> GetBook(const std::string& version, const std::string& name) {
    return SyncWait(Books(version)->getter->Get(Ns(), name, {}));
  }
  void SetFn(FakeHttp::Fn fn) {
    std::lock_guard lock(http_.mu);
    http_.fn = std::move(fn);
  }

  FakeHttp http_;
  MetricsRegistry metrics_;
  registry::GroupDeps deps_;
  ApiTestEnv env_;
  endpoints::ApiRegistry apis_;
  std::unique_ptr<CrdController> controller_;
  std::shared_ptr<const endpoints::ApiSnapshot> snap_;
};

TEST_F(ConversionTest, CreateThroughV2StoresV1AndReadsBothWays) {
  ASSERT_TRUE(env_.Create("customresourcedefinitions", Parse(kBooks)).ok());
  Settle();
  ASSERT_NE(Books("v2"), nullptr);
  auto created = SyncWait(Books("v2")->creater->Create(Ns(), Book("v2", "dune", R"({"title":"Dune","pages":412})"), {}));
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_EQ((*created)["apiVersion"].as_string(), "library.example.com/v2");
  EXPECT_EQ((*created)["spec"].at("title").as_string(), "Dune");
  EXPECT_FALSE((*created)["spec"].as_object().contains("name"));
  // Two reviews: the body to v1 for storage, the stored object back to v2 for the answer.
  {
    std::lock_guard lock(http_.mu);
    ASSERT_EQ(http_.requests.size(), 2u);
    const auto& req = http_.requests[0];
    EXPECT_EQ(req.method, "POST");
    EXPECT_EQ(req.url, "https://127.0.0.1:8443/convert?timeout=30s");
    EXPECT_EQ(req.timeout, std::chrono::milliseconds(30000));
    json::object review = json::parse(req.body).as_object();
    EXPECT_EQ(review["apiVersion"].as_string(), "apiextensions.k8s.io/v1");
    EXPECT_EQ(review["kind"].as_string(), "ConversionReview");
    EXPECT_EQ(review["request"].at("desiredAPIVersion").as_string(), "library.example.com/v1");
    EXPECT_EQ(review["request"].at("uid").as_string().size(), 36u);
    EXPECT_EQ(review["request"].at("objects").as_array().size(), 1u);
    EXPECT_EQ(http_.server_names, std::vector<std::string>{""});  // a URL: its own host is checked
  }
  auto v1 = GetBook("v1", "dune");
  ASSERT_TRUE(v1.ok());
  EXPECT_EQ((*v1)["apiVersion"].as_string(), "library.example.com/v1");
  EXPECT_EQ((*v1)["spec"].at("name").as_string(), "Dune");
  auto v2 = GetBook("v2", "dune");
  ASSERT_TRUE(v2.ok()) << v2.status().message();
  EXPECT_EQ((*v2)["spec"].at("title").as_string(), "Dune");
  EXPECT_EQ(am::GetUid(*v2), am::GetUid(*v1));
  // A list converts in one review.
  ASSERT_TRUE(SyncWait(Books("v1")->creater->Create(Ns(), Book("v1", "emma", R"({"name":"Emma"})"), {})).ok());
  size_t before = http_.requests.size();
  auto list = SyncWait(Books("v2")->lister->List(Ns(), {}));
  ASSERT_TRUE(list.ok()) << list.status().message();
  ASSERT_EQ(list->items.size(), 2u);
  EXPECT_EQ(http_.requests.size(), before + 1);
  for (const auto& item : list->items) {
    EXPECT_EQ(item.at("apiVersion").as_string(), "library.example.com/v2");
    EXPECT_TRUE(item.at("spec").as_object().contains("title"));
  }
  // An update through v2 applies to the converted object and is stored in v1.
  auto put = SyncWait(Books("v2")->updater->Update(
      Ns(), "dune",
      [](const Object* cur) -> Task<StatusOr<Object>> {
        Object o = *cur;
        o["spec"].as_object()["pages"] = 500;
        co_return o;
      },
      {}));
  ASSERT_TRUE(put.ok()) << put.status().message();
  EXPECT_EQ(put->object["spec"].at("title").as_string(), "Dune");
  v1 = GetBook("v1", "dune");
  ASSERT_TRUE(v1.ok());
  EXPECT_EQ((*v1)["spec"].at("pages").as_int64(), 500);
  EXPECT_EQ((*v1)["spec"].at("name").as_string(), "Dune");
}

TEST_F(ConversionTest, WebhookFailuresAreKubesMessages) {
  ASSERT_TRUE(env_.Create("customresourcedefinitions", Parse(kBooks)).ok());
  Settle();
  ASSERT_TRUE(SyncWait(Books("v1")->creater->Create(Ns(), Book("v1", "dune", R"({"name":"Dune"})"), {})).ok());
  const std::string head = "conversion webhook for library.example.com/v1, Kind=Book ";
  auto expect = [&](FakeHttp::Fn fn, const std::string& message) {
    SetFn(std::move(fn));
    auto r = GetBook("v2", "dune");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), 500);
    EXPECT_EQ(r.status().reason(), "");
    EXPECT_EQ(r.status().message(), message);
  };
  expect([](const http::ClientRequest&) -> StatusOr<http::ClientResponse> {
    return Status(503, "ServiceUnavailable",
                  "Post \"https://127.0.0.1:8443/convert?timeout=30s\": dial tcp 127.0.0.1:8443: connect: connection refused");
  }, head + "failed: Post \"https://127.0.0.1:8443/convert?timeout=30s\": dial tcp 127.0.0.1:8443: connect: connection refused");
  SetFn([](const http::ClientRequest& req) -> StatusOr<http::ClientResponse> {
    auto r = Answer(req);
    json::object o = json::parse(r.body).as_object();
    o["response"].as_object()["uid"] = "other";
    r.body = json::serialize(o);
    return r;
  });
  {  // the uid is random
    auto r = GetBook("v2", "dune");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message().rfind(head + "failed: expected response.uid=\"", 0), 0u) << r.status().message();
    EXPECT_NE(r.status().message().find("\", got \"other\""), std::string::npos);
  }
  expect([](const http::ClientRequest& req) -> StatusOr<http::ClientResponse> {
    auto r = Answer(req);
    json::object o = json::parse(r.body).as_object();
    o["response"].as_object()["convertedObjects"] = json::array();
    r.body = json::serialize(o);
    return r;
  }, head + "returned 0 objects, expected 1");
  expect([](const http::ClientRequest& req) -> StatusOr<http::ClientResponse> {
    return Answer(req, [](json::object& o) { o["metadata"].as_object()["name"] = "other"; });
  }, head + "returned invalid object: must have the same name: dune != other");
  expect([](const http::ClientRequest& req) -> StatusOr<http::ClientResponse> {
    return Answer(req, [](json::object& o) { o["apiVersion"] = "library.example.com/v3"; });
  }, head + "returned invalid object at index 0: invalid groupVersion (expected library.example.com/v2, received library.example.com/v3)");
  expect([](const http::ClientRequest& req) -> StatusOr<http::ClientResponse> {
    return Answer(req, [](json::object& o) { o["metadata"].as_object()["labels"] = json::object{{"a b", "x"}}; });
  }, head + "returned invalid metadata: metadata.labels: Invalid value: \"a b\": name part must consist of alphanumeric "
            "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
            "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
  expect([](const http::ClientRequest& req) -> StatusOr<http::ClientResponse> {
    json::object o{{"apiVersion", "apiextensions.k8s.io/v1"}, {"kind", "ConversionReview"},
                   {"response", json::object{{"uid", json::parse(req.body).at("request").at("uid")},
                                             {"result", json::object{{"status", "Failure"}, {"message", "no way"}}}}}};
    http::ClientResponse r;
    r.status = 200;
    r.body = json::serialize(o);
    return r;
  }, head + "failed: no way");
  expect([](const http::ClientRequest&) -> StatusOr<http::ClientResponse> {
    http::ClientResponse r;
    r.status = 200;
    r.body = R"({"apiVersion":"v1","kind":"Status"})";
    return r;
  }, head + "failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got /v1, Kind=Status");

  // Labels and annotations may change; other metadata is the stored object's.
  SetFn([](const http::ClientRequest& req) -> StatusOr<http::ClientResponse> {
    return Answer(req, [](json::object& o) {
      o["metadata"].as_object()["labels"] = json::object{{"converted", "yes"}};
      o["metadata"].as_object()["generation"] = 99;
    });
  });
  auto ok = GetBook("v2", "dune");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->at("metadata").at("labels").at("converted").as_string(), "yes");
  EXPECT_EQ(am::GetGeneration(*ok), 1);
  // The storage version needs no webhook.
  SetFn([](const http::ClientRequest&) -> StatusOr<http::ClientResponse> { return Status(503, "", "down"); });
  EXPECT_TRUE(GetBook("v1", "dune").ok());
  // A write through v2 fails the same way, and stores nothing.
  auto refused = SyncWait(Books("v2")->creater->Create(Ns(), Book("v2", "emma", R"({"title":"Emma"})"), {}));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), 500);
  EXPECT_EQ(refused.status().message(), "conversion webhook for library.example.com/v2, Kind=Book failed: down");
  EXPECT_EQ(GetBook("v1", "emma").status().code(), 404);

  // kube's metrics, by result and failure type.
  std::string m = metrics_.Expose();
  EXPECT_NE(m.find("apiserver_conversion_webhook_request_total{failure_type=\"\",result=\"success\"} 1\n"),
            std::string::npos) << m;
  EXPECT_NE(m.find("apiserver_conversion_webhook_request_total{failure_type=\"conversion_webhook_call_failure\",result=\"failure\"} 2\n"),
            std::string::npos) << m;
  EXPECT_NE(m.find("apiserver_conversion_webhook_request_total{failure_type=\"conversion_webhook_malformed_response_failure\",result=\"failure\"} 3\n"),
            std::string::npos) << m;
  EXPECT_NE(m.find("apiserver_conversion_webhook_request_total{failure_type=\"conversion_webhook_partial_response_failure\",result=\"failure\"} 1\n"),
            std::string::npos) << m;
  EXPECT_NE(m.find("apiserver_conversion_webhook_request_total{failure_type=\"conversion_webhook_invalid_converted_object_failure\",result=\"failure\"} 3\n"),
            std::string::npos) << m;
  EXPECT_NE(m.find("apiserver_crd_conversion_webhook_duration_seconds_count{crd_name=\"books.library.example.com\",from_version=\"v1\",succeeded=\"true\",to_version=\"v2\"} 1\n"),
            std::string::npos) << m;
}

TEST_F(ConversionTest, WritesAreValidatedInTheirOwnVersion) {
  Object crd = Parse(kBooks);
  auto& v2 = crd["spec"].as_object()["versions"].as_array()[1].as_object();
  v2["schema"].as_object()["openAPIV3Schema"].as_object()["properties"].as_object()["spec"].as_object()["required"] =
      json::array{"title"};
  ASSERT_TRUE(env_.Create("customresourcedefinitions", crd).ok());
  Settle();
  auto refused = SyncWait(Books("v2")->creater->Create(Ns(), Book("v2", "dune", R"({"name":"Dune"})"), {}));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), 422);
  EXPECT_EQ(refused.status().message(), "Book.library.example.com \"dune\" is invalid: spec.title: Required value");
  std::lock_guard lock(http_.mu);
  EXPECT_TRUE(http_.requests.empty());  // refused before any conversion
}

TEST_F(ConversionTest, ScaleOfAConvertedVersionUsesTheStoredShape) {
  Object crd = Parse(kBooks);
  auto& vs = crd["spec"].as_object()["versions"].as_array();
  for (int i : {0, 1}) {
    auto& props = vs[i].as_object()["schema"].as_object()["openAPIV3Schema"].as_object()["properties"].as_object()["spec"]
                      .as_object()["properties"].as_object();
    props[i == 0 ? "copies" : "count"] = json::object{{"type", "integer"}};
  }
  vs[0].as_object()["subresources"] = Parse(R"({"scale":{"specReplicasPath":".spec.copies","statusReplicasPath":".status.copies"}})");
  vs[1].as_object()["subresources"] = Parse(R"({"scale":{"specReplicasPath":".spec.count","statusReplicasPath":".status.count"}})");
  ASSERT_TRUE(env_.Create("customresourcedefinitions", crd).ok());
  Settle();
  ASSERT_TRUE(SyncWait(Books("v1")->creater->Create(Ns(), Book("v1", "dune", R"({"name":"Dune","copies":3})"), {})).ok());
  snap_ = apis_.Snapshot();
  const auto* scale = snap_->FindResource("library.example.com", "v2", "books", "scale");
  ASSERT_NE(scale, nullptr);
  auto got = SyncWait(scale->getter->Get(Ns(), "dune", {}));
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(got->at("spec").at("replicas").as_int64(), 3);
}

TEST_F(ConversionTest, WebhookClientConfigIsValidated) {
  auto refused = [&](const std::string& client_config) {
    Object crd = Parse(kBooks);
    crd["spec"].as_object()["conversion"].as_object()["webhook"].as_object()["clientConfig"] = Parse(client_config);
    auto r = env_.Create("customresourcedefinitions", crd);
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_NE(refused(R"({"url":"http://127.0.0.1/convert?x=1#f"})")
                .find("[spec.conversion.webhookClientConfig.url: Invalid value: \"http\": 'https' is the only allowed "
                      "URL scheme; desired format: https://host[/path], spec.conversion.webhookClientConfig.url: Invalid "
                      "value: \"f\": fragments are not permitted in the URL, spec.conversion.webhookClientConfig.url: "
                      "Invalid value: \"x=1\": query parameters are not permitted in the URL]"),
            std::string::npos);
  EXPECT_NE(refused(R"({"service":{"namespace":"","name":"books","path":"convert//x","port":70000}})")
                .find("[spec.conversion.webhookClientConfig.service.namespace: Required value, "
                      "spec.conversion.webhookClientConfig.service.port: Invalid value: 70000: port is not valid: must be "
                      "between 1 and 65535, inclusive, spec.conversion.webhookClientConfig.service.path: Invalid value: "
                      "\"convert//x\": must start with a '/', spec.conversion.webhookClientConfig.service.path: Invalid "
                      "value: \"convert//x\": segment[1] may not be empty]"),
            std::string::npos);
  EXPECT_NE(refused(R"({"url":"https://a/b","service":{"namespace":"n","name":"s"}})")
                .find("spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required"),
            std::string::npos);
  std::string ca = refused(R"({"url":"https://a/b","caBundle":"bm90IGEgY2VydA=="})");  // "not a cert"
  EXPECT_NE(ca.find("spec.conversion.webhookClientConfig.caBundle: Invalid value: "), std::string::npos) << ca;
  EXPECT_NE(ca.find("unable to load root certificates: unable to parse bytes as PEM block"), std::string::npos) << ca;
}

TEST_F(ConversionTest, V1beta1ReviewWhenOnlyThatIsListed) {
  Object crd = Parse(kBooks);
  crd["spec"].as_object()["conversion"].as_object()["webhook"].as_object()["conversionReviewVersions"] =
      json::array{"v1beta1"};
  ASSERT_TRUE(env_.Create("customresourcedefinitions", crd).ok());
  Settle();
  ASSERT_TRUE(SyncWait(Books("v1")->creater->Create(Ns(), Book("v1", "dune", R"({"name":"Dune"})"), {})).ok());
  // v1beta1 answers are not checked for their kind or uid, as kube's.
  SetFn([](const http::ClientRequest& req) -> StatusOr<http::ClientResponse> {
    auto r = Answer(req);
    json::object o = json::parse(r.body).as_object();
    o.erase("kind");
    o["response"].as_object()["uid"] = "whatever";
    r.body = json::serialize(o);
    return r;
  });
  auto v2 = GetBook("v2", "dune");
  ASSERT_TRUE(v2.ok()) << v2.status().message();
  EXPECT_EQ((*v2)["spec"].at("title").as_string(), "Dune");
  std::lock_guard lock(http_.mu);
  EXPECT_EQ(json::parse(http_.requests.back().body).at("apiVersion").as_string(), "apiextensions.k8s.io/v1beta1");
}

TEST_F(ConversionTest, ServiceReferenceIsResolvedAndNamed) {
  Object crd = Parse(kBooks);
  crd["spec"].as_object()["conversion"].as_object()["webhook"].as_object()["clientConfig"] =
      Parse(R"({"service":{"namespace":"hooks","name":"books","path":"/convert","port":8443}})");
  // The controller's deps: a resolver that knows one service.
  controller_.reset();
  CrdController::Options o;
  o.deps.deps = deps_;
  o.deps.webhook.http = &http_;
  o.deps.webhook.resolve_service = [](const std::string& ns, const std::string& name, int port) -> Task<StatusOr<std::string>> {
    if (ns == "hooks" && name == "books" && port == 8443) co_return std::string("10.0.0.7:9443");
    co_return Status(503, "ServiceUnavailable", "service \"" + name + "\" not found");
  };
  controller_ = std::make_unique<CrdController>(apis_, nullptr, o);
  ASSERT_TRUE(env_.Create("customresourcedefinitions", crd).ok());
  Settle();
  ASSERT_TRUE(SyncWait(Books("v1")->creater->Create(Ns(), Book("v1", "dune", R"({"name":"Dune"})"), {})).ok());
  auto v2 = GetBook("v2", "dune");
  ASSERT_TRUE(v2.ok()) << v2.status().message();
  std::lock_guard lock(http_.mu);
  EXPECT_EQ(http_.requests.back().url, "https://10.0.0.7:9443/convert?timeout=30s");
  EXPECT_EQ(http_.server_names.back(), "books.hooks.svc");
}

TEST_F(ConversionTest, DefaultAddedLaterShowsOnRead) {
  ASSERT_TRUE(env_.Create("customresourcedefinitions", Parse(kBooks)).ok());
  Settle();
  ASSERT_TRUE(SyncWait(Books("v1")->creater->Create(Ns(), Book("v1", "dune", R"({"name":"Dune"})"), {})).ok());
  EXPECT_FALSE(GetBook("v1", "dune")->at("spec").as_object().contains("pages"));
  // pages defaults to 100 in v1 (storage) and the new field format to "paperback" in v2.
  auto changed = env_.Mutate("customresourcedefinitions", "books.library.example.com", [](Object& o) {
    auto& vs = o["spec"].as_object()["versions"].as_array();
    auto props = [&](int i) -> json::object& {
      return vs[i].as_object()["schema"].as_object()["openAPIV3Schema"].as_object()["properties"].as_object()["spec"]
          .as_object()["properties"].as_object();
    };
    props(0)["pages"].as_object()["default"] = 100;
    props(1)["format"] = json::object{{"type", "string"}, {"default", "paperback"}};
  });
  ASSERT_TRUE(changed.ok()) << changed.status().message();
  Settle();
  auto v1 = GetBook("v1", "dune");
  ASSERT_TRUE(v1.ok()) << v1.status().message();
  EXPECT_EQ(v1->at("spec").at("pages").as_int64(), 100);
  EXPECT_FALSE(v1->at("spec").as_object().contains("format"));
  auto v2 = GetBook("v2", "dune");
  ASSERT_TRUE(v2.ok()) << v2.status().message();
  EXPECT_EQ(v2->at("spec").at("pages").as_int64(), 100);
  EXPECT_EQ(v2->at("spec").at("format").as_string(), "paperback");
  auto list = SyncWait(Books("v1")->lister->List(Ns(), {}));
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->items.size(), 1u);
  EXPECT_EQ(list->items[0].at("spec").at("pages").as_int64(), 100);
}

TEST_F(ConversionTest, NamesOfBuiltInResourcesAreRefused) {
  // A built-in resource of a group Capstan serves. (CRD groups need a dot, so kube's built-in groups
  // such a CRD can name are the protected *.k8s.io ones, which need the approval annotation.)
  endpoints::ResourceEntry ingresses;
  ingresses.info.group = "networking.k8s.io";
  ingresses.info.version = "v1";
  ingresses.info.resource = "ingresses";
  ingresses.info.singular = "ingress";
  ingresses.info.short_names = {"ing"};
  ingresses.info.kind = "Ingress";
  ingresses.info.list_kind = "IngressList";
  ingresses.info.namespaced = true;
  apis_.Install(ingresses);
  Object crd = Parse(kBooks);
  auto& spec = crd["spec"].as_object();
  spec["group"] = "networking.k8s.io";
  spec["conversion"] = json::object{{"strategy", "None"}};
  spec["names"] = json::object{{"plural", "ingresses"}, {"kind", "MyIngress"}};
  crd["metadata"].as_object()["name"] = "ingresses.networking.k8s.io";
  crd["metadata"].as_object()["annotations"] = json::object{{"api-approved.kubernetes.io", "unapproved, test"}};
  ASSERT_TRUE(env_.Create("customresourcedefinitions", crd).ok());
  Settle();
  auto got = env_.Get("customresourcedefinitions", "ingresses.networking.k8s.io");
  ASSERT_TRUE(got.ok());
  const auto* names = FindCondition(*got, "NamesAccepted");
  ASSERT_NE(names, nullptr);
  EXPECT_EQ(names->at("status").as_string(), "False");
  EXPECT_EQ(names->at("reason").as_string(), "PluralConflict");
  EXPECT_EQ(names->at("message").as_string(), "\"ingresses\" is already in use");
  EXPECT_FALSE(IsConditionTrue(*got, "Established"));
  snap_ = apis_.Snapshot();
  EXPECT_FALSE(snap_->FindResource("networking.k8s.io", "v1", "ingresses", "")->custom);

  // The kind too (its list kind, IngressList, is reported: kube's naming reports the last conflict).
  Object kind_clash = Parse(kBooks);
  kind_clash["spec"].as_object()["group"] = "networking.k8s.io";
  kind_clash["spec"].as_object()["conversion"] = json::object{{"strategy", "None"}};
  kind_clash["spec"].as_object()["names"] = json::object{{"plural", "widgets"}, {"kind", "Ingress"}};
  kind_clash["metadata"].as_object()["name"] = "widgets.networking.k8s.io";
  kind_clash["metadata"].as_object()["annotations"] = json::object{{"api-approved.kubernetes.io", "unapproved, test"}};
  ASSERT_TRUE(env_.Create("customresourcedefinitions", kind_clash).ok());
  Settle();
  got = env_.Get("customresourcedefinitions", "widgets.networking.k8s.io");
  ASSERT_TRUE(got.ok());
  names = FindCondition(*got, "NamesAccepted");
  ASSERT_NE(names, nullptr);
  EXPECT_EQ(names->at("reason").as_string(), "ListKindConflict");
  EXPECT_EQ(names->at("message").as_string(), "\"IngressList\" is already in use");
}

TEST_F(ConversionTest, ProtectedGroupsNeedTheApprovalAnnotation) {
  Object crd = Parse(kBooks);
  auto& spec = crd["spec"].as_object();
  spec["group"] = "library.k8s.io";
  spec["conversion"] = json::object{{"strategy", "None"}};
  crd["metadata"].as_object()["name"] = "books.library.k8s.io";
  auto missing = env_.Create("customresourcedefinitions", crd);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), 422);
  EXPECT_EQ(missing.status().message(),
            "CustomResourceDefinition.apiextensions.k8s.io \"books.library.k8s.io\" is invalid: "
            "metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval "
            "annotation \"api-approved.kubernetes.io\", see https://github.com/kubernetes/enhancements/pull/1111");
  crd["metadata"].as_object()["annotations"] = json::object{{"api-approved.kubernetes.io", "maybe"}};
  auto invalid = env_.Create("customresourcedefinitions", crd);
  ASSERT_FALSE(invalid.ok());
  EXPECT_NE(invalid.status().message().find(
                "metadata.annotations[api-approved.kubernetes.io]: Invalid value: \"maybe\": protected groups must have "
                "approval annotation \"api-approved.kubernetes.io\" with either a URL or a reason starting with "
                "\"unapproved\", see https://github.com/kubernetes/enhancements/pull/1111"),
            std::string::npos)
      << invalid.status().message();
  crd["metadata"].as_object()["annotations"] = json::object{{"api-approved.kubernetes.io", "unapproved, testing only"}};
  ASSERT_TRUE(env_.Create("customresourcedefinitions", crd).ok());
  Settle();
  auto got = env_.Get("customresourcedefinitions", "books.library.k8s.io");
  ASSERT_TRUE(got.ok());
  const auto* c = FindCondition(*got, "KubernetesAPIApprovalPolicyConformant");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->at("status").as_string(), "False");
  EXPECT_EQ(c->at("reason").as_string(), "UnapprovedAnnotation");
  EXPECT_EQ(c->at("message").as_string(), "not approved: \"unapproved, testing only\"");
  EXPECT_TRUE(IsConditionTrue(*got, "Established"));
  auto approved = env_.Mutate("customresourcedefinitions", "books.library.k8s.io", [](Object& o) {
    o["metadata"].as_object()["annotations"].as_object()["api-approved.kubernetes.io"] =
        "https://github.com/kubernetes/kubernetes/pull/78458";
  });
  ASSERT_TRUE(approved.ok()) << approved.status().message();
  Settle();
  got = env_.Get("customresourcedefinitions", "books.library.k8s.io");
  c = FindCondition(*got, "KubernetesAPIApprovalPolicyConformant");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->at("status").as_string(), "True");
  EXPECT_EQ(c->at("reason").as_string(), "ApprovedAnnotation");
  EXPECT_EQ(c->at("message").as_string(), "approved in https://github.com/kubernetes/kubernetes/pull/78458");
  // Other groups carry no such condition.
  ASSERT_TRUE(env_.Create("customresourcedefinitions", Parse(kBooks)).ok());
  Settle();
  EXPECT_EQ(FindCondition(*env_.Get("customresourcedefinitions", "books.library.example.com"),
                          "KubernetesAPIApprovalPolicyConformant"),
            nullptr);
}

}  // namespace
}  // namespace capstan::api::apiextensions
