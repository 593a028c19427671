// End-to-end authorization with the real kubectl (issue 10): the default Node,RBAC modes, the
// bootstrap policy (anonymous reaches only the public-info endpoints), a user from a client
// certificate signed by the cluster CA that is forbidden with kube's wording and then allowed after
// `kubectl create rolebinding`, escalation refused, `kubectl auth can-i` (1.31 JSON, 1.33 protobuf)
// with --list and --as, ClusterRole aggregation into view, and --authorization-mode=AlwaysAllow;
// --authorization-config (issue 25): two webhooks chosen by CEL matchConditions ahead of RBAC, a
// reload of the file while serving, failurePolicy Deny with its webhook down, kube's start-up errors.
#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "authn_test_util.h"
#include "e2e_util.h"

namespace capstan::e2e {
namespace {

std::string ReadFile(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool Eventually(const std::function<bool()>& cond, std::chrono::seconds timeout = std::chrono::seconds(30)) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return cond();
}

// The value of `key: value` on the first line of a kubeconfig that has it.
std::string KubeconfigField(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto pos = line.find(key + ": ");
    if (pos != std::string::npos) return line.substr(pos + key.size() + 2);
  }
  return "";
}

class AuthzE2E : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new ServerProcess();
    if (!server_->ok()) return;
    dir_ = MakeTempDir("capstan-authz-user");
    alice_ = MakeUser("alice", "devs");
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(server_->ok()) << server_->error(); }

  // A client certificate for `user` in `group`, signed by the cluster CA, and a kubeconfig using it.
  static std::string MakeUser(const std::string& user, const std::string& group) {
    const std::string pki = server_->data_dir() + "/pki";
    const std::string key = dir_ + "/" + user + ".key", csr = dir_ + "/" + user + ".csr", crt = dir_ + "/" + user + ".crt";
    RunCommand({"openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", key});
    RunCommand({"openssl", "req", "-new", "-key", key, "-subj", "/CN=" + user + "/O=" + group, "-out", csr});
    RunCommand({"openssl", "x509", "-req", "-in", csr, "-CA", pki + "/ca.crt", "-CAkey", pki + "/ca.key",
                "-CAcreateserial", "-days", "1", "-out", crt});
    std::string admin = ReadFile(server_->kubeconfig());
    std::string kc = dir_ + "/" + user + ".kubeconfig";
    std::ofstream out(kc);
    out << "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: "
        << KubeconfigField(admin, "server") << "\n    certificate-authority-data: "
        << KubeconfigField(admin, "certificate-authority-data") << "\nusers:\n- name: " << user
        << "\n  user:\n    client-certificate: " << crt << "\n    client-key: " << key
        << "\ncontexts:\n- name: x\n  context:\n    cluster: c\n    user: " << user << "\ncurrent-context: x\n";
    return kc;
  }
  static CommandResult As(const std::string& kubeconfig, const std::vector<std::string>& args,
                          const std::string& minor = "31", const std::string& input = "") {
    std::vector<std::string> argv = {KubectlPath(minor), "--kubeconfig", kubeconfig};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunCommand(argv, input);
  }
  static CommandResult Admin(const std::vector<std::string>& args, const std::string& minor = "31") {
    return server_->Kubectl(args, "", minor);
  }

  static ServerProcess* server_;
  static std::string dir_;
  static std::string alice_;
};

ServerProcess* AuthzE2E::server_ = nullptr;
std::string AuthzE2E::dir_;
std::string AuthzE2E::alice_;

TEST_F(AuthzE2E, AnonymousReachesOnlyPublicInfo) {
  auto health = RawHttps(server_->port(), {"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"});
  EXPECT_EQ(HttpStatusOf(health.response), 200) << health.response;
  auto version = RawHttps(server_->port(), {"GET /version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"});
  EXPECT_EQ(HttpStatusOf(version.response), 200);
  auto pods = RawHttps(server_->port(), {"GET /api/v1/namespaces/default/pods HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"});
  EXPECT_EQ(HttpStatusOf(pods.response), 403);
  EXPECT_NE(pods.response.find(R"(pods is forbidden: User \"system:anonymous\" cannot list resource \"pods\" in API group \"\" in the namespace \"default\")"),
            std::string::npos)
      << pods.response;
}

