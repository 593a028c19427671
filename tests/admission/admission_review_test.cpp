#include "admission/admission_review.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "util/strings.h"

namespace capstan::admission {
namespace {

registry::ResourceInfo ConfigMaps() {
  registry::ResourceInfo info;
  info.group = "";
  info.version = "v1";
  info.resource = "configmaps";
  info.kind = "ConfigMap";
  return info;
}

TEST(AdmissionReviewTest, RequestCarriesKubesFields) {
  auto info = ConfigMaps();
  UserInfo user{"alice", "u1", {"devs"}, {}};
  registry::Object obj = boost::json::parse(R"({"metadata":{"name":"cm"}})").as_object();
  Attributes a;
  a.operation = "CREATE";
  a.resource = &info;
  a.namespace_ = "default";
  a.name = "cm";
  a.object = &obj;
  a.user = &user;
  auto review = MakeReview(a, "uid-1", &obj);
  EXPECT_EQ(boost::json::serialize(review),
            R"({"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"uid-1",)"
            R"("kind":{"group":"","version":"v1","kind":"ConfigMap"},"resource":{"group":"","version":"v1","resource":"configmaps"},)"
            R"("requestKind":{"group":"","version":"v1","kind":"ConfigMap"},"requestResource":{"group":"","version":"v1","resource":"configmaps"},)"
            R"("name":"cm","namespace":"default","operation":"CREATE","userInfo":{"username":"alice","uid":"u1","groups":["devs"]},)"
            R"("object":{"metadata":{"name":"cm"}},"oldObject":null,"dryRun":false,"options":{"kind":"CreateOptions","apiVersion":"meta.k8s.io/v1"}}})");
}

std::string Resp(const std::string& response) {
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":)" + response + "}";
}

TEST(AdmissionReviewTest, VerifyResponseChecksLikeKube) {
  auto ok = VerifyResponse("u", true,
                           Resp(R"({"uid":"u","allowed":true,"patchType":"JSONPatch","patch":")" +
                                Base64Encode(R"([{"op":"add","path":"/x","value":1}])") +
                                R"(","warnings":["w1"],"auditAnnotations":{"k":"v"}})"));
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_TRUE(ok->allowed);
  EXPECT_EQ(ok->patch, R"([{"op":"add","path":"/x","value":1}])");
  EXPECT_EQ(ok->warnings, std::vector<std::string>({"w1"}));
  EXPECT_EQ(ok->audit_annotations.at("k"), "v");

  auto uid = VerifyResponse("u", false, Resp(R"({"uid":"other","allowed":true})"));
  ASSERT_FALSE(uid.ok());
  EXPECT_EQ(uid.status().message(), "expected response.uid=\"u\", got \"other\"");
  auto gvk = VerifyResponse("u", false, R"({"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview"})");
  ASSERT_FALSE(gvk.ok());
  EXPECT_EQ(gvk.status().message(),
            "expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v1beta1, "
            "Kind=AdmissionReview");
  auto patch_type = VerifyResponse("u", true, Resp(R"({"uid":"u","allowed":true,"patch":"W10="})"));
  ASSERT_FALSE(patch_type.ok());
  EXPECT_EQ(patch_type.status().message(), "webhook returned response.patch but not response.patchType");
  EXPECT_FALSE(VerifyResponse("u", false, Resp(R"({"uid":"u","allowed":true,"patchType":"JSONPatch","patch":"W10="})")).ok());
  EXPECT_FALSE(VerifyResponse("u", false, "not json").ok());
  EXPECT_FALSE(VerifyResponse("u", false, R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"})").ok());
}

TEST(AdmissionReviewTest, DeniedStatusTexts) {
  auto with_message = DeniedStatus("w.example.com", boost::json::parse(R"({"code":403,"message":"no"})"));
  EXPECT_EQ(with_message.code(), 403);
  EXPECT_EQ(with_message.message(), "admission webhook \"w.example.com\" denied the request: no");
  auto with_reason = DeniedStatus("w", boost::json::parse(R"({"reason":"Forbidden"})"));
  EXPECT_EQ(with_reason.code(), 400);
  EXPECT_EQ(with_reason.message(), "admission webhook \"w\" denied the request: Forbidden");
  auto bare = DeniedStatus("w", std::nullopt);
  EXPECT_EQ(bare.message(), "admission webhook \"w\" denied the request without explanation");
}

}  // namespace
}  // namespace capstan::admission
