// ValidatingAdmissionPolicy: matching, validations, actions, variables, params and kube's texts, with
// policies and bindings served by an in-memory lister.
#include "admission/validating_admission_policy.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "apimachinery/request_scope.h"

namespace capstan::admission {
namespace {

namespace json = boost::json;

class ValidatingAdmissionPolicyTest : public ::testing::Test {
 protected:
  ValidatingAdmissionPolicyTest() {
    info_.group = "apps";
    info_.version = "v1";
    info_.resource = "deployments";
    info_.kind = "Deployment";
    obj_ = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"prod",
        "labels":{"app":"web"}},"spec":{"replicas":7}})").as_object();
    user_ = UserInfo{"alice", "", {"system:authenticated"}, {}};
    attrs_.operation = "CREATE";
    attrs_.resource = &info_;
    attrs_.namespace_ = "prod";
    attrs_.name = "web";
    attrs_.object = &obj_;
    attrs_.user = &user_;
    attrs_.scope = &scope_;
  }

  ObjectLister Lister() {
    return [this](const std::string& group, const std::string&, const std::string& resource,
                  const std::string& ns) -> Task<StatusOr<std::vector<registry::Object>>> {
      lists_++;
      if (resource == "validatingadmissionpolicies") co_return policies_;
      if (resource == "validatingadmissionpolicybindings") co_return bindings_;
      std::vector<registry::Object> out;
      for (const auto& p : params_) {
        if (resource == "configmaps" && p.at("metadata").at("namespace").as_string() == ns) out.push_back(p);
      }
      co_return out;
    };
  }
  ObjectGetter Getter() {
    return [this](const std::string&, const std::string&, const std::string& resource, const std::string& ns,
                  const std::string& name) -> Task<StatusOr<registry::Object>> {
      for (const auto& p : params_) {
        const auto& md = p.at("metadata").as_object();
        if (resource == "configmaps" && md.at("namespace").as_string() == ns && md.at("name").as_string() == name) {
          co_return p;
        }
      }
      co_return Status(404, "NotFound", "not found");
    };
  }

  Status Run(MetricsRegistry* metrics = nullptr) {
    ValidatingAdmissionPolicyPlugin plugin(
        Lister(), Getter(),
        [](const std::string& name) -> Task<StatusOr<registry::Object>> {
          co_return json::parse(R"({"metadata":{"name":"prod","labels":{"env":"prod"}}})").as_object();
        },
        metrics);
    return SyncWait(plugin.Validate(attrs_));
  }

  void AddPolicy(const std::string& name, const std::string& spec) {
    json::object p;
    p["metadata"] = json::object{{"name", name}, {"resourceVersion", std::to_string(++rv_)}};
    p["spec"] = json::parse(spec);
    policies_.push_back(std::move(p));
  }
  void AddBinding(const std::string& name, const std::string& spec) {
    json::object b;
    b["metadata"] = json::object{{"name", name}, {"resourceVersion", std::to_string(++rv_)}};
    b["spec"] = json::parse(spec);
    bindings_.push_back(std::move(b));
  }

  static constexpr char kReplicas[] = R"({"failurePolicy":"Fail","matchConstraints":{"resourceRules":[{"apiGroups":["apps"],
      "apiVersions":["v1"],"operations":["CREATE","UPDATE"],"resources":["deployments"]}]},
      "validations":[{"expression":"object.spec.replicas <= 5"}]})";

  std::vector<registry::Object> policies_, bindings_, params_;
  int rv_ = 0;
  int lists_ = 0;
  RequestScope scope_;
  registry::ResourceInfo info_;
  registry::Object obj_;
  UserInfo user_;
  Attributes attrs_;
};

TEST_F(ValidatingAdmissionPolicyTest, DenyAnswersKubesMessageAndCode) {
  AddPolicy("replicas", kReplicas);
  AddBinding("replicas-binding", R"j({"policyName":"replicas","validationActions":["Deny"]})j");
  Status st = Run();
  EXPECT_EQ(st.code(), 422);
  EXPECT_EQ(st.reason(), "Invalid");
  EXPECT_EQ(st.message(), "deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'replicas' with binding "
                          "'replicas-binding' denied request: failed expression: object.spec.replicas <= 5");
  ASSERT_EQ(st.details().causes.size(), 1u);
  EXPECT_EQ(st.details().causes[0].message, "ValidatingAdmissionPolicy 'replicas' with binding 'replicas-binding' "
                                            "denied request: failed expression: object.spec.replicas <= 5");
  obj_["spec"].as_object()["replicas"] = 3;
  EXPECT_TRUE(Run().ok());
}

