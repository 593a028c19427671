#include "cel/crd_rules.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "apimachinery/schema_registry.h"

namespace capstan::cel {
namespace {

namespace am = capstan::apimachinery;
namespace json = boost::json;

// A Gateway-API-like schema: spec with rules on fields, a list-map of listeners, a transition rule.
constexpr const char* kSchema = R"json({
  "type": "object",
  "properties": {
    "spec": {
      "type": "object",
      "x-kubernetes-validations": [
        {"rule": "self.minReplicas <= self.maxReplicas", "message": "minReplicas must not exceed maxReplicas"},
        {"rule": "!has(self.mode) || self.mode != 'Off' || !has(self.target)", "messageExpression": "'target is not allowed when mode is ' + self.mode", "fieldPath": ".target"},
        {"rule": "self.minReplicas >= 0", "reason": "FieldValueForbidden"}
      ],
      "properties": {
        "minReplicas": {"type": "integer"},
        "maxReplicas": {"type": "integer"},
        "mode": {"type": "string"},
        "target": {"type": "string"},
        "immutableName": {"type": "string", "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "immutableName is immutable"}]},
        "my-field": {"type": "string", "maxLength": 10},
        "listeners": {
          "type": "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name"],
          "items": {
            "type": "object",
            "required": ["name"],
            "properties": {
              "name": {"type": "string"},
              "port": {"type": "integer", "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "port is immutable"}]},
              "protocol": {"type": "string", "x-kubernetes-validations": [{"rule": "self in ['HTTP', 'HTTPS']"}]}
            }
          }
        }
      }
    }
  }
})json";

class CrdRulesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = am::ParseSchema(json::parse(kSchema));
    ASSERT_TRUE(s.ok()) << s.status().message();
    schema_ = *s;
    rules_ = CrdRules::Build(schema_.get());
    ASSERT_NE(rules_, nullptr);
  }
  std::vector<std::string> Run(const char* obj, const char* old = nullptr, std::vector<std::string>* warnings = nullptr) {
    ErrorList errs;
    json::value o = json::parse(obj);
    if (old) {
      json::value ov = json::parse(old);
      rules_->Validate(o, &ov, errs, warnings);
    } else {
      rules_->Validate(o, nullptr, errs, warnings);
    }
    std::vector<std::string> out;
    for (const auto& e : errs) out.push_back(e.ToString());
    return out;
  }
  std::shared_ptr<const am::Schema> schema_;
  std::shared_ptr<const CrdRules> rules_;
};

TEST_F(CrdRulesTest, ValidObjectPasses) {
  EXPECT_TRUE(Run(R"({"spec": {"minReplicas": 1, "maxReplicas": 3}})").empty());
}

TEST_F(CrdRulesTest, MessagesReasonsAndFieldPaths) {
  EXPECT_EQ(Run(R"({"spec": {"minReplicas": 5, "maxReplicas": 3}})"),
            (std::vector<std::string>{"spec: Invalid value: \"object\": minReplicas must not exceed maxReplicas"}));
  EXPECT_EQ(Run(R"({"spec": {"minReplicas": 1, "maxReplicas": 3, "mode": "Off", "target": "x"}})"),
            (std::vector<std::string>{"spec.target: Invalid value: \"object\": target is not allowed when mode is Off"}));
  EXPECT_EQ(Run(R"({"spec": {"minReplicas": -1, "maxReplicas": 3}})"),
            (std::vector<std::string>{"spec: Forbidden: failed rule: self.minReplicas >= 0"}));
}

TEST_F(CrdRulesTest, RuntimeErrorsAreCauses) {
  // minReplicas absent: "no such key" is a cause, not a crash.
  EXPECT_EQ(Run(R"({"spec": {"maxReplicas": 3}})"),
            (std::vector<std::string>{
                "spec: Invalid value: \"object\": no such key: minReplicas evaluating rule: minReplicas must not exceed maxReplicas",
                "spec: Invalid value: \"object\": no such key: minReplicas evaluating rule: self.minReplicas >= 0"}));
}

TEST_F(CrdRulesTest, TransitionRulesOnlyWithOldValue) {
  EXPECT_TRUE(Run(R"({"spec": {"minReplicas": 1, "maxReplicas": 3, "immutableName": "a"}})").empty());
  EXPECT_EQ(Run(R"({"spec": {"minReplicas": 1, "maxReplicas": 3, "immutableName": "b"}})",
                R"({"spec": {"minReplicas": 1, "maxReplicas": 3, "immutableName": "a"}})"),
            (std::vector<std::string>{"spec.immutableName: Invalid value: \"string\": immutableName is immutable"}));
  // Added on update: no old value, the transition rule does not run.
  EXPECT_TRUE(Run(R"({"spec": {"minReplicas": 1, "maxReplicas": 3, "immutableName": "b"}})",
                  R"({"spec": {"minReplicas": 1, "maxReplicas": 3}})").empty());
}

