// End-to-end: the OpenAPI documents (/openapi/v2, /openapi/v3) with the real kubectl 1.31 and 1.32:
// kubectl explain (v3, and v2 protobuf with --output plaintext-openapiv2), client-side apply's
// strategic merge from the v3 document, field validation (kubectl finds fieldValidation on the PATCH
// operation and leaves strict checking to the server), kube's descriptions and enums of the built-in
// kinds (and their absence with the OpenAPIEnums gate off), and the HTTP contract (ETag, 304, hash
// URLs).
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <regex>

#include "e2e_util.h"

namespace capstan::e2e {
namespace {

namespace json = boost::json;

class OpenApiTest : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    server_ = new ServerProcess();
    cache_dir_ = new std::string(MakeTempDir("capstan-openapi-kubectl-cache"));
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
    delete cache_dir_;
  }
  void SetUp() override { ASSERT_TRUE(server_->ok()) << server_->error(); }

  // kubectl of the test's minor version, with a cache of its own per version.
  static CommandResult KV(const std::vector<std::string>& args, const std::string& minor, const std::string& input) {
    std::vector<std::string> a = {"--cache-dir", *cache_dir_ + "/" + minor};
    a.insert(a.end(), args.begin(), args.end());
    return server_->Kubectl(a, input, minor);
  }
  CommandResult K(const std::vector<std::string>& args, const std::string& input = "") {
    return KV(args, GetParam(), input);
  }
  static std::string Raw(const std::string& path, const std::vector<std::string>& headers = {}) {
    std::string req = "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n";
    for (const auto& h : headers) req += h + "\r\n";
    req += "\r\n";
    return RawHttps(server_->port(), {req}, server_->data_dir() + "/pki/admin.crt",
                    server_->data_dir() + "/pki/admin.key")
        .response;
  }
  static std::string Header(const std::string& response, const std::string& name) {
    std::regex re("\r\n" + name + ": ([^\r]*)\r\n", std::regex::icase);
    std::smatch m;
    return std::regex_search(response, m, re) ? m[1].str() : "";
  }
  static std::string BodyOf(const std::string& response) {
    auto p = response.find("\r\n\r\n");
    return p == std::string::npos ? "" : response.substr(p + 4);
  }
  // A unique name per kubectl version.
  std::string Name(const std::string& base) { return base + "-" + GetParam(); }

  static ServerProcess* server_;
  static std::string* cache_dir_;
};
ServerProcess* OpenApiTest::server_ = nullptr;
std::string* OpenApiTest::cache_dir_ = nullptr;