TEST_F(AuthzE2E, BootstrapPolicyIsPresent) {
  auto r = Admin({"get", "clusterroles", "cluster-admin", "admin", "edit", "view", "system:discovery",
                  "system:public-info-viewer", "system:node", "-o", "name"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto b = Admin({"get", "clusterrolebindings", "cluster-admin", "system:public-info-viewer", "system:basic-user"});
  EXPECT_EQ(b.exit_code, 0) << b.err;
  EXPECT_NE(b.out.find("ClusterRole/cluster-admin"), std::string::npos) << b.out;
}

TEST_F(AuthzE2E, ForbiddenThenAllowedAfterRoleBinding) {
  auto denied = As(alice_, {"get", "configmaps", "-n", "default"});
  EXPECT_NE(denied.exit_code, 0);
  EXPECT_NE(denied.err.find("Error from server (Forbidden): configmaps is forbidden: User \"alice\" cannot list "
                            "resource \"configmaps\" in API group \"\" in the namespace \"default\""),
            std::string::npos)
      << denied.err;
  ASSERT_EQ(Admin({"create", "clusterrole", "cm-reader", "--verb=get,list,watch", "--resource=configmaps"}).exit_code, 0);
  auto rb = Admin({"create", "rolebinding", "alice-cm", "--clusterrole=cm-reader", "--user=alice", "-n", "default"});
  ASSERT_EQ(rb.exit_code, 0) << rb.err;
  EXPECT_TRUE(Eventually([&] { return As(alice_, {"get", "configmaps", "-n", "default"}).exit_code == 0; }));
  // Only in that namespace.
  auto other = As(alice_, {"get", "configmaps", "-n", "kube-system"});
  EXPECT_NE(other.exit_code, 0);
  EXPECT_NE(other.err.find("in the namespace \"kube-system\""), std::string::npos) << other.err;
  auto wide = Admin({"get", "rolebinding", "alice-cm", "-n", "default", "-o", "wide"});
  EXPECT_NE(wide.out.find("ClusterRole/cm-reader"), std::string::npos) << wide.out;
  EXPECT_NE(wide.out.find("alice"), std::string::npos) << wide.out;
}

TEST_F(AuthzE2E, EscalationIsRefused) {
  ASSERT_EQ(Admin({"create", "role", "rbac-editor", "--verb=create,get,list,update", "--resource=roles,rolebindings",
                   "-n", "default"})
                .exit_code,
            0);
  ASSERT_EQ(Admin({"create", "rolebinding", "alice-rbac", "--role=rbac-editor", "--user=alice", "-n", "default"}).exit_code,
            0);
  ASSERT_TRUE(Eventually([&] { return As(alice_, {"get", "roles", "-n", "default"}).exit_code == 0; }));
  auto esc = As(alice_, {"create", "role", "secret-reader", "--verb=get", "--resource=secrets", "-n", "default"});
  EXPECT_NE(esc.exit_code, 0);
  EXPECT_NE(esc.err.find("roles.rbac.authorization.k8s.io \"secret-reader\" is forbidden: user \"alice\" "
                         "(groups=[\"devs\" \"system:authenticated\"]) is attempting to grant RBAC permissions not "
                         "currently held:"),
            std::string::npos)
      << esc.err;
  auto bind = As(alice_, {"create", "rolebinding", "alice-admin", "--clusterrole=cluster-admin", "--user=alice", "-n",
                          "default"});
  EXPECT_NE(bind.exit_code, 0);
  EXPECT_NE(bind.err.find("is attempting to grant RBAC permissions not currently held"), std::string::npos) << bind.err;
  // Within what she holds (rbac-editor's own rules) it is fine.
  auto ok = As(alice_, {"create", "role", "roles-reader", "--verb=get", "--resource=roles", "-n", "default"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST_F(AuthzE2E, CanIWithJsonAndProtobufClients) {
  for (const char* minor : {"31", "33"}) {
    auto yes = Admin({"auth", "can-i", "delete", "nodes"}, minor);
    EXPECT_EQ(yes.exit_code, 0) << minor << yes.err;
    EXPECT_EQ(yes.out, "yes\n");
    auto as_bob = Admin({"auth", "can-i", "create", "pods", "--as=bob", "-n", "default"}, minor);
    EXPECT_EQ(as_bob.exit_code, 1) << minor << as_bob.err;
    EXPECT_EQ(as_bob.out, "no\n");
    auto self = As(alice_, {"auth", "can-i", "create", "selfsubjectaccessreviews.authorization.k8s.io"}, minor);
    EXPECT_EQ(self.out, "yes\n") << minor << self.err;
    auto list = As(alice_, {"auth", "can-i", "--list", "-n", "default"}, minor);
    EXPECT_EQ(list.exit_code, 0) << minor << list.err;
    EXPECT_NE(list.out.find("selfsubjectaccessreviews.authorization.k8s.io"), std::string::npos) << list.out;
    EXPECT_NE(list.out.find("/healthz"), std::string::npos) << list.out;
  }
  EXPECT_TRUE(Eventually([&] { return As(alice_, {"auth", "can-i", "list", "configmaps", "-n", "default"}).out == "yes\n"; }));
  auto list = As(alice_, {"auth", "can-i", "--list", "-n", "default"}, "33");
  EXPECT_NE(list.out.find("configmaps"), std::string::npos) << list.out;
}

TEST_F(AuthzE2E, SubjectAccessReviewsAnswerForOtherUsers) {
  auto post = [&](const std::string& path, const std::string& body) {
    std::string req = "POST " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n"
                      "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    return RawHttps(server_->port(), {req}, server_->data_dir() + "/pki/admin.crt", server_->data_dir() + "/pki/admin.key")
        .response;
  };
  auto sar = post("/apis/authorization.k8s.io/v1/subjectaccessreviews",
                  R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"someone",
                      "groups":["system:authenticated"],"nonResourceAttributes":{"path":"/version","verb":"get"}}})");
  EXPECT_EQ(HttpStatusOf(sar), 201) << sar;
  EXPECT_NE(sar.find(R"("allowed":true)"), std::string::npos) << sar;
  EXPECT_NE(sar.find(R"(RBAC: allowed by ClusterRoleBinding \"system:discovery\" of ClusterRole \"system:discovery\" to Group \"system:authenticated\")"),
            std::string::npos)
      << sar;
  auto no = post("/apis/authorization.k8s.io/v1/subjectaccessreviews",
                 R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"someone",
                     "resourceAttributes":{"verb":"delete","resource":"secrets","namespace":"default"}}})");
  EXPECT_NE(no.find(R"("allowed":false)"), std::string::npos) << no;
  auto invalid = post("/apis/authorization.k8s.io/v1/subjectaccessreviews",
                      R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"resourceAttributes":{"verb":"get"}}})");
  EXPECT_EQ(HttpStatusOf(invalid), 422) << invalid;
  EXPECT_NE(invalid.find(R"(spec.user: Invalid value: \"\": at least one of user or group must be specified)"),
            std::string::npos)
      << invalid;
  auto local = post("/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews",
                    R"({"apiVersion":"authorization.k8s.io/v1","kind":"LocalSubjectAccessReview","metadata":{"namespace":"default"},
                        "spec":{"user":"someone","resourceAttributes":{"verb":"get","resource":"pods","namespace":"other"}}})");
  EXPECT_EQ(HttpStatusOf(local), 422) << local;
  EXPECT_NE(local.find("must match metadata.namespace"), std::string::npos) << local;
}