TEST_F(CrdRulesTest, ListMapItemsCorrelateByKey) {
  const char* old = R"({"spec": {"minReplicas": 1, "maxReplicas": 3, "listeners": [{"name": "a", "port": 80}, {"name": "b", "port": 443}]}})";
  // Reordered, same ports: fine.
  EXPECT_TRUE(Run(R"({"spec": {"minReplicas": 1, "maxReplicas": 3, "listeners": [{"name": "b", "port": 443}, {"name": "a", "port": 80}]}})", old).empty());
  EXPECT_EQ(Run(R"({"spec": {"minReplicas": 1, "maxReplicas": 3, "listeners": [{"name": "b", "port": 8443}, {"name": "a", "port": 80}]}})", old),
            (std::vector<std::string>{"spec.listeners[0].port: Invalid value: \"integer\": port is immutable"}));
}

TEST_F(CrdRulesTest, RatchetingKeepsUnchangedInvalidValues) {
  const char* old = R"({"spec": {"minReplicas": 1, "maxReplicas": 3, "listeners": [{"name": "a", "protocol": "UDP"}]}})";
  std::vector<std::string> warnings;
  // The invalid protocol is unchanged: a warning, not an error.
  EXPECT_TRUE(Run(R"({"spec": {"minReplicas": 2, "maxReplicas": 3, "listeners": [{"name": "a", "protocol": "UDP"}]}})", old, &warnings).empty());
  EXPECT_EQ(warnings.size(), 1u);
  // Changed to another invalid value: refused.
  EXPECT_EQ(Run(R"({"spec": {"minReplicas": 2, "maxReplicas": 3, "listeners": [{"name": "a", "protocol": "SCTP"}]}})", old),
            (std::vector<std::string>{"spec.listeners[0].protocol: Invalid value: \"string\": failed rule: self in ['HTTP', 'HTTPS']"}));
}

std::vector<std::string> Check(const char* schema) {
  auto s = am::ParseSchema(json::parse(schema));
  EXPECT_TRUE(s.ok());
  ErrorList errs;
  CheckCrdRules(**s, FieldPath("spec.versions[0].schema.openAPIV3Schema"), true, errs);
  std::vector<std::string> out;
  for (const auto& e : errs) out.push_back(e.ToString());
  return out;
}

TEST(CheckCrdRules, CompileErrorsWithKubePathsAndTexts) {
  EXPECT_EQ(Check(R"({"type": "object", "properties": {"spec": {"type": "object", "properties": {"a": {"type": "integer"}},
                      "x-kubernetes-validations": [{"rule": "self.a >"}]}}})"),
            (std::vector<std::string>{
                "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: "
                "apiextensions.ValidationRule{Rule:\"self.a >\", Message:\"\", MessageExpression:\"\", "
                "Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:\"\", OptionalOldSelf:(*bool)(nil)}: "
                "compilation failed: ERROR: <input>:1:9: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', "
                "'-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | self.a >\n | ........^"}));
  auto undefined = Check(R"({"type": "object", "properties": {"spec": {"type": "object", "properties": {"a": {"type": "integer"}},
                      "x-kubernetes-validations": [{"rule": "self.b > 0"}]}}})");
  ASSERT_EQ(undefined.size(), 1u);
  EXPECT_NE(undefined[0].find("compilation failed: ERROR: <input>:1:5: undefined field 'b'"), std::string::npos) << undefined[0];
  auto not_bool = Check(R"({"type": "object", "properties": {"spec": {"type": "object", "properties": {"a": {"type": "integer"}},
                      "x-kubernetes-validations": [{"rule": "self.a + 1"}]}}})");
  ASSERT_EQ(not_bool.size(), 1u);
  EXPECT_NE(not_bool[0].find("}: cel expression must evaluate to a bool"), std::string::npos) << not_bool[0];
  auto msg = Check(R"({"type": "object", "properties": {"spec": {"type": "object", "properties": {"a": {"type": "integer"}},
                      "x-kubernetes-validations": [{"rule": "self.a > 0", "messageExpression": "self.a"}]}}})");
  ASSERT_EQ(msg.size(), 1u);
  EXPECT_NE(msg[0].find("x-kubernetes-validations[0].messageExpression: Invalid value: apiextensions.ValidationRule{"), std::string::npos) << msg[0];
  EXPECT_NE(msg[0].find("}: messageExpression must evaluate to a string"), std::string::npos) << msg[0];
}

TEST(CheckCrdRules, RuleFields) {
  EXPECT_EQ(Check(R"({"type": "object", "properties": {"spec": {"type": "object",
                      "x-kubernetes-validations": [{"rule": "true", "reason": "Bad"}, {"rule": " "}, {"rule": "true", "fieldPath": ".nope"}]}}})"),
            (std::vector<std::string>{
                "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].reason: Unsupported value: \"Bad\": "
                "supported values: \"FieldValueDuplicate\", \"FieldValueForbidden\", \"FieldValueInvalid\", \"FieldValueRequired\"",
                "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[1].rule: Required value: rule is not specified",
                "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[2].fieldPath: Invalid value: \".nope\": "
                "fieldPath must be a valid path"}));
}