TEST_F(ValidatingAdmissionPolicyTest, NoBindingNoEnforcement) {
  AddPolicy("replicas", kReplicas);
  EXPECT_TRUE(Run().ok());
  AddBinding("other", R"j({"policyName":"another","validationActions":["Deny"]})j");
  EXPECT_TRUE(Run().ok());
}

TEST_F(ValidatingAdmissionPolicyTest, MessageExpressionMessageAndReason) {
  AddPolicy("replicas", R"j({"matchConstraints":{"resourceRules":[{"apiGroups":["apps"],"apiVersions":["v1"],
      "operations":["CREATE"],"resources":["deployments"]}]},"validations":[
      {"expression":"object.spec.replicas <= 5","messageExpression":"'replicas ' + string(object.spec.replicas) + ' > 5'",
       "reason":"Forbidden"},
      {"expression":"false","message":"  static message  "}]})j");
  AddBinding("b", R"({"policyName":"replicas","validationActions":["Deny"]})");
  Status st = Run();
  EXPECT_EQ(st.code(), 403);
  EXPECT_EQ(st.reason(), "Forbidden");
  EXPECT_NE(st.message().find("denied request: replicas 7 > 5"), std::string::npos) << st.message();
  obj_["spec"].as_object()["replicas"] = 3;
  st = Run();
  EXPECT_EQ(st.code(), 422);
  EXPECT_NE(st.message().find("denied request: static message"), std::string::npos) << st.message();
}

TEST_F(ValidatingAdmissionPolicyTest, WarnAndAuditDoNotDeny) {
  AddPolicy("replicas", kReplicas);
  AddBinding("warn", R"j({"policyName":"replicas","validationActions":["Warn","Audit"]})j");
  EXPECT_TRUE(Run().ok());
  ASSERT_EQ(scope_.warnings().size(), 1u);
  EXPECT_EQ(scope_.warnings()[0], "Validation failed for ValidatingAdmissionPolicy 'replicas' with binding 'warn': "
                                  "failed expression: object.spec.replicas <= 5");
  auto annotations = scope_.annotations();
  bool found = annotations.count("validation.policy.admission.k8s.io/validation_failure") > 0;
  if (found) {
    EXPECT_EQ(annotations["validation.policy.admission.k8s.io/validation_failure"].value,
              // Go's json.Marshal escapes '<' as kube's does.
              R"([{"message":"failed expression: object.spec.replicas \u003c= 5","policy":"replicas",)"
              R"("binding":"warn","expressionIndex":0,"validationActions":["Warn","Audit"]}])");
  }
  EXPECT_TRUE(found);
}

TEST_F(ValidatingAdmissionPolicyTest, SelectorsExcludesAndBindingMatchResources) {
  AddPolicy("replicas", R"j({"matchConstraints":{"resourceRules":[{"apiGroups":["apps"],"apiVersions":["v1"],
      "operations":["CREATE"],"resources":["deployments"]}],"namespaceSelector":{"matchLabels":{"env":"prod"}}},
      "validations":[{"expression":"false"}]})j");
  AddBinding("b", R"({"policyName":"replicas","validationActions":["Deny"],
      "matchResources":{"objectSelector":{"matchLabels":{"app":"web"}}}})");
  EXPECT_FALSE(Run().ok());
  obj_["metadata"].as_object()["labels"] = json::object{{"app", "db"}};
  EXPECT_TRUE(Run().ok());  // the binding's objectSelector
  obj_["metadata"].as_object()["labels"] = json::object{{"app", "web"}};
  policies_[0]["spec"].as_object()["matchConstraints"].as_object()["namespaceSelector"] =
      json::parse(R"({"matchLabels":{"env":"dev"}})");
  policies_[0]["metadata"].as_object()["resourceVersion"] = "99";
  EXPECT_TRUE(Run().ok());  // the policy's namespaceSelector
  policies_[0]["spec"].as_object()["matchConstraints"].as_object().erase("namespaceSelector");
  policies_[0]["spec"].as_object()["matchConstraints"].as_object()["excludeResourceRules"] =
      json::parse(R"([{"apiGroups":["apps"],"apiVersions":["v1"],"operations":["*"],"resources":["deployments"],
          "resourceNames":["web"]}])");
  policies_[0]["metadata"].as_object()["resourceVersion"] = "100";
  EXPECT_TRUE(Run().ok());  // excluded by name
}

