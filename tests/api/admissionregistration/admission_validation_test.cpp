#include "api/admissionregistration/admission_validation.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace capstan::api::admissionregistration {
namespace {

namespace json = boost::json;

json::object WebhookConfig(const std::string& conditions) {
  std::string doc = R"({"metadata":{"name":"c"},"webhooks":[{"name":"w.example.com","clientConfig":{"url":"https://x.example.com/"},
      "rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["configmaps"]}],
      "sideEffects":"None","admissionReviewVersions":["v1"],"matchConditions":)" + conditions + "}]}";
  json::object c = json::parse(doc).as_object();
  DefaultWebhooks(c, false);
  return c;
}

std::string Texts(const ErrorList& errs) {
  std::string out;
  for (const auto& e : errs) out += e.ToString() + "\n";
  return out;
}

TEST(WebhookMatchConditionsValidationTest, ConditionsCompileInKubesEnvironment) {
  auto ok = WebhookConfig(R"([{"name":"a","expression":"request.userInfo.username == 'alice'"},
      {"name":"b","expression":"has(object.metadata.labels) && oldObject == null"}])");
  EXPECT_EQ(Texts(ValidateWebhookConfiguration(ok, nullptr, false)), "");
}

TEST(WebhookMatchConditionsValidationTest, SyntaxAndTypeErrorsAreInvalid) {
  auto bad = WebhookConfig(R"([{"name":"a","expression":"object.x >"},{"name":"b","expression":"1 + 1"},
      {"name":"c","expression":"nope == 1"}])");
  std::string texts = Texts(ValidateWebhookConfiguration(bad, nullptr, false));
  EXPECT_NE(texts.find("webhooks[0].matchConditions[0].expression: Invalid value: \"object.x >\": compilation failed: "
                       "ERROR: <input>:1:11: Syntax error:"),
            std::string::npos)
      << texts;
  EXPECT_NE(texts.find("webhooks[0].matchConditions[1].expression: Invalid value: \"1 + 1\": must evaluate to bool "
                       "but got int"),
            std::string::npos)
      << texts;
  EXPECT_NE(texts.find("webhooks[0].matchConditions[2].expression: Invalid value: \"nope == 1\": compilation failed: "
                       "ERROR: <input>:1:1: undeclared reference to 'nope' (in container '')"),
            std::string::npos)
      << texts;
}

TEST(WebhookMatchConditionsValidationTest, AtMost64Conditions) {
  json::array conditions;
  for (int i = 0; i < 65; ++i) conditions.push_back(json::object{{"name", "c" + std::to_string(i)}, {"expression", "true"}});
  auto many = WebhookConfig(json::serialize(conditions));
  EXPECT_NE(Texts(ValidateWebhookConfiguration(many, nullptr, false))
                .find("webhooks[0].matchConditions: Too many: 65: must have at most 64 items"),
            std::string::npos);
}

TEST(PolicyExpressionsValidationTest, ExpressionsCompileWithVariables) {
  json::object policy = json::parse(R"({"metadata":{"name":"p"},"spec":{"failurePolicy":"Fail",
      "matchConstraints":{"resourceRules":[{"apiGroups":["apps"],"apiVersions":["v1"],"operations":["CREATE"],
      "resources":["deployments"]}]},
      "variables":[{"name":"replicas","expression":"object.spec.replicas"},{"name":"bad","expression":"object.x +"}],
      "validations":[{"expression":"variables.replicas <= 5"},{"expression":"'no'"},
        {"expression":"true","messageExpression":"1"},{"expression":"params.x"}]}})")
                            .as_object();
  DefaultPolicy(policy);
  std::string texts = Texts(ValidatePolicy(policy, nullptr));
  EXPECT_EQ(texts.find("spec.validations[0]"), std::string::npos) << texts;
  EXPECT_NE(texts.find("spec.variables[1].expression: Invalid value: \"object.x +\": compilation failed: ERROR:"),
            std::string::npos)
      << texts;
  EXPECT_NE(texts.find("spec.validations[1].expression: Invalid value: \"'no'\": must evaluate to bool but got string"),
            std::string::npos)
      << texts;
  EXPECT_NE(texts.find("spec.validations[2].messageExpression: Invalid value: \"1\": must evaluate to string but got int"),
            std::string::npos)
      << texts;
  EXPECT_NE(texts.find("spec.validations[3].expression: Invalid value: \"params.x\": compilation failed: ERROR: "
                       "<input>:1:1: undeclared reference to 'params' (in container '')"),
            std::string::npos)
      << texts;
}

}  // namespace
}  // namespace capstan::api::admissionregistration
