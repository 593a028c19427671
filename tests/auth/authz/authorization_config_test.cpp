// AuthorizationConfiguration as kube 1.32 reads it: decoding (v1/v1beta1/v1alpha1, strict), the
// defaults, ValidateAuthorizationConfiguration's texts, kube-apiserver's name and reload checks; and
// webhook matchConditions compiled and evaluated over a request's SubjectAccessReview spec.
#include "auth/authz/authorization_config.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "auth/authz/webhook_match_conditions.h"

namespace capstan::authz {
namespace {

// A kubeconfig path that exists (validation stats it).
std::string ExistingFile() {
  static const std::string path = [] {
    char tmpl[] = "/tmp/capstan-authz-config-XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd >= 0) close(fd);
    return std::string(tmpl);
  }();
  return path;
}

std::string Webhook(const std::string& name, const std::string& extra = "") {
  return "- type: Webhook\n  name: " + name +
         "\n  webhook:\n    timeout: 3s\n    subjectAccessReviewVersion: v1\n    failurePolicy: Deny\n"
         "    connectionInfo:\n      type: KubeConfigFile\n      kubeConfigFile: " +
         ExistingFile() + "\n" + extra;
}

std::string Config(const std::string& authorizers, const std::string& version = "v1") {
  return "apiVersion: apiserver.config.k8s.io/" + version + "\nkind: AuthorizationConfiguration\nauthorizers:\n" +
         authorizers;
}

std::string Error(const std::string& data, const std::set<std::string>& required = {}) {
  auto c = LoadAuthorizationConfiguration(data, required);
  return c.ok() ? "ok" : c.status().message();
}

TEST(AuthorizationConfig, DecodesEveryVersionWithDefaults) {
  for (const char* v : {"v1", "v1beta1", "v1alpha1"}) {
    auto c = LoadAuthorizationConfiguration(
        Config("- type: Node\n  name: node\n" +
                   Webhook("first.example.com", "    matchConditionSubjectAccessReviewVersion: v1\n"
                                                "    matchConditions:\n    - expression: has(request.resourceAttributes)\n") +
                   Webhook("second") + "- type: RBAC\n  name: rbac\n",
               v));
    ASSERT_TRUE(c.ok()) << v << ": " << c.status().message();
    ASSERT_EQ(c->authorizers.size(), 4u);
    EXPECT_EQ(c->authorizers[0].type, "Node");
    const auto& w = *c->authorizers[1].webhook;
    EXPECT_EQ(c->authorizers[1].name, "first.example.com");
    EXPECT_EQ(w.timeout, std::chrono::seconds(3));
    EXPECT_EQ(w.authorized_ttl, std::chrono::minutes(5));
    EXPECT_EQ(w.unauthorized_ttl, std::chrono::seconds(30));
    EXPECT_EQ(w.failure_policy, "Deny");
    EXPECT_EQ(*w.kubeconfig_file, ExistingFile());
    EXPECT_EQ(w.match_conditions, std::vector<std::string>{"has(request.resourceAttributes)"});
    EXPECT_EQ(c->authorizers[3].name, "rbac");
  }
}

TEST(AuthorizationConfig, DecodingErrorsAreKubes) {
  EXPECT_EQ(Error(Config("- type: RBAC\n  name: rbac\n  color: blue\n")),
            "failed to load AuthorizationConfiguration from file: strict decoding error: unknown field "
            "\"authorizers[0].color\"");
  EXPECT_EQ(Error("apiVersion: apiserver.config.k8s.io/v2\nkind: AuthorizationConfiguration\n"),
            "failed to load AuthorizationConfiguration from file: no kind \"AuthorizationConfiguration\" is registered "
            "for version \"apiserver.config.k8s.io/v2\" in scheme \"k8s.io/apiserver/pkg/apis/apiserver/load/load.go:32\"");
  EXPECT_EQ(Error(Config(Webhook("w", "    authorizedTTL: soon\n"))),
            "failed to load AuthorizationConfiguration from file: time: invalid duration \"soon\"");
  EXPECT_EQ(Error(Config("- type: 5\n  name: rbac\n")),
            "failed to load AuthorizationConfiguration from file: json: cannot unmarshal number into Go struct field "
            "AuthorizerConfiguration.authorizers.type of type v1.AuthorizerType");
}

TEST(AuthorizationConfig, ValidationErrorsAreKubes) {
  EXPECT_EQ(Error("apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\n"),
            "authorizers: Required value: at least one authorization mode must be defined");
  EXPECT_EQ(Error(Config("- type: Magic\n  name: magic\n")),
            "authorizers[0].type: Unsupported value: \"Magic\": supported values: \"ABAC\", \"AlwaysAllow\", "
            "\"AlwaysDeny\", \"Node\", \"RBAC\", \"Webhook\"");
  EXPECT_EQ(Error(Config("- type: RBAC\n  name: rbac\n- type: RBAC\n  name: rbac2\n")),
            "authorizers[1].type: Duplicate value: \"RBAC\"");
  EXPECT_EQ(Error(Config(Webhook("w") + Webhook("w"))), "authorizers[1].name: Duplicate value: \"w\"");
  EXPECT_EQ(Error(Config("- type: Webhook\n  name: w\n")), "authorizers[0].webhook: Required value: required when type=Webhook");
  // Webhook fields are reported under the authorizer, as kube reports them.
  EXPECT_EQ(Error(Config("- type: Webhook\n  name: w\n  webhook:\n    timeout: 45s\n    subjectAccessReviewVersion: v2\n"
                         "    failurePolicy: Ignore\n    connectionInfo:\n      type: KubeConfigFile\n      kubeConfigFile: relative\n")),
            "[authorizers[0].timeout: Invalid value: \"45s\": must be > 0s and <= 30s, "
            "authorizers[0].subjectAccessReviewVersion: Unsupported value: \"v2\": supported values: \"v1\", \"v1beta1\", "
            "authorizers[0].failurePolicy: Unsupported value: \"Ignore\": supported values: \"NoOpinion\", \"Deny\", "
            "authorizers[0].connectionInfo.kubeConfigFile: Invalid value: \"relative\": must be an absolute path]");
  EXPECT_EQ(Error(Config(Webhook("w", "    matchConditions:\n    - expression: \"true\"\n"))),
            "authorizers[0].matchConditionSubjectAccessReviewVersion: Required value: required if match conditions are "
            "specified");
  EXPECT_EQ(Error(Config(Webhook("w", "    matchConditionSubjectAccessReviewVersion: v1\n    matchConditions:\n"
                                      "    - expression: request.user\n"))),
            "authorizers[0].matchConditions[0].expression: Invalid value: \"request.user\": must evaluate to bool but "
            "got string");
  EXPECT_EQ(Error(Config("- type: RBAC\n  name: RBAC\n")), "authorizers[0].name: Invalid value: \"RBAC\": authorizer name "
                                                           "is invalid: a lowercase RFC 1123 subdomain must consist of lower "
                                                           "case alphanumeric characters, '-' or '.', and must start and end "
                                                           "with an alphanumeric character (e.g. 'example.com', regex used "
                                                           "for validation is "
                                                           "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
  EXPECT_EQ(Error(Config("- type: RBAC\n  name: my-rbac\n")), "expected name rbac for authorizer RBAC instead of my-rbac");
  // A reload may not drop a type the server started with.
  EXPECT_EQ(Error(Config(Webhook("w")), {"Node", "RBAC"}), "missing required types: [Node RBAC]");
}

Attributes Request(const std::string& user, const std::string& ns) {
  Attributes a;
  a.user.name = user;
  a.user.groups = {"devs"};
  a.verb = "get";
  a.resource_request = true;
  a.resource = "configmaps";
  a.api_version = "v1";
  a.namespace_ = ns;
  return a;
}

TEST(WebhookMatchConditions, AllTrueCallsAnyFalseSkipsErrorsDecide) {
  auto compiled = WebhookMatchConditions::Compile(
      {"has(request.resourceAttributes)", "request.resourceAttributes.namespace == 'team-a'", "'devs' in request.groups"},
      FieldPath());
  ASSERT_TRUE(compiled.errors.empty()) << AggregateMessage(compiled.errors);
  ASSERT_TRUE(compiled.conditions);
  EXPECT_TRUE(compiled.conditions->Match(Request("alice", "team-a")).matches);
  auto other = compiled.conditions->Match(Request("alice", "team-b"));
  EXPECT_FALSE(other.matches);
  EXPECT_EQ(other.error, "");
  Attributes non_resource;
  non_resource.verb = "get";
  non_resource.path = "/healthz";
  EXPECT_FALSE(compiled.conditions->Match(non_resource).matches);

  // An error with no false condition decides; a false one after an error still skips.
  auto erring = WebhookMatchConditions::Compile({"request.resourceAttributes.name.size() > 0 || request.extra['x'][0] == 'y'"},
                                                FieldPath());
  ASSERT_TRUE(erring.conditions);
  auto e = erring.conditions->Match(Request("bob", "team-a"));
  EXPECT_FALSE(e.matches);
  EXPECT_NE(e.error.find("cel evaluation error: expression 'request.resourceAttributes.name.size() > 0 || "
                         "request.extra['x'][0] == 'y'' resulted in error: "),
            std::string::npos)
      << e.error;
  auto then_false = WebhookMatchConditions::Compile({"request.extra['x'][0] == 'y'", "request.user == 'nobody'"}, FieldPath());
  auto f = then_false.conditions->Match(Request("bob", "team-a"));
  EXPECT_FALSE(f.matches);
  EXPECT_EQ(f.error, "");
}

TEST(WebhookMatchConditions, SeeTheListSelectors) {
  auto compiled = WebhookMatchConditions::Compile(
      {"has(request.resourceAttributes.fieldSelector) && request.resourceAttributes.fieldSelector.requirements.exists(r, "
       "r.key == 'spec.nodeName' && r.operator == 'In' && 'node-1' in r.values)"},
      FieldPath());
  ASSERT_TRUE(compiled.conditions) << AggregateMessage(compiled.errors);
  Attributes a = Request("node-agent", "default");
  a.verb = "list";
  EXPECT_FALSE(compiled.conditions->Match(a).matches);
  a.field_selector = "spec.nodeName=node-1";
  auto m = compiled.conditions->Match(a);
  EXPECT_TRUE(m.matches) << m.error;
}

TEST(WebhookMatchConditions, CompileChecks) {
  std::vector<std::string> many;
  for (int i = 0; i < 65; ++i) many.push_back("request.user == '" + std::to_string(i) + "'");
  auto too_many = WebhookMatchConditions::Compile(many, FieldPath("authorizers[0]"));
  ASSERT_EQ(too_many.errors.size(), 1u);
  EXPECT_EQ(too_many.errors[0].ToString(), "authorizers[0].matchConditions: Too many: 65: must have at most 64 items");
  auto bad = WebhookMatchConditions::Compile({" ", "true", "true", "request.nope"}, FieldPath());
  ASSERT_EQ(bad.errors.size(), 3u);
  EXPECT_EQ(bad.errors[0].ToString(), "matchConditions[0].expression: Required value");
  EXPECT_EQ(bad.errors[1].ToString(), "matchConditions[2].expression: Duplicate value: \"true\"");
  EXPECT_NE(bad.errors[2].ToString().find("matchConditions[3].expression: Invalid value: \"request.nope\": compilation "
                                          "failed: ERROR: <input>:1:8: undefined field 'nope'"),
            std::string::npos)
      << bad.errors[2].ToString();
  EXPECT_FALSE(bad.conditions);
}

}  // namespace
}  // namespace capstan::authz
