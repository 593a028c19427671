// ImagePolicyWebhook's configuration as kube's normalizeWebhookConfig reads it: the units (TTLs in
// seconds, the backoff in milliseconds), 0 for the default, -1 to disable a cache, kube's bounds and
// texts. The plugin's calls are in tests/e2e/image_policy_webhook_test.cpp.
#include "admission/image_policy_webhook.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace capstan::admission {
namespace {

using namespace std::chrono;

StatusOr<ImagePolicyConfig> Parse(const std::string& policy) {
  return ParseImagePolicyConfig(boost::json::parse("{\"imagePolicy\": " + policy + "}"));
}

TEST(ImagePolicyConfigTest, UnitsDefaultsAndDisabledCaches) {
  auto c = Parse(R"({"kubeConfigFile": "/k", "allowTTL": 50, "denyTTL": 0, "retryBackoff": 250, "defaultAllow": true})");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->kubeconfig_file, "/k");
  EXPECT_EQ(c->allow_ttl, seconds(50));
  EXPECT_EQ(c->deny_ttl, seconds(30));
  EXPECT_EQ(c->retry_backoff, milliseconds(250));
  EXPECT_TRUE(c->default_allow);
  auto off = Parse(R"({"allowTTL": -1, "denyTTL": -1})");
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(off->allow_ttl.count(), 0);
  EXPECT_EQ(off->deny_ttl.count(), 0);
  EXPECT_EQ(off->retry_backoff, milliseconds(500));
  EXPECT_EQ(Parse("{}")->allow_ttl, minutes(5));
}

TEST(ImagePolicyConfigTest, KubesErrors) {
  EXPECT_EQ(ParseImagePolicyConfig(std::nullopt).status().message(), "no config specified");
  EXPECT_EQ(Parse(R"({"allowTTL": 3600})").status().message(), "valid value is between 1s and 30m0s, got 1h0m0s");
  EXPECT_EQ(Parse(R"({"retryBackoff": 600000})").status().message(), "valid value is between 1ns and 5m0s, got 10m0s");
  EXPECT_EQ(Parse(R"({"denyTTL": "30s"})").status().message(),
            "json: cannot unmarshal string into Go struct field AdmissionConfig.imagePolicy.denyTTL of type time.Duration");
}

}  // namespace
}  // namespace capstan::admission
