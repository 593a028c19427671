// api/apiextensions/crd_v1beta1.h: CRDs between v1 (served) and v1beta1 (kube's storage form).
#include "api/apiextensions/crd_v1beta1.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace capstan::api::apiextensions {
namespace {

namespace json = boost::json;

json::object J(std::string_view s) { return json::parse(s).as_object(); }

// One served version; schema, subresources and columns identical everywhere: hoisted in v1beta1.
constexpr std::string_view kOneVersion = R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
  "metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","scope":"Namespaced",
  "names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},
  "versions":[{"name":"v1","served":true,"storage":true,
    "schema":{"openAPIV3Schema":{"type":"object","properties":{"size":{"type":"integer"}}}},
    "subresources":{"status":{}},
    "additionalPrinterColumns":[{"name":"Size","type":"integer","jsonPath":".size"}]}],
  "conversion":{"strategy":"None"}},
  "status":{"storedVersions":["v1"]}})";

TEST(CrdV1beta1Test, IdenticalPerVersionFieldsMoveToTheTopAsKubeStoresThem) {
  auto b = CrdV1ToV1beta1(J(kOneVersion));
  ASSERT_TRUE(b.ok());
  const auto& spec = b->at("spec").as_object();
  EXPECT_EQ(b->at("apiVersion"), "apiextensions.k8s.io/v1beta1");
  EXPECT_EQ(spec.at("version"), "v1");
  EXPECT_EQ(spec.at("validation").at("openAPIV3Schema").at("type"), "object");
  EXPECT_TRUE(spec.at("subresources").at("status").is_object());
  EXPECT_EQ(spec.at("additionalPrinterColumns").at(0).at("JSONPath"), ".size");
  EXPECT_EQ(spec.at("versions").at(0).as_object(), J(R"({"name":"v1","served":true,"storage":true})"));
  auto back = CrdV1beta1ToV1(*b);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(json::value(*back), json::value(J(kOneVersion)))
      << json::serialize(*back);
}

TEST(CrdV1beta1Test, DifferentSchemasStayPerVersionAndWebhooksMove) {
  auto v1 = J(R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"a.b.c"},
    "spec":{"group":"b.c","versions":[
      {"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}},
      {"name":"v2","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}],
    "conversion":{"strategy":"Webhook","webhook":{"clientConfig":{"url":"https://hook.example.com"},"conversionReviewVersions":["v1"]}}}})");
  auto b = CrdV1ToV1beta1(v1);
  ASSERT_TRUE(b.ok());
  const auto& spec = b->at("spec").as_object();
  EXPECT_FALSE(spec.contains("validation"));
  EXPECT_TRUE(spec.at("versions").at(1).as_object().contains("schema"));
  EXPECT_EQ(spec.at("conversion").as_object(),
            J(R"({"strategy":"Webhook","webhookClientConfig":{"url":"https://hook.example.com"},"conversionReviewVersions":["v1"]})"));
  EXPECT_EQ(spec.at("preserveUnknownFields"), false);  // v1's default, kept explicit
  auto back = CrdV1beta1ToV1(*b);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(json::value(*back), json::value(v1)) << json::serialize(*back);
}

// What a kube-apiserver keeps in etcd for a CRD first created as v1beta1 with only spec.version.
TEST(CrdV1beta1Test, KubesStoredFormReadsAsV1WithV1beta1Defaults) {
  auto v1 = CrdV1beta1ToV1(J(R"({"kind":"CustomResourceDefinition","apiVersion":"apiextensions.k8s.io/v1beta1",
    "metadata":{"name":"olds.example.com"},"spec":{"group":"example.com","version":"v1alpha1",
    "names":{"plural":"olds","kind":"Old"},"scope":"Cluster",
    "validation":{"openAPIV3Schema":{"type":"object"}},
    "additionalPrinterColumns":[{"name":"Age","type":"date","JSONPath":".metadata.creationTimestamp"}]}})"));
  ASSERT_TRUE(v1.ok());
  const auto& spec = v1->at("spec").as_object();
  EXPECT_EQ(v1->at("apiVersion"), "apiextensions.k8s.io/v1");
  EXPECT_FALSE(spec.contains("version"));
  EXPECT_FALSE(spec.contains("validation"));
  EXPECT_EQ(spec.at("preserveUnknownFields"), true);
  ASSERT_EQ(spec.at("versions").as_array().size(), 1u);
  const auto& v = spec.at("versions").at(0).as_object();
  EXPECT_EQ(v.at("name"), "v1alpha1");
  EXPECT_EQ(v.at("storage"), true);
  EXPECT_EQ(v.at("schema").at("openAPIV3Schema").at("type"), "object");
  EXPECT_EQ(v.at("additionalPrinterColumns").at(0).at("jsonPath"), ".metadata.creationTimestamp");
  // Other versions pass through untouched.
  auto other = J(R"({"apiVersion":"v1","kind":"ConfigMap"})");
  EXPECT_EQ(*CrdV1beta1ToV1(other), other);
  EXPECT_EQ(*CrdV1ToV1beta1(other), other);
}

}  // namespace
}  // namespace capstan::api::apiextensions