TEST_P(OpenApiTest, ExplainConfigMapData) {
  auto r = K({"explain", "configmap.data"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("KIND:       ConfigMap"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("VERSION:    v1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FIELD: data <map[string]string>"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("DESCRIPTION:"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("GROUP:"), std::string::npos) << "the core group prints no GROUP line\n" << r.out;
}

TEST_P(OpenApiTest, ExplainNamespaceSpec) {
  auto r = K({"explain", "namespaces.spec"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("KIND:       Namespace"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FIELD: spec <NamespaceSpec>"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FIELDS:"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("finalizers\\s+<\\[\\]string>"))) << r.out;
}

TEST_P(OpenApiTest, ExplainLeaseSpecRecursive) {
  auto r = K({"explain", "leases.spec", "--recursive"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("GROUP:      coordination.k8s.io"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("KIND:       Lease"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FIELD: spec <LeaseSpec>"), std::string::npos) << r.out;
  for (const char* field : {"acquireTime\\s+<string>", "holderIdentity\\s+<string>", "leaseDurationSeconds\\s+<integer>",
                            "leaseTransitions\\s+<integer>", "renewTime\\s+<string>"}) {
    EXPECT_TRUE(std::regex_search(r.out, std::regex(field))) << field << "\n" << r.out;
  }
}

TEST_P(OpenApiTest, ExplainUnknownFieldFails) {
  auto r = K({"explain", "configmap.nope"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("field \"nope\" does not exist"), std::string::npos) << r.err;
}

TEST_P(OpenApiTest, ExplainFromTheV2ProtobufDocument) {
  auto r = K({"explain", "--output=plaintext-openapiv2", "configmap.data"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("KIND:     ConfigMap"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FIELD:    data <map[string]string>"), std::string::npos) << r.out;
  auto rec = K({"explain", "--output=plaintext-openapiv2", "leases.spec", "--recursive"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_TRUE(std::regex_search(rec.out, std::regex("holderIdentity\\s+<string>"))) << rec.out;
}

// kube-apiserver 1.32's text for pods.spec.restartPolicy, as kubectl wraps it.
constexpr const char* kRestartPolicyLines[] = {
    "Restart policy for all containers within the pod. One of Always, OnFailure,",
    "Never. In some contexts, only a subset of those values may be permitted.",
    "https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#restart-policy"};

TEST_P(OpenApiTest, ExplainPrintsKubesDescriptionsAndEnums) {
  auto r = K({"explain", "pods.spec.restartPolicy"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* line : kRestartPolicyLines) EXPECT_TRUE(Contains(r.out, line)) << line << "\n" << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("ENUM:\\s+Always\\s+Never\\s+OnFailure"))) << r.out;
  EXPECT_TRUE(Contains(r.out, "Possible enum values:\n     - `\"Always\"`")) << r.out;
  // A field whose type is a definition: the field's own text, then its type's.
  auto affinity = K({"explain", "pods.spec.affinity"});
  ASSERT_EQ(affinity.exit_code, 0) << affinity.err;
  EXPECT_TRUE(Contains(affinity.out, "If specified, the pod's scheduling constraints\n"
                                     "    Affinity is a group of affinity scheduling rules.")) << affinity.out;
  // The fields listed under a kind carry theirs; the v2 document has them too.
  auto spec = K({"explain", "deployments.spec"});
  EXPECT_TRUE(Contains(spec.out, "Indicates that the deployment is paused.")) << spec.out;
  auto v2 = K({"explain", "--output=plaintext-openapiv2", "configmap.immutable"});
  ASSERT_EQ(v2.exit_code, 0) << v2.err;
  EXPECT_TRUE(Contains(v2.out, "Immutable, if set to true, ensures that data stored in the ConfigMap cannot")) << v2.out;
}

TEST(OpenApiEnumsGateTest, EnumsAreLeftOutWhenTheGateIsOff) {
  ServerProcess server({"--feature-gates=OpenAPIEnums=false"});
  ASSERT_TRUE(server.ok()) << server.error();
  auto r = server.Kubectl({"explain", "pods.spec.restartPolicy"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* line : kRestartPolicyLines) EXPECT_TRUE(Contains(r.out, line)) << line << "\n" << r.out;
  EXPECT_FALSE(Contains(r.out, "ENUM:")) << r.out;
  EXPECT_FALSE(Contains(r.out, "Possible enum values")) << r.out;
}

std::string ConfigMapYaml(const std::string& name, const std::string& extra) {
  return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n  namespace: default\ndata:\n  a: \"1\"\n" +
         extra;
}

TEST_P(OpenApiTest, CreateWithUnknownFieldFailsStrict) {
  auto r = K({"create", "-f", "-"}, ConfigMapYaml(Name("strict-create"), "foo: bar\n"));
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_NE(r.err.find("Error from server (BadRequest): error when creating \"STDIN\": ConfigMap in version \"v1\" "
                       "cannot be handled as a ConfigMap: strict decoding error: unknown field \"foo\""),
            std::string::npos)
      << r.err;
  EXPECT_NE(K({"get", "configmap", Name("strict-create")}).exit_code, 0) << "nothing was created";
}

TEST_P(OpenApiTest, ApplyWithUnknownFieldFailsStrictAndPassesWithoutValidation) {
  const std::string name = Name("strict-apply");
  auto r = K({"apply", "-f", "-"}, ConfigMapYaml(name, "foo: bar\n"));
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_NE(r.err.find("strict decoding error: unknown field \"foo\""), std::string::npos) << r.err;

  auto loose = K({"apply", "--validate=false", "-f", "-"}, ConfigMapYaml(name, "foo: bar\n"));
  ASSERT_EQ(loose.exit_code, 0) << loose.err;
  EXPECT_EQ(loose.out, "configmap/" + name + " created\n");

  // The object exists: apply now patches (strategic merge computed from the v3 document), and the
  // server still rejects the unknown field of a strict patch.
  auto patch = K({"apply", "-f", "-"}, ConfigMapYaml(name, "bar: baz\n"));
  EXPECT_NE(patch.exit_code, 0) << patch.out;
  EXPECT_NE(patch.err.find("unknown field \"bar\""), std::string::npos) << patch.err;
  auto changed = K({"apply", "-f", "-"}, ConfigMapYaml(name, "  b: \"2\"\n"));
  ASSERT_EQ(changed.exit_code, 0) << changed.err;
  EXPECT_EQ(changed.out, "configmap/" + name + " configured\n");
  EXPECT_EQ(K({"get", "configmap", name, "-o", "jsonpath={.data.a},{.data.b}"}).out, "1,2");
  EXPECT_EQ(changed.err.find("warning"), std::string::npos) << changed.err;
}

INSTANTIATE_TEST_SUITE_P(Kubectl, OpenApiTest, ::testing::Values("31", "32"),
                         [](const auto& info) { return "v1_" + info.param; });

class OpenApiHttpTest : public OpenApiTest {};

TEST_F(OpenApiHttpTest, V2EtagAndNotModified) {
  std::string r = Raw("/openapi/v2");
  ASSERT_EQ(HttpStatusOf(r), 200) << r.substr(0, 300);
  EXPECT_EQ(Header(r, "Content-Type"), "application/json");
  std::string etag = Header(r, "Etag");
  ASSERT_EQ(etag.size(), 130u) << etag;
  json::value doc = json::parse(BodyOf(r));
  EXPECT_EQ(doc.at("swagger"), "2.0");
  EXPECT_EQ(doc.at("info").at("title"), "Kubernetes");
  EXPECT_TRUE(doc.at("info").at("version").as_string().subview().starts_with("v1.32.0"));
  EXPECT_TRUE(doc.at("paths").as_object().contains("/api/v1/namespaces/{namespace}/configmaps/{name}"));
  EXPECT_TRUE(doc.at("definitions").as_object().contains("io.k8s.api.coordination.v1.Lease"));
  std::string nm = Raw("/openapi/v2", {"If-None-Match: " + etag});
  EXPECT_EQ(HttpStatusOf(nm), 304) << nm.substr(0, 300);
  EXPECT_EQ(Header(nm, "Etag"), etag);
  EXPECT_EQ(HttpStatusOf(Raw("/openapi/v2", {"Accept: text/html"})), 406);
  std::string proto = Raw("/openapi/v2", {"Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf"});
  EXPECT_EQ(HttpStatusOf(proto), 200);
  EXPECT_EQ(Header(proto, "Content-Type"), "application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
}

TEST_F(OpenApiHttpTest, V3IndexAndImmutableDocuments) {
  std::string r = Raw("/openapi/v3");
  ASSERT_EQ(HttpStatusOf(r), 200);
  json::value index = json::parse(BodyOf(r));
  for (const char* root : {"api", "api/v1", "apis", "apis/coordination.k8s.io", "apis/coordination.k8s.io/v1", "version"}) {
    EXPECT_TRUE(index.at("paths").as_object().contains(root)) << root << " " << BodyOf(r);
  }
  std::string url(index.at("paths").at("api/v1").at("serverRelativeURL").as_string());
  std::string doc = Raw(url);
  ASSERT_EQ(HttpStatusOf(doc), 200);
  // The hashed URL is immutable. (The handler chain's "no-cache, private" is written too: the
  // timeout filter's writer keeps the chain's headers apart from the handler's.)
  EXPECT_NE(doc.find("\r\nCache-Control: public, immutable\r\n"), std::string::npos) << doc.substr(0, 600);
  EXPECT_EQ(Raw("/openapi/v3/api/v1").find("public, immutable"), std::string::npos) << "no hash: not cacheable";
  EXPECT_FALSE(Header(doc, "Expires").empty());
  EXPECT_EQ(json::parse(BodyOf(doc)).at("openapi"), "3.0.0");
  std::string stale = Raw("/openapi/v3/api/v1?hash=stale");
  EXPECT_EQ(HttpStatusOf(stale), 301);
  EXPECT_EQ(Header(stale, "Location"), url);
  EXPECT_EQ(HttpStatusOf(Raw("/openapi/v3/apis/nope.example.com/v1")), 404);
}

}  // namespace
}  // namespace capstan::e2e
