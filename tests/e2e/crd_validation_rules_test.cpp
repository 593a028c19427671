// End-to-end: CRD x-kubernetes-validations rules through the real kubectl (1.32 and 1.33). Gateway
// API's HTTPRoute CRD (v1.2.1, 148 rules) is accepted; valid HTTPRoutes are created and each
// violated rule is refused with kube's text; a CRD whose rule does not compile is a 422; transition
// rules (oldSelf) run on updates only; an unchanged invalid value is ratcheted after its rule is
// tightened while a changed one is refused (for the schema's own constraints as well); the status
// subresource runs its rules too.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "e2e_util.h"

namespace capstan::e2e {
namespace {

std::string ReadSource(const std::string& rel) {
  std::ifstream in(std::string(std::getenv("CAPSTAN_SOURCE_DIR")) + "/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const char* kValidRoute = R"(apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: good
spec:
  parentRefs:
  - name: gw
  hostnames: ["example.com"]
  rules:
  - matches:
    - path: {type: PathPrefix, value: /api}
    filters:
    - type: RequestHeaderModifier
      requestHeaderModifier:
        set: [{name: X-A, value: b}]
    backendRefs:
    - name: svc
      port: 80
)";

// A small CRD for transition rules, ratcheting and the status subresource.
std::string WidgetCrd(int max_replicas) {
  return R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "self.replicas <= )" + std::to_string(max_replicas) + R"("
              message: "too many replicas"
            properties:
              replicas: {type: integer, maximum: )" + std::to_string(max_replicas) + R"(}
              color: {type: string}
              owner:
                type: string
                x-kubernetes-validations:
                - rule: "self == oldSelf"
                  message: "owner is immutable"
          status:
            type: object
            properties:
              phase:
                type: string
                x-kubernetes-validations:
                - rule: "self in ['Pending', 'Ready']"
                  messageExpression: "'phase ' + self + ' is not known'"
)";
}

class CrdValidationRulesTest : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() { server_ = new ServerProcess(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(server_->ok()) << server_->error(); }
  CommandResult K(const std::vector<std::string>& args, const std::string& input = "") const {
    return server_->Kubectl(args, input, GetParam());
  }
  static ServerProcess* server_;
};
ServerProcess* CrdValidationRulesTest::server_ = nullptr;

TEST_P(CrdValidationRulesTest, GatewayHttpRoute) {
  auto crd = K({"apply", "--server-side", "-f", "-"}, ReadSource("tests/cel/testdata/gateway-api/httproutes.yaml"));
  ASSERT_EQ(crd.exit_code, 0) << crd.err;
  EXPECT_EQ(crd.err, "");  // no "not enforced" warning any more
  auto wait = K({"wait", "--for=condition=Established", "--timeout=20s", "crd/httproutes.gateway.networking.k8s.io"});
  ASSERT_EQ(wait.exit_code, 0) << wait.err;

  auto good = K({"apply", "-f", "-"}, kValidRoute);
  ASSERT_EQ(good.exit_code, 0) << good.err;
  EXPECT_EQ(good.out, "httproute.gateway.networking.k8s.io/good created\n");

  struct Case {
    std::string route;
    std::string want;
  };
  std::vector<Case> cases = {
      {R"(spec: {rules: [{matches: [{path: {type: PathPrefix, value: api}}]}]})",
       "The HTTPRoute \"bad\" is invalid: spec.rules[0].matches[0].path: Invalid value: \"object\": value must be an "
       "absolute path and start with '/' when type one of ['Exact', 'PathPrefix']"},
      {R"(spec: {rules: [{filters: [{type: RequestHeaderModifier}]}]})",
       "The HTTPRoute \"bad\" is invalid: spec.rules[0].filters[0]: Invalid value: \"object\": "
       "filter.requestHeaderModifier must be specified for RequestHeaderModifier filter.type"},
      {R"(spec: {parentRefs: [{name: gw}, {name: gw, sectionName: a}]})",
       "The HTTPRoute \"bad\" is invalid: spec.parentRefs: Invalid value: \"array\": sectionName must be specified when "
       "parentRefs includes 2 or more references to the same parent"},
      {R"(spec: {rules: [{backendRefs: [{name: svc}]}]})",
       "The HTTPRoute \"bad\" is invalid: spec.rules[0].backendRefs[0]: Invalid value: \"object\": Must have port for "
       "Service reference"},
  };
  for (const auto& c : cases) {
    std::string doc = "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: bad\n" + c.route + "\n";
    auto r = K({"apply", "-f", "-"}, doc);
    EXPECT_NE(r.exit_code, 0) << c.route;
    EXPECT_NE(r.err.find(c.want), std::string::npos) << c.route << "\n" << r.err;
  }
  EXPECT_EQ(K({"delete", "crd", "httproutes.gateway.networking.k8s.io"}).exit_code, 0);
}

TEST_P(CrdValidationRulesTest, CrdWithInvalidRuleIsRefused) {
  std::string bad = WidgetCrd(5);
  bad.replace(bad.find("self.replicas <= 5"), 18, "self.replicas <=");
  auto r = K({"apply", "-f", "-"}, bad);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("The CustomResourceDefinition \"widgets.example.com\" is invalid: "
                       "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: "
                       "apiextensions.ValidationRule{Rule:\"self.replicas <=\", Message:\"too many replicas\""),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("compilation failed: ERROR: <input>:1:17: Syntax error: mismatched input '<EOF>' expecting"), std::string::npos) << r.err;

  std::string undefined = WidgetCrd(5);
  undefined.replace(undefined.find("self.replicas <= 5"), 18, "self.replica <= 5");
  r = K({"apply", "-f", "-"}, undefined);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("compilation failed: ERROR: <input>:1:5: undefined field 'replica'"), std::string::npos) << r.err;
}

TEST_P(CrdValidationRulesTest, TransitionRulesRatchetingAndStatus) {
  ASSERT_EQ(K({"apply", "-f", "-"}, WidgetCrd(20)).exit_code, 0);
  ASSERT_EQ(K({"wait", "--for=condition=Established", "--timeout=20s", "crd/widgets.example.com"}).exit_code, 0);
  const std::string w = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  replicas: 10\n  owner: alice\n";
  auto created = K({"apply", "-f", "-"}, w);
  ASSERT_EQ(created.exit_code, 0) << created.err;

  auto too_many = K({"apply", "-f", "-"}, "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w2\nspec:\n  replicas: 30\n");
  EXPECT_NE(too_many.exit_code, 0);
  EXPECT_NE(too_many.err.find("The Widget \"w2\" is invalid: \n"
                              "* spec.replicas: Invalid value: 30: spec.replicas in body should be less than or equal to 20\n"
                              "* spec: Invalid value: \"object\": too many replicas"),
            std::string::npos)
      << too_many.err;

  // A value of the wrong type blocks the rules, as kube's hasBlockingErr does.
  auto wrong = K({"apply", "-f", "-"}, "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w3\nspec:\n  replicas: many\n");
  EXPECT_NE(wrong.exit_code, 0);
  EXPECT_NE(wrong.err.find("some validation rules were not checked because the object was invalid; correct the existing "
                           "errors to complete validation"),
            std::string::npos)
      << wrong.err;

  // oldSelf: changing the owner is refused.
  auto owner = K({"patch", "widget", "w", "--type=merge", "-p", R"({"spec":{"owner":"bob"}})"});
  EXPECT_NE(owner.exit_code, 0);
  EXPECT_NE(owner.err.find("The Widget \"w\" is invalid: spec.owner: Invalid value: \"string\": owner is immutable"),
            std::string::npos)
      << owner.err;

  // Tighten the rule below the stored value: an update that leaves spec unchanged is ratcheted...
  ASSERT_EQ(K({"apply", "-f", "-"}, WidgetCrd(5)).exit_code, 0);
  auto label = K({"label", "widget", "w", "team=a"});
  EXPECT_EQ(label.exit_code, 0) << label.err;
  // kube reports the ratcheted rule failure as a warning.
  EXPECT_NE(label.err.find("Warning: spec: Invalid value: \"object\": too many replicas"), std::string::npos) << label.err;
  // ... one that changes spec is refused.
  auto color = K({"patch", "widget", "w", "--type=merge", "-p", R"({"spec":{"color":"red"}})"});
  EXPECT_NE(color.exit_code, 0);
  EXPECT_NE(color.err.find("spec: Invalid value: \"object\": too many replicas"), std::string::npos) << color.err;
  // The schema's tightened maximum is ratcheted as well: replicas itself did not change.
  EXPECT_EQ(color.err.find("spec.replicas"), std::string::npos) << color.err;
  auto more = K({"patch", "widget", "w", "--type=merge", "-p", R"({"spec":{"replicas":11}})"});
  EXPECT_NE(more.exit_code, 0);
  EXPECT_NE(more.err.find("spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 5"), std::string::npos)
      << more.err;

  // The status subresource runs the status rules.
  auto status = K({"patch", "widget", "w", "--subresource=status", "--type=merge", "-p", R"({"status":{"phase":"Lost"}})"});
  EXPECT_NE(status.exit_code, 0);
  EXPECT_NE(status.err.find("status.phase: Invalid value: \"string\": phase Lost is not known"), std::string::npos) << status.err;
  EXPECT_EQ(K({"patch", "widget", "w", "--subresource=status", "--type=merge", "-p", R"({"status":{"phase":"Ready"}})"}).exit_code, 0);
  EXPECT_EQ(K({"delete", "crd", "widgets.example.com"}).exit_code, 0);
}

INSTANTIATE_TEST_SUITE_P(Kubectl, CrdValidationRulesTest, ::testing::Values("32", "33"));

}  // namespace
}  // namespace capstan::e2e