TEST_F(AuthzE2E, AggregatedViewGainsLabelledRoles) {
  // view is the union of system:aggregate-to-view and any role labelled aggregate-to-view.
  EXPECT_TRUE(Eventually([&] {
    auto r = Admin({"get", "clusterrole", "view", "-o", "jsonpath={.rules[*].resources}"});
    return r.out.find("pods") != std::string::npos;
  }));
  std::string manifest = R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole",
    "metadata":{"name":"widgets-view","labels":{"rbac.authorization.k8s.io/aggregate-to-view":"true"}},
    "rules":[{"apiGroups":["example.com"],"resources":["widgets"],"verbs":["get"]}]})";
  ASSERT_EQ(server_->Kubectl({"create", "-f", "-"}, manifest, "31").exit_code, 0);
  EXPECT_TRUE(Eventually([&] {
    auto r = Admin({"get", "clusterrole", "view", "-o", "jsonpath={.rules[*].resources}"});
    return r.out.find("widgets") != std::string::npos;
  }));
  // edit and admin aggregate view in turn.
  EXPECT_TRUE(Eventually([&] {
    auto r = Admin({"get", "clusterrole", "admin", "-o", "jsonpath={.rules[*].resources}"});
    return r.out.find("widgets") != std::string::npos;
  }));
  ASSERT_EQ(Admin({"create", "rolebinding", "alice-view", "--clusterrole=view", "--user=alice", "-n", "kube-public"})
                .exit_code,
            0);
  EXPECT_TRUE(Eventually([&] { return As(alice_, {"get", "pods", "-n", "kube-public"}).exit_code == 0; }));
}