TEST(CheckCrdRules, OldSelfOnlyWhereCorrelatable) {
  auto errs = Check(R"({"type": "object", "properties": {"spec": {"type": "object", "properties": {"tags": {"type": "array", "maxItems": 10,
                       "items": {"type": "string", "maxLength": 10, "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}}}}})");
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0], "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[tags].items.x-kubernetes-validations[0].rule: "
                     "Invalid value: \"self == oldSelf\": oldSelf cannot be used on the uncorrelatable portion of the schema within "
                     "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[tags]");
}

TEST(CheckCrdRules, EscapedFieldNames) {
  EXPECT_TRUE(Check(R"({"type": "object", "properties": {"spec": {"type": "object", "properties": {"my-field": {"type": "string"}, "namespace": {"type": "string"}},
                       "x-kubernetes-validations": [{"rule": "self.my__dash__field == self.__namespace__"}]}}})").empty());
}

}  // namespace
}  // namespace capstan::cel

namespace capstan::cel {
namespace {

TEST(CrdRulesCost, PerCallLimitStopsEvaluation) {
  auto s = am::ParseSchema(json::parse(R"json({"type": "object", "properties": {"xs": {"type": "array", "items": {"type": "integer"},
      "x-kubernetes-validations": [{"rule": "self.all(x, self.all(y, self.all(z, x + y + z > -1)))"}, {"rule": "size(self) < 0"}]}}})json"));
  ASSERT_TRUE(s.ok());
  auto rules = CrdRules::Build(s->get());
  json::array xs;
  for (int i = 0; i < 120; ++i) xs.push_back(i);
  ErrorList errs;
  rules->Validate(json::object{{"xs", xs}}, nullptr, errs, nullptr);
  // The second rule does not run: the first one exhausted its per-call limit.
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].ToString(),
            "xs: Invalid value: \"array\": 'operation cancelled: actual cost limit exceeded': no further validation rules "
            "will be run due to call cost exceeds limit for rule: self.all(x, self.all(y, self.all(z, x + y + z > -1)))");
}

TEST(CrdRulesCost, SmallListsStayWithinTheLimit) {
  auto s = am::ParseSchema(json::parse(R"json({"type": "object", "properties": {"xs": {"type": "array", "items": {"type": "integer"},
      "x-kubernetes-validations": [{"rule": "self.all(x, self.all(y, x + y > -1))"}]}}})json"));
  ASSERT_TRUE(s.ok());
  auto rules = CrdRules::Build(s->get());
  json::array xs;
  for (int i = 0; i < 50; ++i) xs.push_back(i);
  ErrorList errs;
  rules->Validate(json::object{{"xs", xs}}, nullptr, errs, nullptr);
  EXPECT_TRUE(errs.empty());
}

}  // namespace
}  // namespace capstan::cel

namespace capstan::cel {
namespace {

std::vector<std::string> CheckSchema(const char* schema) {
  auto s = am::ParseSchema(json::parse(schema));
  EXPECT_TRUE(s.ok());
  ErrorList errs;
  CheckCrdRules(**s, FieldPath("spec.validation.openAPIV3Schema"), true, errs);
  std::vector<std::string> out;
  for (const auto& e : errs) out.push_back(e.ToString());
  return out;
}

TEST(CheckCrdRulesCost, UnboundedNestedLoopsExceedTheBudget) {
  auto errs = CheckSchema(R"json({"type": "object", "properties": {"spec": {"type": "object", "properties": {
      "names": {"type": "array", "items": {"type": "string"},
                "x-kubernetes-validations": [{"rule": "self.all(a, self.all(b, a == b || a != b))"}]}}}}})json");
  ASSERT_EQ(errs.size(), 3u);
  EXPECT_EQ(errs[0], "spec.validation.openAPIV3Schema.properties[spec].properties[names].x-kubernetes-validations[0].rule: "
                     "Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, "
                     "or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)");
  EXPECT_EQ(errs[1], "spec.validation.openAPIV3Schema.properties[spec].properties[names].x-kubernetes-validations[0].rule: "
                     "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema");
  EXPECT_EQ(errs[2], "spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for "
                     "entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding "
                     "maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)");
}

TEST(CheckCrdRulesCost, BoundedListsAreAccepted) {
  EXPECT_TRUE(CheckSchema(R"json({"type": "object", "properties": {"spec": {"type": "object", "properties": {
      "names": {"type": "array", "maxItems": 100, "items": {"type": "string", "maxLength": 64},
                "x-kubernetes-validations": [{"rule": "self.all(a, self.all(b, a == b || a != b))"}]}}}}})json").empty());
}

TEST(CheckCrdRulesCost, CardinalityMultipliesRulesUnderLists) {
  // One string rule is cheap, but under an unbounded list of objects it runs for every item.
  auto errs = CheckSchema(R"json({"type": "object", "properties": {"spec": {"type": "object", "properties": {
      "items": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}},
                "x-kubernetes-validations": [{"rule": "self.name.matches('^[a-z]+$')"}]}}}}}})json");
  ASSERT_FALSE(errs.empty());
  EXPECT_NE(errs[0].find("properties[items].items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget"),
            std::string::npos)
      << errs[0];
}

}  // namespace
}  // namespace capstan::cel
