// End-to-end: the generic registry and the core API through the real kubectl (issue: registry and
// core API): create/get/list/label/annotate/patch/replace/delete, apply, diff, dry-run, output
// formats, pagination, selectors, watch, conflicts, error bodies and bad input.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <thread>

#include "e2e_util.h"

namespace capstan::e2e {
namespace {

// kubectl 1.32+ sends protobuf bodies for `kubectl create <kind>`.
constexpr const char* kCreateKubectl = "32";

class CoreApiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new ServerProcess(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(server_->ok()) << server_->error(); }

  static CommandResult K(const std::vector<std::string>& args, const std::string& input = "") {
    return server_->Kubectl(args, input, kCreateKubectl);
  }
  static CommandResult K32(const std::vector<std::string>& args, const std::string& input = "") {
    return server_->Kubectl(args, input, "32");
  }
  // A raw request with the admin client certificate; returns the whole HTTP response.
  static std::string Raw(const std::string& method, const std::string& path, const std::string& body = "",
                         const std::string& content_type = "application/json") {
    std::string req = method + " " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n";
    if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
      if (!content_type.empty()) req += "Content-Type: " + content_type + "\r\n";
      req += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    }
    req += "\r\n" + body;
    return RawHttps(server_->port(), {req}, server_->data_dir() + "/pki/admin.crt", server_->data_dir() + "/pki/admin.key")
        .response;
  }
  static std::string BodyOf(const std::string& response) {
    auto p = response.find("\r\n\r\n");
    return p == std::string::npos ? "" : response.substr(p + 4);
  }
  static ServerProcess* server_;
};
ServerProcess* CoreApiTest::server_ = nullptr;