TEST(AuthzModesE2E, AlwaysAllowAndAlwaysDeny) {
  ServerProcess allow({"--authorization-mode=AlwaysAllow"});
  ASSERT_TRUE(allow.ok()) << allow.error();
  auto pods = RawHttps(allow.port(), {"GET /api/v1/namespaces/default/pods HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"});
  EXPECT_EQ(HttpStatusOf(pods.response), 200) << pods.response;
  allow.Stop();
  // AlwaysDeny has no opinion (as kube's), so RBAC after it still answers the readiness probe.
  ServerProcess deny({"--authorization-mode=AlwaysDeny,RBAC"});
  ASSERT_TRUE(deny.ok()) << deny.error();
  auto r = RawHttps(deny.port(), {"GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"});
  auto ready = RawHttps(deny.port(), {"GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"});
  EXPECT_EQ(HttpStatusOf(ready.response), 200) << ready.response;
  EXPECT_EQ(HttpStatusOf(r.response), 403);
  EXPECT_NE(r.response.find("Everything is forbidden."), std::string::npos) << r.response;
  // The admin (system:masters) is allowed whatever the mode.
  EXPECT_EQ(deny.Kubectl({"get", "ns"}).exit_code, 0);
}

TEST(AuthzModesE2E, AbacPolicyFile) {
  std::string dir = MakeTempDir("capstan-authz-abac");
  {
    std::ofstream f(dir + "/policy.jsonl");
    f << "# anonymous may read configmaps in default\n"
      << R"({"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "system:anonymous", "namespace": "default", "resource": "configmaps", "apiGroup": "", "readonly": true}})"
      << "\n";
  }
  ServerProcess abac({"--authorization-mode=ABAC,RBAC", "--authorization-policy-file=" + dir + "/policy.jsonl"});
  ASSERT_TRUE(abac.ok()) << abac.error();
  auto cms = RawHttps(abac.port(), {"GET /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"});
  EXPECT_EQ(HttpStatusOf(cms.response), 200) << cms.response;
  auto other = RawHttps(abac.port(), {"GET /api/v1/namespaces/kube-system/configmaps HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"});
  EXPECT_EQ(HttpStatusOf(other.response), 403);
  EXPECT_NE(other.response.find("No policy matched."), std::string::npos) << other.response;
  abac.Stop();

  // A malformed line stops the server at start with the file and line.
  {
    std::ofstream f(dir + "/bad.jsonl");
    f << "\n{\"user\": \"a\"}\n{oops\n";
  }
  const char* bin = std::getenv("CAPSTAN_BINARY");
  auto r = RunCommand({bin ? bin : "build/capstan", "--data-dir", dir + "/data", "--secure-port", "0",
                       "--authorization-mode=ABAC", "--authorization-policy-file=" + dir + "/bad.jsonl"},
                      "", std::chrono::seconds(60));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE((r.out + r.err).find("error reading policy file " + dir + "/bad.jsonl, line 3: {oops"), std::string::npos)
      << r.err;
}