TEST_F(ValidatingAdmissionPolicyTest, VariablesMatchConditionsAndRequest) {
  AddPolicy("p", R"j({"matchConstraints":{"resourceRules":[{"apiGroups":["*"],"apiVersions":["*"],"operations":["*"],
      "resources":["*"]}]},
      "variables":[{"name":"replicas","expression":"object.spec.replicas"},{"name":"big","expression":"variables.replicas > 5"}],
      "matchConditions":[{"name":"not-admin","expression":"request.userInfo.username != 'admin'"}],
      "validations":[{"expression":"!variables.big","messageExpression":"request.userInfo.username + ' asked for ' + string(variables.replicas)"}]})j");
  AddBinding("b", R"({"policyName":"p","validationActions":["Deny"]})");
  Status st = Run();
  EXPECT_NE(st.message().find("denied request: alice asked for 7"), std::string::npos) << st.message();
  user_.name = "admin";
  EXPECT_TRUE(Run().ok());
}

TEST_F(ValidatingAdmissionPolicyTest, RuntimeErrorFollowsFailurePolicy) {
  AddPolicy("p", R"j({"failurePolicy":"Fail","matchConstraints":{"resourceRules":[{"apiGroups":["apps"],"apiVersions":["v1"],
      "operations":["CREATE"],"resources":["deployments"]}]},"validations":[{"expression":"object.spec.missing > 1"}]})j");
  AddBinding("b", R"({"policyName":"p","validationActions":["Deny"]})");
  Status st = Run();
  EXPECT_EQ(st.code(), 422);
  EXPECT_EQ(st.message(), "deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied "
                          "request: expression 'object.spec.missing > 1' resulted in error: no such key: missing");
  policies_[0]["spec"].as_object()["failurePolicy"] = "Ignore";
  policies_[0]["metadata"].as_object()["resourceVersion"] = "50";
  EXPECT_TRUE(Run().ok());
}

TEST_F(ValidatingAdmissionPolicyTest, ChecksAreCountedAsKubeLabelsThem) {
  AddPolicy("replicas", kReplicas);
  AddPolicy("broken", R"j({"failurePolicy":"Ignore","matchConstraints":{"resourceRules":[{"apiGroups":["apps"],
      "apiVersions":["v1"],"operations":["CREATE"],"resources":["deployments"]}]},
      "validations":[{"expression":"object.spec.missing > 1"}]})j");
  AddBinding("deny", R"j({"policyName":"replicas","validationActions":["Deny"]})j");
  AddBinding("observe", R"j({"policyName":"replicas","validationActions":["Warn","Audit"]})j");
  AddBinding("ignored", R"j({"policyName":"broken","validationActions":["Deny"]})j");
  MetricsRegistry metrics;
  EXPECT_FALSE(Run(&metrics).ok());
  std::string text = metrics.Expose();
  const std::string total = "apiserver_validating_admission_policy_check_total";
  // A plain denial is labelled invalid_error, as kube's ErrorType labels every non-admit decision.
  EXPECT_NE(text.find(total + R"({enforcement_action="deny",error_type="invalid_error",policy="replicas",policy_binding="deny"} 1)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(total + R"({enforcement_action="warn",error_type="invalid_error",policy="replicas",policy_binding="observe"} 1)"),
            std::string::npos);
  EXPECT_NE(text.find(total + R"({enforcement_action="audit",error_type="invalid_error",policy="replicas",policy_binding="observe"} 1)"),
            std::string::npos);
  // An evaluation error under failurePolicy Ignore is an "allow".
  EXPECT_NE(text.find(total + R"({enforcement_action="allow",error_type="invalid_error",policy="broken",policy_binding="ignored"} 1)"),
            std::string::npos);
  EXPECT_NE(text.find("# HELP apiserver_validating_admission_policy_check_duration_seconds [BETA] "), std::string::npos);
  EXPECT_NE(text.find(R"(apiserver_validating_admission_policy_check_duration_seconds_bucket{enforcement_action="deny",error_type="invalid_error",policy="replicas",policy_binding="deny",le="5e-07"})"),
            std::string::npos);
  // Passing validations are not counted.
  obj_["spec"].as_object()["replicas"] = 3;
  MetricsRegistry quiet;
  EXPECT_TRUE(Run(&quiet).ok());
  EXPECT_EQ(quiet.Expose().find(R"(policy="replicas")"), std::string::npos) << quiet.Expose();
}

