// End-to-end auditing: the real build/capstan with --audit-policy-file and --audit-log-path, driven by
// real kubectl; the audit log holds one JSON line per stage with the level the policy gives each
// request (RequestResponse for configmaps with both objects, Metadata for secrets, nothing for the
// health checks), kube's fields, the Audit-Id header's value as auditID, and the authorization
// annotations. A second server writes its events to standard output (--audit-log-path=-).
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>
#include <sstream>

#include "e2e_util.h"

namespace capstan::e2e {
namespace {

namespace json = boost::json;

const char* kPolicy = R"(apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: None
    nonResourceURLs: ["/readyz*", "/healthz*", "/livez*"]
  - level: None
    users: ["system:kube-controller-manager"]
  - level: RequestResponse
    resources:
      - group: ""
        resources: ["configmaps"]
  - level: Metadata
    resources:
      - group: ""
        resources: ["secrets"]
  - level: Request
    verbs: ["delete"]
  - level: Metadata
    omitStages: ["ResponseComplete"]
)";

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<json::object> Events(const std::string& text) {
  std::vector<json::object> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("\"kind\":\"Event\"") == std::string::npos) continue;
    size_t start = line.find('{');
    out.push_back(json::parse(line.substr(start)).as_object());
  }
  return out;
}

std::string S(const json::object& o, std::initializer_list<const char*> path) {
  const json::value* v = nullptr;
  const json::object* cur = &o;
  for (const char* p : path) {
    v = cur->if_contains(p);
    if (!v) return "";
    if (v->is_object()) cur = &v->as_object();
  }
  if (!v) return "";
  if (v->is_string()) return std::string(v->as_string());
  return json::serialize(*v);
}