TEST(AuthzModesE2E, WebhookDecides) {
  authn::testing::TestCa ca;
  std::atomic<int> calls{0};
  authn::testing::TestHttpsServer webhook(ca, [&](const http::HttpRequest& req) {
    calls++;
    boost::json::object review = boost::json::parse(req.body).as_object();
    const auto& spec = review["spec"].as_object();
    bool allowed = false;
    if (const auto* ra = spec.if_contains("resourceAttributes")) {
      allowed = spec.at("user").as_string() == "system:anonymous" && ra->at("resource").as_string() == "configmaps" &&
                ra->at("namespace").as_string() == "default";
    }
    review["status"] = boost::json::object{{"allowed", allowed}, {"reason", allowed ? "webhook says yes" : "webhook says no"}};
    return authn::testing::JsonReply(200, boost::json::serialize(review));
  });
  ASSERT_TRUE(webhook.ok());
  std::string dir = MakeTempDir("capstan-authz-webhook");
  {
    std::ofstream ca_file(dir + "/ca.crt");
    ca_file << ca.pem();
    std::ofstream kc(dir + "/webhook.kubeconfig");
    kc << "apiVersion: v1\nkind: Config\nclusters:\n- name: w\n  cluster:\n    server: " << webhook.url("/authorize")
       << "\n    certificate-authority: " << dir << "/ca.crt\nusers:\n- name: api\n  user: {}\ncontexts:\n- name: c\n"
       << "  context:\n    cluster: w\n    user: api\ncurrent-context: c\n";
  }
  ServerProcess server({"--authorization-mode=Webhook,RBAC", "--authorization-webhook-config-file=" + dir + "/webhook.kubeconfig",
                        "--authorization-webhook-version=v1"});
  ASSERT_TRUE(server.ok()) << server.error();
  auto cms = RawHttps(server.port(), {"GET /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"});
  EXPECT_EQ(HttpStatusOf(cms.response), 200) << cms.response;
  auto other = RawHttps(server.port(), {"GET /api/v1/namespaces/kube-system/configmaps HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"});
  EXPECT_EQ(HttpStatusOf(other.response), 403);
  EXPECT_NE(other.response.find("webhook says no"), std::string::npos) << other.response;
  EXPECT_GE(calls.load(), 2);
}


TEST(AuthzModesE2E, UnreachableWebhookWithoutAnAllowIsAnInternalError) {
  // A webhook on a port nothing listens on: RBAC still allows what it allows (anonymous /readyz), and
  // what no authorizer allows fails with kube's plain-text 500, not a 403.
  authn::testing::TestCa ca;
  std::string dir = MakeTempDir("capstan-authz-webhook-down");
  {
    std::ofstream ca_file(dir + "/ca.crt");
    ca_file << ca.pem();
    std::ofstream kc(dir + "/webhook.kubeconfig");
    kc << "apiVersion: v1\nkind: Config\nclusters:\n- name: w\n  cluster:\n    server: https://127.0.0.1:1/authorize"
       << "\n    certificate-authority: " << dir << "/ca.crt\nusers:\n- name: api\n  user: {}\ncontexts:\n- name: c\n"
       << "  context:\n    cluster: w\n    user: api\ncurrent-context: c\n";
  }
  ServerProcess server({"--authorization-mode=Webhook,RBAC", "--authorization-webhook-config-file=" + dir + "/webhook.kubeconfig"});
  ASSERT_TRUE(server.ok()) << server.error();
  auto ready = RawHttps(server.port(), {"GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"});
  EXPECT_EQ(HttpStatusOf(ready.response), 200) << ready.response;
  auto cms = RawHttps(server.port(), {"GET /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"});
  EXPECT_EQ(HttpStatusOf(cms.response), 500) << cms.response;
  EXPECT_NE(cms.response.find("Internal Server Error: \"/api/v1/namespaces/default/configmaps\": "), std::string::npos)
      << cms.response;
}

// A kubeconfig for a webhook at `url` trusting `ca`.
std::string WriteWebhookKubeconfig(const std::string& dir, const std::string& name, const std::string& url,
                                   const authn::testing::TestCa& ca) {
  std::ofstream(dir + "/ca.crt") << ca.pem();
  std::string path = dir + "/" + name;
  std::ofstream(path) << "apiVersion: v1\nkind: Config\nclusters:\n- name: w\n  cluster:\n    server: " << url
                      << "\n    certificate-authority: " << dir << "/ca.crt\nusers:\n- name: api\n  user: {}\ncontexts:\n"
                      << "- name: c\n  context:\n    cluster: w\n    user: api\ncurrent-context: c\n";
  return path;
}