TEST_F(ValidatingAdmissionPolicyTest, FailingAuditAnnotationDeniesWhateverTheActions) {
  AddPolicy("annotate", R"j({"failurePolicy":"Fail","matchConstraints":{"resourceRules":[{"apiGroups":["apps"],
      "apiVersions":["v1"],"operations":["CREATE"],"resources":["deployments"]}]},
      "auditAnnotations":[{"key":"size","valueExpression":"string(object.spec.missing)"}]})j");
  AddBinding("warn-only", R"j({"policyName":"annotate","validationActions":["Warn"]})j");
  Status st = Run();
  EXPECT_EQ(st.code(), 422) << st.message();
  EXPECT_NE(st.message().find("ValidatingAdmissionPolicy 'annotate' with binding 'warn-only' denied request: "),
            std::string::npos)
      << st.message();
  EXPECT_TRUE(scope_.warnings().empty());
  policies_[0]["spec"].as_object()["failurePolicy"] = "Ignore";
  policies_[0]["metadata"].as_object()["resourceVersion"] = "77";
  EXPECT_TRUE(Run().ok());
}

TEST_F(ValidatingAdmissionPolicyTest, ConfigMapParams) {
  AddPolicy("p", R"j({"paramKind":{"apiVersion":"v1","kind":"ConfigMap"},"matchConstraints":{"resourceRules":[
      {"apiGroups":["apps"],"apiVersions":["v1"],"operations":["CREATE"],"resources":["deployments"]}]},
      "validations":[{"expression":"object.spec.replicas <= int(params.data.max)",
        "messageExpression":"'at most ' + params.data.max"}]})j");
  AddBinding("b", R"({"policyName":"p","validationActions":["Deny"],
      "paramRef":{"name":"limits","parameterNotFoundAction":"Deny"}})");
  Status st = Run();
  EXPECT_EQ(st.message(), "deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied "
                          "request: failed to configure binding: no params found for policy binding with `Deny` "
                          "parameterNotFoundAction");
  params_.push_back(json::parse(R"({"metadata":{"name":"limits","namespace":"prod"},"data":{"max":"10"}})").as_object());
  EXPECT_TRUE(Run().ok());
  params_[0]["data"].as_object()["max"] = "4";
  st = Run();
  EXPECT_NE(st.message().find("denied request: at most 4"), std::string::npos) << st.message();
  params_.clear();
  bindings_[0]["spec"].as_object()["paramRef"].as_object()["parameterNotFoundAction"] = "Allow";
  bindings_[0]["metadata"].as_object()["resourceVersion"] = "77";
  EXPECT_TRUE(Run().ok());
}

TEST_F(ValidatingAdmissionPolicyTest, WebhookConfigurationsAreExempt) {
  AddPolicy("p", R"j({"matchConstraints":{"resourceRules":[{"apiGroups":["*"],"apiVersions":["*"],"operations":["*"],
      "resources":["*"]}]},"validations":[{"expression":"false"}]})j");
  AddBinding("b", R"({"policyName":"p","validationActions":["Deny"]})");
  EXPECT_FALSE(Run().ok());
  info_.group = "admissionregistration.k8s.io";
  info_.resource = "validatingwebhookconfigurations";
  info_.namespaced = false;
  EXPECT_TRUE(Run().ok());
}

}  // namespace
}  // namespace capstan::admission