TEST(AuditE2eTest, PolicyLevelsReachTheLogFile) {
  std::string dir = MakeTempDir("capstan-audit-e2e");
  std::string policy = dir + "/policy.yaml";
  std::ofstream(policy) << kPolicy;
  std::string log = dir + "/logs/audit.log";
  ServerProcess server({"--audit-policy-file=" + policy, "--audit-log-path=" + log, "--audit-log-maxsize=10",
                        "--audit-log-maxbackup=2"});
  ASSERT_TRUE(server.ok()) << server.error();

  auto created = server.Kubectl({"create", "configmap", "audited", "--from-literal=color=blue"});  // protobuf body
  ASSERT_EQ(created.exit_code, 0) << created.err;
  auto secrets = server.Kubectl({"get", "secrets", "-n", "kube-system"});
  ASSERT_EQ(secrets.exit_code, 0) << secrets.err;
  auto missing = server.Kubectl({"get", "configmap", "nope"});
  ASSERT_NE(missing.exit_code, 0);
  auto ns = server.Kubectl({"get", "namespaces"});
  ASSERT_EQ(ns.exit_code, 0) << ns.err;
  auto traced = server.Kubectl({"get", "configmap", "audited", "-v=8"});
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  // A token that does not authenticate: kube audits the attempt (one ResponseStarted event, no user),
  // and the 401 carries an Audit-Id too.
  auto bad = RunCommand({KubectlPath(), "--server", "https://127.0.0.1:" + std::to_string(server.port()),
                         "--insecure-skip-tls-verify", "--token", "not-a-token", "get", "configmaps", "-v=8"});
  ASSERT_NE(bad.exit_code, 0);
  size_t bad_at = bad.err.find("Audit-Id: ");
  ASSERT_NE(bad_at, std::string::npos) << bad.err;
  const std::string bad_id = bad.err.substr(bad_at + 10, 36);
  ASSERT_EQ(server.Stop(), 0);  // the buffered events are written on shutdown

  auto events = Events(ReadAll(log));
  ASSERT_FALSE(events.empty());
  const json::object* create = nullptr;
  const json::object* list_secrets = nullptr;
  const json::object* get_missing = nullptr;
  int namespaces_events = 0;
  for (const auto& e : events) {
    EXPECT_EQ(S(e, {"apiVersion"}), "audit.k8s.io/v1");
    EXPECT_NE(S(e, {"stage"}), "RequestReceived");  // omitted by the policy
    EXPECT_EQ(S(e, {"requestURI"}).rfind("/readyz", 0), std::string::npos);
    EXPECT_NE(S(e, {"user", "username"}), "system:kube-controller-manager");
    std::string res = S(e, {"objectRef", "resource"});
    if (S(e, {"verb"}) == "create" && res == "configmaps" && S(e, {"objectRef", "name"}) == "audited") create = &e;
    if (S(e, {"verb"}) == "list" && res == "secrets") list_secrets = &e;
    if (S(e, {"verb"}) == "get" && res == "configmaps" && S(e, {"objectRef", "name"}) == "nope") get_missing = &e;
    if (res == "namespaces") ++namespaces_events;
  }
  ASSERT_NE(create, nullptr) << ReadAll(log);
  EXPECT_EQ(S(*create, {"level"}), "RequestResponse");
  EXPECT_EQ(S(*create, {"stage"}), "ResponseComplete");
  EXPECT_EQ(S(*create, {"user", "username"}), "kubernetes-admin");
  EXPECT_EQ(S(*create, {"objectRef", "namespace"}), "default");
  EXPECT_EQ(S(*create, {"objectRef", "apiVersion"}), "v1");
  EXPECT_EQ(S(*create, {"responseStatus", "code"}), "201");
  EXPECT_EQ(S(*create, {"requestObject", "data", "color"}), "blue");  // decoded from kubectl's protobuf
  EXPECT_EQ(S(*create, {"responseObject", "data", "color"}), "blue");
  EXPECT_EQ(S(*create, {"annotations", "authorization.k8s.io/decision"}), "allow");
  EXPECT_EQ(S(*create, {"sourceIPs"}), "[\"127.0.0.1\"]");
  EXPECT_EQ(S(*create, {"userAgent"}).rfind("kubectl", 0), 0u);
  EXPECT_EQ(S(*create, {"auditID"}).size(), 36u);
  EXPECT_NE(S(*create, {"requestReceivedTimestamp"}).find('.'), std::string::npos);

  ASSERT_NE(list_secrets, nullptr);
  EXPECT_EQ(S(*list_secrets, {"level"}), "Metadata");
  EXPECT_FALSE(list_secrets->contains("requestObject"));
  EXPECT_FALSE(list_secrets->contains("responseObject"));

  ASSERT_NE(get_missing, nullptr);
  EXPECT_EQ(S(*get_missing, {"responseStatus", "code"}), "404");
  EXPECT_EQ(S(*get_missing, {"responseStatus", "reason"}), "NotFound");
  EXPECT_EQ(S(*get_missing, {"responseStatus", "message"}), "configmaps \"nope\" not found");

  // The catch-all rule omits ResponseComplete, and namespaces are read without a watch: nothing.
  EXPECT_EQ(namespaces_events, 0);
  // The Audit-Id header kubectl saw is the auditID of that request's event.
  size_t at = traced.err.find("Audit-Id: ");
  ASSERT_NE(at, std::string::npos) << traced.err;
  std::string id = traced.err.substr(at + 10, 36);
  bool found = false;
  for (const auto& e : events) {
    if (S(e, {"auditID"}) == id) {
      found = true;
      EXPECT_EQ(S(e, {"verb"}), "get");
      EXPECT_EQ(S(e, {"objectRef", "name"}), "audited");
    }
  }
  EXPECT_TRUE(found) << id;
  const json::object* failed = nullptr;
  for (const auto& e : events) {
    if (S(e, {"auditID"}) == bad_id) {
      EXPECT_EQ(failed, nullptr) << "one event for a failed authentication";
      failed = &e;
    }
  }
  ASSERT_NE(failed, nullptr) << bad_id;
  EXPECT_EQ(S(*failed, {"stage"}), "ResponseStarted");
  EXPECT_EQ(S(*failed, {"level"}), "RequestResponse");  // the configmaps rule, matched with no user
  EXPECT_EQ(S(*failed, {"user"}), "{}");
  EXPECT_EQ(S(*failed, {"responseStatus"}),
            R"({"metadata":{},"message":"Authentication failed, attempted: bearer","code":401})");
  EXPECT_FALSE(failed->contains("requestObject"));
}

TEST(AuditE2eTest, StandardOutputBackend) {
  std::string dir = MakeTempDir("capstan-audit-stdout");
  std::string policy = dir + "/policy.yaml";
  std::ofstream(policy) << "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  resources: [{group: \"\", resources: [configmaps]}]\n";
  ServerProcess server({"--audit-policy-file=" + policy, "--audit-log-path=-"});
  ASSERT_TRUE(server.ok()) << server.error();
  auto r = server.Kubectl({"get", "configmaps", "-A"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(server.Stop(), 0);
  auto events = Events(server.log());
  bool found = false;
  for (const auto& e : events) {
    if (S(e, {"verb"}) == "list" && S(e, {"objectRef", "resource"}) == "configmaps" && S(e, {"stage"}) == "ResponseComplete") {
      found = true;
      EXPECT_EQ(S(e, {"level"}), "Metadata");
    }
  }
  EXPECT_TRUE(found) << server.log();
}

TEST(AuditE2eTest, BadPolicyStopsTheServerWithKubesMessage) {
  std::string dir = MakeTempDir("capstan-audit-bad");
  std::string policy = dir + "/policy.yaml";
  std::ofstream(policy) << "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Loud\n";
  ServerProcess server({"--audit-policy-file=" + policy, "--audit-log-path=" + dir + "/a.log"});
  EXPECT_FALSE(server.ok());
  EXPECT_NE(server.log().find("rules[0].level: Unsupported value"), std::string::npos) << server.log();
  EXPECT_NE(server.log().find("Loud"), std::string::npos) << server.log();
}

}  // namespace
}  // namespace capstan::e2e