std::string WebhookEntry(const std::string& name, const std::string& kubeconfig, const std::string& policy,
                         const std::string& condition) {
  return "- type: Webhook\n  name: " + name + "\n  webhook:\n    timeout: 3s\n    authorizedTTL: 1s\n"
         "    unauthorizedTTL: 1s\n    subjectAccessReviewVersion: v1\n"
         "    matchConditionSubjectAccessReviewVersion: v1\n    failurePolicy: " + policy +
         "\n    connectionInfo:\n      type: KubeConfigFile\n      kubeConfigFile: " + kubeconfig +
         "\n    matchConditions:\n    - expression: has(request.resourceAttributes)\n    - expression: \"" + condition + "\"\n";
}

// A webhook answering every review with `allowed` (or denied) and `reason`, counting its calls.
struct CountingWebhook {
  CountingWebhook(const authn::testing::TestCa& ca, bool allow, std::string reason)
      : server(ca, [this, allow, reason](const http::HttpRequest& req) {
          calls++;
          boost::json::object review = boost::json::parse(req.body).as_object();
          boost::json::object status{{"allowed", allow}, {"reason", reason}};
          if (!allow) status["denied"] = true;
          review["status"] = std::move(status);
          return authn::testing::JsonReply(200, boost::json::serialize(review));
        }) {}
  std::atomic<int> calls{0};
  authn::testing::TestHttpsServer server;
};

TEST(AuthzConfigE2E, WebhooksChosenByMatchConditionsReloadAndFailClosed) {
  authn::testing::TestCa ca;
  CountingWebhook denier(ca, false, "no secrets for you");
  CountingWebhook allower(ca, true, "team webhook says yes");
  ASSERT_TRUE(denier.server.ok() && allower.server.ok());
  std::string dir = MakeTempDir("capstan-authz-config");
  std::string deny_kc = WriteWebhookKubeconfig(dir, "deny.kubeconfig", denier.server.url("/authorize"), ca);
  std::string allow_kc = WriteWebhookKubeconfig(dir, "allow.kubeconfig", allower.server.url("/authorize"), ca);
  std::string down_kc = WriteWebhookKubeconfig(dir, "down.kubeconfig", "https://127.0.0.1:1/authorize", ca);
  const std::string head = "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n";
  const std::string tail = "- type: Node\n  name: node\n- type: RBAC\n  name: rbac\n";
  auto write = [&](const std::string& team) {
    std::string tmp = dir + "/authz.yaml.tmp";
    std::ofstream(tmp) << head
                       << WebhookEntry("no-secrets.example.com", deny_kc, "NoOpinion",
                                       "request.resourceAttributes.resource == 'secrets'")
                       << WebhookEntry("team.example.com", allow_kc, "NoOpinion",
                                       "request.resourceAttributes.namespace == '" + team + "'")
                       << WebhookEntry("locked.example.com", down_kc, "Deny",
                                       "request.resourceAttributes.namespace == 'locked'")
                       << WebhookEntry("labelled.example.com", allow_kc, "NoOpinion",
                                       "request.resourceAttributes.namespace == 'team-c' && "
                                       "has(request.resourceAttributes.labelSelector) && "
                                       "request.resourceAttributes.labelSelector.requirements.exists(r, r.key == 'app')")
                       << tail;
    std::filesystem::rename(tmp, dir + "/authz.yaml");
  };
  write("team-a");
  ServerProcess server({"--authorization-config=" + dir + "/authz.yaml"});
  ASSERT_TRUE(server.ok()) << server.error();
  auto as_alice = [&](std::vector<std::string> args) {
    args.push_back("--as=alice");
    return server.Kubectl(args, "", "32");
  };
  auto cms = as_alice({"get", "configmaps", "-n", "team-a"});
  EXPECT_EQ(cms.exit_code, 0) << cms.err;
  EXPECT_EQ(denier.calls.load(), 0);  // its condition (secrets) did not hold
  int allowed_calls = allower.calls.load();
  EXPECT_GE(allowed_calls, 1);
  auto secrets = as_alice({"get", "secrets", "-n", "team-a"});
  EXPECT_NE(secrets.exit_code, 0);
  EXPECT_NE(secrets.err.find("User \"alice\" cannot list resource \"secrets\" in API group \"\" in the namespace "
                             "\"team-a\": no secrets for you"),
            std::string::npos)
      << secrets.err;
  EXPECT_GE(denier.calls.load(), 1);
  // Neither webhook's conditions hold in team-b: RBAC decides (alice holds nothing).
  auto other = as_alice({"get", "configmaps", "-n", "team-b"});
  EXPECT_NE(other.exit_code, 0);
  EXPECT_NE(other.err.find("Forbidden"), std::string::npos) << other.err;
  EXPECT_EQ(allower.calls.load(), allowed_calls);
  // The list's label selector reaches the webhook's matchConditions (AuthorizeWithSelectors).
  auto labelled = as_alice({"get", "configmaps", "-n", "team-c", "-l", "app=web"});
  EXPECT_EQ(labelled.exit_code, 0) << labelled.err;
  EXPECT_NE(as_alice({"get", "configmaps", "-n", "team-c"}).exit_code, 0);
  // failurePolicy Deny with the webhook down: later authorizers are not asked, and the request fails
  // with the call's error (kube's 500).
  auto locked = as_alice({"get", "configmaps", "-n", "locked"});
  EXPECT_NE(locked.exit_code, 0);
  EXPECT_NE(locked.err.find("InternalError"), std::string::npos) << locked.err;

  // The file changes while serving: team-b is now the team webhook's.
  write("team-b");
  EXPECT_TRUE(PollFor([&] { return as_alice({"get", "configmaps", "-n", "team-b"}).exit_code == 0; },
                      std::chrono::seconds(20)))
      << server.log();
  EXPECT_NE(as_alice({"get", "configmaps", "-n", "team-a"}).exit_code, 0);
  // An invalid file keeps the chain in effect.
  std::ofstream(dir + "/authz.yaml") << head << "- type: Webhook\n  name: broken\n";
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_EQ(as_alice({"get", "configmaps", "-n", "team-b"}).exit_code, 0);
  auto metrics = server.Kubectl({"get", "--raw", "/metrics"});
  EXPECT_TRUE(MetricSample(metrics.out, "apiserver_authorization_config_controller_automatic_reloads_total",
                           {"status=\"success\""}));
  EXPECT_TRUE(MetricSample(metrics.out, "apiserver_authorization_config_controller_automatic_reloads_total",
                           {"status=\"failure\""}));
  EXPECT_NE(metrics.out.find("apiserver_authorization_match_condition_exclusions_total{name=\"no-secrets.example.com\",type=\"Webhook\"}"),
            std::string::npos);
  EXPECT_NE(server.log().find("reloading authorization config"), std::string::npos);
}