TEST_F(CoreApiTest, ConfigMapLifecycleWithKubectl) {
  auto c = K({"create", "configmap", "life", "--from-literal=a=1", "--from-literal=b=2"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(c.out, "configmap/life created\n");
  auto g = K32({"get", "configmap", "life", "-o", "jsonpath={.data.a},{.data.b},{.metadata.namespace}"});
  EXPECT_EQ(g.out, "1,2,default");
  EXPECT_EQ(K32({"label", "configmap", "life", "tier=web"}).out, "configmap/life labeled\n");
  EXPECT_EQ(K32({"annotate", "configmap", "life", "note=hello"}).out, "configmap/life annotated\n");
  auto merge = K32({"patch", "configmap", "life", "--type=merge", "-p", "{\"data\":{\"c\":\"3\"}}"});
  EXPECT_EQ(merge.out, "configmap/life patched\n") << merge.err;
  auto json = K32({"patch", "configmap", "life", "--type=json", "-p", "[{\"op\":\"remove\",\"path\":\"/data/a\"}]"});
  EXPECT_EQ(json.out, "configmap/life patched\n") << json.err;
  auto smp = K32({"patch", "configmap", "life", "-p", "{\"metadata\":{\"labels\":{\"tier\":null}}}"});
  EXPECT_EQ(smp.out, "configmap/life patched\n") << smp.err;
  auto after = K32({"get", "configmap", "life", "-o", "jsonpath={.data}|{.metadata.labels}|{.metadata.annotations.note}"});
  EXPECT_EQ(after.out, "{\"b\":\"2\",\"c\":\"3\"}||hello");
  auto noop = K32({"patch", "configmap", "life", "--type=merge", "-p", "{\"data\":{\"c\":\"3\"}}"});
  EXPECT_EQ(noop.out, "configmap/life patched (no change)\n");
  auto d = K32({"delete", "configmap", "life"});
  EXPECT_EQ(d.out, "configmap \"life\" deleted\n");
  auto gone = K32({"get", "configmap", "life"});
  EXPECT_NE(gone.exit_code, 0);
  EXPECT_NE(gone.err.find("configmaps \"life\" not found"), std::string::npos) << gone.err;
}

TEST_F(CoreApiTest, ApplyTwiceThenWithAChange) {
  std::string v1 = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  k: one\n";
  auto a1 = K32({"apply", "--validate=false", "-f", "-"}, v1);
  EXPECT_EQ(a1.out, "configmap/applied created\n") << a1.err;
  auto a2 = K32({"apply", "--validate=false", "-f", "-"}, v1);
  EXPECT_EQ(a2.out, "configmap/applied unchanged\n") << a2.err;
  std::string v2 = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  k: two\n";
  auto diff = K32({"diff", "-f", "-"}, v2);
  EXPECT_EQ(diff.exit_code, 1) << diff.err;  // kubectl diff exits 1 when there are differences
  EXPECT_NE(diff.out.find("+  k: two"), std::string::npos) << diff.out;
  auto a3 = K32({"apply", "--validate=false", "-f", "-"}, v2);
  EXPECT_EQ(a3.out, "configmap/applied configured\n") << a3.err;
  EXPECT_EQ(K32({"get", "cm", "applied", "-o", "jsonpath={.data.k}"}).out, "two");
  EXPECT_EQ(K32({"diff", "-f", "-"}, v2).exit_code, 0);
}

TEST_F(CoreApiTest, ServerSideDryRunWritesNothing) {
  auto dry = K({"create", "configmap", "dry", "--from-literal=a=b", "--dry-run=server", "-o", "jsonpath={.metadata.name}"});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_EQ(dry.out, "dry");
  EXPECT_NE(K32({"get", "cm", "dry"}).exit_code, 0);
  ASSERT_EQ(K({"create", "configmap", "keep", "--from-literal=a=b"}).exit_code, 0);
  auto del = K32({"delete", "cm", "keep", "--dry-run=server"});
  EXPECT_EQ(del.exit_code, 0) << del.err;
  EXPECT_EQ(K32({"get", "cm", "keep", "-o", "name"}).out, "configmap/keep\n");
}

TEST_F(CoreApiTest, OutputFormats) {
  ASSERT_EQ(K({"create", "configmap", "fmt", "--from-literal=a=b"}).exit_code, 0);
  auto yaml = K32({"get", "cm", "fmt", "-o", "yaml"});
  EXPECT_NE(yaml.out.find("kind: ConfigMap"), std::string::npos);
  EXPECT_NE(yaml.out.find("  a: b"), std::string::npos);
  auto json = K32({"get", "cm", "fmt", "-o", "json"});
  EXPECT_NE(json.out.find("\"kind\": \"ConfigMap\""), std::string::npos);
  auto cc = K32({"get", "cm", "fmt", "-o", "custom-columns=N:.metadata.name,A:.data.a"});
  EXPECT_EQ(cc.out, "N     A\nfmt   b\n");
  auto wide = K32({"get", "cm", "fmt", "-o", "wide"});
  EXPECT_TRUE(std::regex_search(wide.out, std::regex("^NAME +DATA +AGE\nfmt +1 +[0-9]+s\n$"))) << wide.out;
  auto name = K32({"get", "cm", "fmt", "-o", "name"});
  EXPECT_EQ(name.out, "configmap/fmt\n");
}

TEST_F(CoreApiTest, ChunkedListsSeeEveryObject) {
  K({"create", "namespace", "paging"});
  for (int i = 0; i < 7; ++i) {
    ASSERT_EQ(K({"create", "configmap", "p" + std::to_string(i), "-n", "paging", "--from-literal=i=" + std::to_string(i)}).exit_code, 0);
  }
  // Every namespace also holds the root CA bundle (kube-root-ca.crt) once the publisher has run; leave it out.
  auto all = K32({"get", "cm", "-n", "paging", "--chunk-size=2", "--field-selector=metadata.name!=kube-root-ca.crt",
                  "-o", "name"});
  EXPECT_EQ(all.out,
            "configmap/p0\nconfigmap/p1\nconfigmap/p2\nconfigmap/p3\nconfigmap/p4\nconfigmap/p5\nconfigmap/p6\n");
  // Without a selector the first page counts what remains (the 7 and the root CA bundle, once published).
  for (int i = 0; i < 100 && K32({"get", "cm", "kube-root-ca.crt", "-n", "paging"}).exit_code != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::string page = BodyOf(Raw("GET", "/api/v1/namespaces/paging/configmaps?limit=3"));
  EXPECT_NE(page.find("\"continue\":\""), std::string::npos) << page;
  EXPECT_NE(page.find("\"remainingItemCount\":5"), std::string::npos) << page;
  // With a field selector kube cannot know what remains, so it leaves the count out.
  page = BodyOf(Raw("GET", "/api/v1/namespaces/paging/configmaps?limit=3&fieldSelector=metadata.name%21%3Dkube-root-ca.crt"));
  EXPECT_NE(page.find("\"continue\":\""), std::string::npos) << page;
  EXPECT_EQ(page.find("remainingItemCount"), std::string::npos) << page;
  std::string bad = Raw("GET", "/api/v1/namespaces/paging/configmaps?limit=3&continue=garbage");
  EXPECT_EQ(HttpStatusOf(bad), 400) << bad;
  EXPECT_NE(bad.find("invalid continue token"), std::string::npos);
}

TEST_F(CoreApiTest, LabelAndFieldSelectors) {
  K({"create", "namespace", "sel"});
  ASSERT_EQ(K({"create", "configmap", "red", "-n", "sel", "--from-literal=a=b"}).exit_code, 0);
  ASSERT_EQ(K({"create", "configmap", "blue", "-n", "sel", "--from-literal=a=b"}).exit_code, 0);
  K32({"label", "cm", "red", "-n", "sel", "color=red", "size=big"});
  K32({"label", "cm", "blue", "-n", "sel", "color=blue"});
  EXPECT_EQ(K32({"get", "cm", "-n", "sel", "-l", "color=red", "-o", "name"}).out, "configmap/red\n");
  EXPECT_EQ(K32({"get", "cm", "-n", "sel", "-l", "color in (red,blue),!size", "-o", "name"}).out, "configmap/blue\n");
  EXPECT_EQ(K32({"get", "cm", "-n", "sel", "-l", "color,color!=red", "-o", "name"}).out, "configmap/blue\n");
  EXPECT_EQ(K32({"get", "cm", "-n", "sel", "--field-selector", "metadata.name=red", "-o", "name"}).out,
            "configmap/red\n");
  EXPECT_EQ(K32({"get", "cm", "-A", "--field-selector", "metadata.namespace=sel,metadata.name!=red,metadata.name!=kube-root-ca.crt", "-o", "name"}).out,
            "configmap/blue\n");
  auto bad = K32({"get", "cm", "-n", "sel", "--field-selector", "data.a=b"});
  EXPECT_NE(bad.exit_code, 0);
  // ConfigMaps have no field label conversion of their own: kube's default conversion's text.
  EXPECT_NE(bad.err.find(R"("data.a" is not a known field selector: only "metadata.name", "metadata.namespace")"),
            std::string::npos)
      << bad.err;
  auto badl = K32({"get", "cm", "-n", "sel", "-l", "a in (b"});
  EXPECT_NE(badl.exit_code, 0);
}

TEST_F(CoreApiTest, WatchSeesAddedModifiedDeleted) {
  K({"create", "namespace", "watching"});
  std::string kubectl = KubectlPath("32");
  std::string out_file = server_->data_dir() + "/watch.out";
  std::thread watcher([&] {
    auto r = RunCommand({"/bin/sh", "-c",
                         "timeout 8 " + kubectl + " --kubeconfig " + server_->kubeconfig() +
                             " get cm -n watching -w --output-watch-events > " + out_file + " 2>&1"});
    (void)r;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ASSERT_EQ(K({"create", "configmap", "w", "-n", "watching", "--from-literal=a=1"}).exit_code, 0);
  K32({"label", "cm", "w", "-n", "watching", "x=y"});
  K32({"delete", "cm", "w", "-n", "watching"});
  watcher.join();
  std::ifstream in(out_file);
  std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(std::regex_search(out, std::regex("ADDED +w +1")));
  EXPECT_TRUE(std::regex_search(out, std::regex("MODIFIED +w +1")));
  EXPECT_TRUE(std::regex_search(out, std::regex("DELETED +w +1"))) << out;
}

TEST_F(CoreApiTest, StaleReplaceIsAConflict) {
  ASSERT_EQ(K({"create", "configmap", "stale", "--from-literal=a=1"}).exit_code, 0);
  std::string old = K32({"get", "cm", "stale", "-o", "yaml"}).out;
  K32({"label", "cm", "stale", "changed=yes"});
  auto r = K32({"replace", "--validate=false", "-f", "-"}, old);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("Operation cannot be fulfilled on configmaps \"stale\": the object has been modified; please "
                       "apply your changes to the latest version and try again"),
            std::string::npos)
      << r.err;
}

TEST_F(CoreApiTest, ErrorBodiesAreKubesStatuses) {
  std::string nf = Raw("GET", "/api/v1/namespaces/default/configmaps/nope");
  EXPECT_EQ(HttpStatusOf(nf), 404);
  EXPECT_EQ(BodyOf(nf),
            "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"configmaps "
            "\\\"nope\\\" not found\",\"reason\":\"NotFound\",\"details\":{\"name\":\"nope\",\"kind\":\"configmaps\"},"
            "\"code\":404}\n");
  std::string body = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"dup\"}}";
  EXPECT_EQ(HttpStatusOf(Raw("POST", "/api/v1/namespaces/default/configmaps", body)), 201);
  std::string dup = Raw("POST", "/api/v1/namespaces/default/configmaps", body);
  EXPECT_EQ(HttpStatusOf(dup), 409);
  EXPECT_NE(dup.find("\"reason\":\"AlreadyExists\""), std::string::npos);
  EXPECT_NE(dup.find("configmaps \\\"dup\\\" already exists"), std::string::npos) << dup;
  std::string invalid = Raw("POST", "/api/v1/namespaces/default/configmaps",
                            "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"Bad_Name\"},"
                            "\"data\":{\"bad key\":\"v\"}}");
  EXPECT_EQ(HttpStatusOf(invalid), 422) << invalid;
  EXPECT_NE(invalid.find("\"reason\":\"Invalid\""), std::string::npos);
  EXPECT_NE(invalid.find("\"field\":\"metadata.name\""), std::string::npos);
  EXPECT_NE(invalid.find("\"field\":\"data[bad key]\""), std::string::npos) << invalid;
  EXPECT_NE(invalid.find("\"reason\":\"FieldValueInvalid\""), std::string::npos);
}

TEST_F(CoreApiTest, BadInputGetsClear4xx) {
  const std::string path = "/api/v1/namespaces/default/configmaps";
  std::string malformed = Raw("POST", path, "{\"apiVersion\": \"v1\", ");
  EXPECT_EQ(HttpStatusOf(malformed), 400);
  EXPECT_NE(malformed.find("couldn't get version/kind; json parse error"), std::string::npos) << malformed;
  std::string wrong_version = Raw("POST", path, "{\"apiVersion\":\"apps/v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\"}}");
  EXPECT_EQ(HttpStatusOf(wrong_version), 400);
  EXPECT_NE(wrong_version.find("the API version in the data (apps/v1) does not match the expected API version (v1)"),
            std::string::npos)
      << wrong_version;
  std::string wrong_kind = Raw("POST", path, "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"x\"}}");
  EXPECT_EQ(HttpStatusOf(wrong_kind), 400) << wrong_kind;
  std::string ns_mismatch = Raw("POST", path, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\",\"namespace\":\"other\"}}");
  EXPECT_EQ(HttpStatusOf(ns_mismatch), 400);
  EXPECT_NE(ns_mismatch.find("the namespace of the provided object does not match the namespace sent on the request"),
            std::string::npos);
  std::string wrong_type = Raw("POST", path, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\"},\"data\":5}");
  EXPECT_EQ(HttpStatusOf(wrong_type), 400) << wrong_type;
  EXPECT_NE(wrong_type.find("cannot unmarshal number into Go struct field ConfigMap.data"), std::string::npos) << wrong_type;
  std::string unknown = Raw("POST", path + "?fieldValidation=Strict",
                            "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\"},\"spec\":{}}");
  EXPECT_EQ(HttpStatusOf(unknown), 400);
  EXPECT_NE(unknown.find("strict decoding error: unknown field \\\"spec\\\""), std::string::npos) << unknown;
  std::string warn = Raw("POST", path + "?fieldValidation=Warn",
                         "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"warned\"},\"spec\":{}}");
  EXPECT_EQ(HttpStatusOf(warn), 201);
  EXPECT_NE(warn.find("Warning: 299 - \"unknown field \\\"spec\\\"\""), std::string::npos) << warn;
  std::string big(1100 * 1024, 'x');
  std::string too_big = Raw("POST", path, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"big\"},\"data\":{\"k\":\"" + big + "\"}}");
  EXPECT_EQ(HttpStatusOf(too_big), 422) << too_big.substr(0, 400);
  EXPECT_NE(too_big.find("Too long: may not be more than 1048576 bytes"), std::string::npos);
  std::string bad_name_path = Raw("GET", path + "/..");
  EXPECT_GE(HttpStatusOf(bad_name_path), 400);
  std::string update_mismatch = Raw("PUT", path + "/warned", "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"other\"}}");
  EXPECT_EQ(HttpStatusOf(update_mismatch), 400);
  EXPECT_NE(update_mismatch.find("the name of the object (other) does not match the name on the URL (warned)"),
            std::string::npos);
  std::string bad_patch = Raw("PATCH", path + "/warned", "[{\"op\":\"bogus\"}]", "application/json-patch+json");
  EXPECT_GE(HttpStatusOf(bad_patch), 400);
  EXPECT_LT(HttpStatusOf(bad_patch), 500) << bad_patch;
  std::string bad_ct = Raw("PATCH", path + "/warned", "{}", "text/plain");
  EXPECT_EQ(HttpStatusOf(bad_ct), 415);
  // A patch must name its type; a body without a Content-Type is read as JSON (kube's first media type).
  EXPECT_EQ(HttpStatusOf(Raw("PATCH", path + "/warned", "{}", "")), 415);
  std::string no_ct = Raw("POST", path, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"no-content-type"}})", "");
  EXPECT_EQ(HttpStatusOf(no_ct), 201) << no_ct;
  std::string bad_dry = Raw("POST", path + "?dryRun=Some", "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"d\"}}");
  EXPECT_EQ(HttpStatusOf(bad_dry), 422);
  EXPECT_NE(bad_dry.find("dryRun[0]: Unsupported value: \\\"Some\\\": supported values: \\\"All\\\""), std::string::npos)
      << bad_dry;
  std::string bad_rvm = Raw("GET", path + "?resourceVersionMatch=Exact");
  EXPECT_EQ(HttpStatusOf(bad_rvm), 422);
  EXPECT_NE(bad_rvm.find("resourceVersionMatch is forbidden unless resourceVersion is provided"), std::string::npos);
  std::string not_acceptable = RawHttps(server_->port(),
                                        {"GET " + path + " HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\nConnection: close\r\n\r\n"},
                                        server_->data_dir() + "/pki/admin.crt", server_->data_dir() + "/pki/admin.key")
                                   .response;
  EXPECT_EQ(HttpStatusOf(not_acceptable), 406);
}

TEST_F(CoreApiTest, SecretsTypesAndStringData) {
  auto g = K({"create", "secret", "generic", "gen", "--from-literal=user=admin"});
  ASSERT_EQ(g.exit_code, 0) << g.err;
  EXPECT_EQ(K32({"get", "secret", "gen", "-o", "jsonpath={.type} {.data.user}"}).out, "Opaque YWRtaW4=");
  std::string sd = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: sd\nstringData:\n  token: abc\n";
  ASSERT_EQ(K32({"apply", "--validate=false", "-f", "-"}, sd).exit_code, 0);
  EXPECT_EQ(K32({"get", "secret", "sd", "-o", "jsonpath={.data.token}"}).out, "YWJj");
  std::string tls = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: badtls\ntype: kubernetes.io/tls\ndata:\n  tls.crt: YQ==\n";
  auto bad = K32({"apply", "--validate=false", "-f", "-"}, tls);
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("data[tls.key]: Required value"), std::string::npos) << bad.err;
  auto change_type = K32({"patch", "secret", "gen", "--type=merge", "-p", "{\"type\":\"kubernetes.io/basic-auth\"}"});
  EXPECT_NE(change_type.exit_code, 0);
  EXPECT_NE(change_type.err.find("field is immutable"), std::string::npos) << change_type.err;
  auto table = K32({"get", "secrets", "gen"});
  EXPECT_TRUE(std::regex_search(table.out, std::regex("NAME +TYPE +DATA +AGE\ngen +Opaque +1 +"))) << table.out;
}

TEST_F(CoreApiTest, ImmutableConfigMapRefusesDataChanges) {
  std::string cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: frozen\nimmutable: true\ndata:\n  a: b\n";
  ASSERT_EQ(K32({"apply", "--validate=false", "-f", "-"}, cm).exit_code, 0);
  auto r = K32({"patch", "cm", "frozen", "--type=merge", "-p", "{\"data\":{\"a\":\"c\"}}"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("data: Forbidden: field is immutable when `immutable` is set"), std::string::npos) << r.err;
}

TEST_F(CoreApiTest, ServiceAccountsEventsAndLeases) {
  ASSERT_EQ(K({"create", "serviceaccount", "robot"}).exit_code, 0);
  EXPECT_TRUE(std::regex_search(K32({"get", "sa", "robot"}).out, std::regex("NAME +SECRETS +AGE\nrobot +0 +")));
  std::string ev =
      "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"e1\"},\"involvedObject\":{\"kind\":\"ConfigMap\","
      "\"name\":\"target\",\"namespace\":\"default\"},\"reason\":\"Tested\",\"message\":\"hello\",\"type\":\"Normal\","
      "\"firstTimestamp\":\"2026-01-01T00:00:00Z\",\"lastTimestamp\":\"2026-01-01T00:00:00Z\",\"count\":1}";
  EXPECT_EQ(HttpStatusOf(Raw("POST", "/api/v1/namespaces/default/events", ev)), 201);
  auto events = K32({"get", "events", "--field-selector", "involvedObject.name=target"});
  EXPECT_TRUE(std::regex_search(events.out, std::regex("LAST SEEN +TYPE +REASON +OBJECT +MESSAGE\n.*Normal +Tested +configmap/target +hello")))
      << events.out;
  std::string lease = "apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: leader\nspec:\n  holderIdentity: me\n  leaseDurationSeconds: 15\n";
  ASSERT_EQ(K32({"apply", "--validate=false", "-f", "-"}, lease).exit_code, 0);
  EXPECT_TRUE(std::regex_search(K32({"get", "leases", "leader"}).out, std::regex("NAME +HOLDER +AGE\nleader +me +")));
}

TEST_F(CoreApiTest, NamespacesAreCreatedAndListed) {
  auto ns = K32({"get", "namespaces", "-o", "name"});
  for (const char* n : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    EXPECT_NE(ns.out.find(std::string("namespace/") + n + "\n"), std::string::npos) << ns.out;
  }
  ASSERT_EQ(K({"create", "namespace", "team-a"}).exit_code, 0);
  EXPECT_EQ(K32({"get", "ns", "team-a", "-o", "jsonpath={.status.phase} {.metadata.labels.kubernetes\\.io/metadata\\.name} {.spec.finalizers[0]}"}).out,
            "Active team-a kubernetes");
  // NamespaceLifecycle admission.
  auto missing = K({"create", "configmap", "x", "-n", "no-such-namespace", "--from-literal=a=b"});
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.err.find("namespaces \"no-such-namespace\" not found"), std::string::npos) << missing.err;
  auto immortal = K32({"delete", "namespace", "kube-public"});
  EXPECT_NE(immortal.exit_code, 0);
  EXPECT_NE(immortal.err.find("namespaces \"kube-public\" is forbidden: this namespace may not be deleted"),
            std::string::npos)
      << immortal.err;
  ASSERT_EQ(K({"create", "namespace", "going"}).exit_code, 0);
  // A configmap with a finalizer holds the namespace in Terminating while the namespace controller waits for it.
  ASSERT_EQ(K({"create", "configmap", "hold", "-n", "going"}).exit_code, 0);
  ASSERT_EQ(K32({"patch", "configmap", "hold", "-n", "going", "--type=merge", "-p",
                 R"({"metadata":{"finalizers":["e2e.capstan.io/hold"]}})"}).exit_code, 0);
  EXPECT_EQ(K32({"delete", "namespace", "going", "--wait=false"}).exit_code, 0);
  EXPECT_EQ(K32({"get", "ns", "going", "-o", "jsonpath={.status.phase}"}).out, "Terminating");
  auto into_terminating = K({"create", "configmap", "x", "-n", "going", "--from-literal=a=b"});
  EXPECT_NE(into_terminating.err.find("unable to create new content in namespace going because it is being terminated"),
            std::string::npos)
      << into_terminating.err;
  EXPECT_EQ(K32({"patch", "configmap", "hold", "-n", "going", "--type=merge", "-p", R"({"metadata":{"finalizers":null}})"})
                .exit_code, 0);
}

TEST_F(CoreApiTest, DiscoveryListsResources) {
  auto res = K32({"api-resources"});
  EXPECT_TRUE(std::regex_search(res.out, std::regex("configmaps +cm +v1 +true +ConfigMap"))) << res.out;
  EXPECT_TRUE(std::regex_search(res.out, std::regex("namespaces +ns +v1 +false +Namespace")));
  EXPECT_TRUE(std::regex_search(res.out, std::regex("leases +coordination.k8s.io/v1 +true +Lease")));
  auto versions = K32({"api-versions"});
  EXPECT_NE(versions.out.find("coordination.k8s.io/v1\n"), std::string::npos);
  EXPECT_NE(versions.out.find("v1\n"), std::string::npos);
  std::string agg = RawHttps(server_->port(),
                             {"GET /apis HTTP/1.1\r\nHost: x\r\nAccept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json\r\nConnection: close\r\n\r\n"},
                             server_->data_dir() + "/pki/admin.crt", server_->data_dir() + "/pki/admin.key")
                        .response;
  EXPECT_NE(agg.find("Content-Type: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"),
            std::string::npos);
  EXPECT_NE(agg.find("\"resource\":\"leases\""), std::string::npos);
  std::string v1 = BodyOf(Raw("GET", "/api/v1"));
  EXPECT_NE(v1.find("{\"name\":\"namespaces/status\",\"singularName\":\"\",\"namespaced\":false,\"kind\":\"Namespace\",\"verbs\":[\"get\",\"patch\",\"update\"]}"),
            std::string::npos)
      << v1;
}

}  // namespace
}  // namespace capstan::e2e
