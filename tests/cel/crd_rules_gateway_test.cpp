// Real CRDs: Gateway API's HTTPRoute (v1.2.1, testdata/gateway-api): all of its rules compile within
// kube's cost budgets, and HTTPRoutes are accepted or refused with the messages kube-apiserver gives;
// Cluster API's Cluster (testdata/cluster-api): every version's rules compile within the budgets.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>
#include <sstream>

#include "apimachinery/schema_default.h"
#include "apimachinery/schema_registry.h"
#include "apimachinery/yaml.h"
#include "cel/crd_rules.h"

namespace capstan::cel {
namespace {

namespace am = capstan::apimachinery;
namespace json = boost::json;

json::value LoadCrd(const std::string& file = "gateway-api/httproutes.yaml") {
  std::ifstream in(std::string(std::getenv("CAPSTAN_SOURCE_DIR")) + "/tests/cel/testdata/" + file);
  std::stringstream ss;
  ss << in.rdbuf();
  auto y = am::YamlToJson(ss.str());
  EXPECT_TRUE(y.ok());
  return y.ok() ? y->value : json::value();
}

const json::value& Crd() {
  static const json::value kCrd = LoadCrd();
  return kCrd;
}

std::shared_ptr<const am::Schema> VersionSchema(const std::string& name) {
  for (const auto& v : Crd().at("spec").at("versions").as_array()) {
    if (v.at("name").as_string() == name) {
      auto s = am::ParseSchema(v.at("schema").at("openAPIV3Schema"));
      EXPECT_TRUE(s.ok());
      return s.ok() ? *s : nullptr;
    }
  }
  return nullptr;
}

size_t CountRules(const json::value& v) {
  size_t n = 0;
  if (v.is_object()) {
    for (const auto& [k, x] : v.as_object()) {
      if (k == "x-kubernetes-validations" && x.is_array()) n += x.as_array().size();
      n += CountRules(x);
    }
  } else if (v.is_array()) {
    for (const auto& x : v.as_array()) n += CountRules(x);
  }
  return n;
}

TEST(GatewayHttpRoute, EveryRuleCompiles) {
  ASSERT_EQ(CountRules(Crd()), 148u);
  for (const char* version : {"v1", "v1beta1"}) {
    auto s = VersionSchema(version);
    ASSERT_NE(s, nullptr);
    ErrorList errs;
    CheckCrdRules(*s, FieldPath("spec.versions[0].schema.openAPIV3Schema"), true, errs);
    for (const auto& e : errs) ADD_FAILURE() << version << ": " << e.ToString();
  }
}

TEST(ClusterApiCluster, EveryVersionsRulesCompile) {
  json::value crd = LoadCrd("cluster-api/clusters.yaml");
  size_t versions = 0;
  for (const auto& v : crd.at("spec").at("versions").as_array()) {
    auto s = am::ParseSchema(v.at("schema").at("openAPIV3Schema"));
    ASSERT_TRUE(s.ok());
    ErrorList errs;
    CheckCrdRules(**s, FieldPath("spec.versions[0].schema.openAPIV3Schema"), true, errs);
    for (const auto& e : errs) ADD_FAILURE() << v.at("name").as_string() << ": " << e.ToString();
    ++versions;
  }
  EXPECT_GE(versions, 2u);
  EXPECT_EQ(CountRules(crd), 4u);
}

std::vector<std::string> Validate(const char* route) {
  static const auto schema = VersionSchema("v1");
  static const auto rules = CrdRules::Build(schema.get());
  ErrorList errs;
  json::value v = json::parse(route);
  am::ApplyDefaults(v, schema.get());  // as decoding does before validation
  rules->Validate(v, nullptr, errs, nullptr);
  std::vector<std::string> out;
  for (const auto& e : errs) out.push_back(e.ToString());
  return out;
}

TEST(GatewayHttpRoute, ValidRouteIsAccepted) {
  EXPECT_TRUE(Validate(R"({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute", "metadata": {"name": "r"},
    "spec": {"parentRefs": [{"name": "gw"}], "hostnames": ["example.com"],
      "rules": [{"matches": [{"path": {"type": "PathPrefix", "value": "/api"}}],
                 "filters": [{"type": "RequestHeaderModifier", "requestHeaderModifier": {"set": [{"name": "X-A", "value": "b"}]}}],
                 "backendRefs": [{"name": "svc", "port": 80}]}]}})").empty());
}

TEST(GatewayHttpRoute, ViolatedRulesAreRefusedWithTheirMessages) {
  EXPECT_EQ(Validate(R"({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute", "metadata": {"name": "r"},
    "spec": {"rules": [{"matches": [{"path": {"type": "PathPrefix", "value": "api"}}]}]}})"),
            (std::vector<std::string>{"spec.rules[0].matches[0].path: Invalid value: \"object\": value must be an absolute path "
                                      "and start with '/' when type one of ['Exact', 'PathPrefix']"}));
  EXPECT_EQ(Validate(R"({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute", "metadata": {"name": "r"},
    "spec": {"rules": [{"filters": [{"type": "RequestHeaderModifier"}]}]}})"),
            (std::vector<std::string>{"spec.rules[0].filters[0]: Invalid value: \"object\": filter.requestHeaderModifier must "
                                      "be specified for RequestHeaderModifier filter.type"}));
  EXPECT_EQ(Validate(R"({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute", "metadata": {"name": "r"},
    "spec": {"parentRefs": [{"name": "gw"}, {"name": "gw", "sectionName": "a"}]}})"),
            (std::vector<std::string>{"spec.parentRefs: Invalid value: \"array\": sectionName must be specified when "
                                      "parentRefs includes 2 or more references to the same parent"}));
}

}  // namespace
}  // namespace capstan::cel