TEST(AuthzConfigE2E, StartUpErrorsAreKubes) {
  std::string dir = MakeTempDir("capstan-authz-config-bad");
  std::ofstream(dir + "/authz.yaml") << "apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthorizationConfiguration\n"
                                     << "authorizers:\n- type: RBAC\n  name: rbac\n- type: RBAC\n  name: rbac\n";
  auto start = [&](std::vector<std::string> flags) {
    std::vector<std::string> argv = {Binary(), "--data-dir", dir + "/data", "--secure-port", "0"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    auto r = RunCommand(argv, "", std::chrono::seconds(60));
    return std::make_pair(r.exit_code, r.out + r.err);
  };
  auto [code, out] = start({"--authorization-config=" + dir + "/authz.yaml"});
  EXPECT_NE(code, 0);
  EXPECT_NE(out.find("authorizers[1].type: Duplicate value: \"RBAC\""), std::string::npos) << out;
  auto [code2, out2] = start({"--authorization-config=" + dir + "/authz.yaml", "--authorization-mode=RBAC"});
  EXPECT_NE(code2, 0);
  EXPECT_NE(out2.find("--authorization-config can not be specified when --authorization-mode or "
                      "--authorization-webhook-* flags are defined"),
            std::string::npos)
      << out2;
  auto [code3, out3] = start({"--authorization-config=" + dir + "/missing.yaml"});
  EXPECT_NE(code3, 0);
  EXPECT_NE(out3.find("open " + dir + "/missing.yaml: no such file or directory"), std::string::npos) << out3;
}

}  // namespace
}  // namespace capstan::e2e
