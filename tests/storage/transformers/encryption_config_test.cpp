#include "storage/transformers/encryption_config.h"

#include <gtest/gtest.h>

#include "storage/transformers/prefix_transformer.h"
#include "util/feature_gate.h"

namespace capstan::storage::transformers {
namespace {

// base64 of 32 bytes / 16 bytes / 8 bytes.
const char k32[] = "MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTI=";
const char k16[] = "MTIzNDU2Nzg5MDEyMzQ1Ng==";
const char k8[] = "MTIzNDU2Nzg=";

std::string Config(const std::string& resources, const std::string& providers) {
  return "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: " + resources +
         "\n  providers:\n" + providers;
}

TEST(EncryptionConfig, ParsesProvidersInOrder) {
  auto c = ParseEncryptionConfig(Config("[secrets, configmaps]", std::string("  - aesgcm:\n      keys:\n      - name: k2\n        secret: ") +
                                                                      k16 + "\n      - name: k1\n        secret: " + k32 +
                                                                      "\n  - secretbox:\n      keys:\n      - name: s\n        secret: " +
                                                                      k32 + "\n  - identity: {}\n"));
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->resources.size(), 1u);
  EXPECT_EQ(c->resources[0].resources, (std::vector<std::string>{"secrets", "configmaps"}));
  ASSERT_EQ(c->resources[0].providers.size(), 3u);
  EXPECT_EQ(c->resources[0].providers[0].type, "aesgcm");
  EXPECT_EQ(c->resources[0].providers[0].keys[0].name, "k2");
  EXPECT_EQ(c->resources[0].providers[1].type, "secretbox");
  EXPECT_EQ(c->resources[0].providers[2].type, "identity");
}

TEST(EncryptionConfig, KubesValidationMessages) {
  auto bad_len = ParseEncryptionConfig(Config("[secrets]", std::string("  - aescbc:\n      keys:\n      - name: k\n        secret: ") + k8 + "\n"));
  ASSERT_FALSE(bad_len.ok());
  EXPECT_EQ(bad_len.status().message(),
            "resources[0].providers[0].aescbc.keys[0].secret: Invalid value: \"REDACTED\": secret is not of the "
            "expected length, got 8, expected one of [16 24 32]");
  auto box_len = ParseEncryptionConfig(Config("[secrets]", std::string("  - secretbox:\n      keys:\n      - name: k\n        secret: ") + k16 + "\n"));
  EXPECT_EQ(box_len.status().message(),
            "resources[0].providers[0].secretbox.keys[0].secret: Invalid value: \"REDACTED\": secret is not of the "
            "expected length, got 16, expected one of [32]");
  auto not_b64 = ParseEncryptionConfig(Config("[secrets]", "  - aesgcm:\n      keys:\n      - name: k\n        secret: '%%%'\n"));
  EXPECT_EQ(not_b64.status().message(),
            "resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: \"REDACTED\": secrets must be base64 encoded");
  auto no_keys = ParseEncryptionConfig(Config("[secrets]", "  - aesgcm:\n      keys: []\n"));
  EXPECT_EQ(no_keys.status().message(), "resources[0].providers[0].aesgcm.keys: Required value: at least one keys is required");
  auto no_name = ParseEncryptionConfig(Config("[secrets]", std::string("  - aesgcm:\n      keys:\n      - secret: ") + k16 + "\n"));
  EXPECT_EQ(no_name.status().message(),
            "resources[0].providers[0].aesgcm.keys[0].name: Required value: name is a mandatory field for a key");
  auto capital = ParseEncryptionConfig(Config("[Secrets]", "  - identity: {}\n"));
  EXPECT_EQ(capital.status().message(),
            "resources[0].resources[0]: Invalid value: \"Secrets\": resource name should not contain capital letters");
  auto star = ParseEncryptionConfig(Config("['*']", "  - identity: {}\n"));
  EXPECT_EQ(star.status().message(),
            "resources[0].resources[0]: Invalid value: \"*\": use '*.' to encrypt all the resources from core API group "
            "or *.* to encrypt all resources");
  auto overlap = ParseEncryptionConfig(Config("[secrets, '*.']", "  - identity: {}\n"));
  EXPECT_NE(overlap.status().message().find("using overlapping resources such as 'secrets' and '*.' in the same "
                                            "resource list is not allowed as they will be masked"),
            std::string::npos)
      << overlap.status().message();
  auto no_providers = ParseEncryptionConfig(Config("[secrets]", ""));
  EXPECT_NE(no_providers.status().message().find("at least one resources[0].providers is required"), std::string::npos)
      << no_providers.status().message();
  auto two = ParseEncryptionConfig(Config("[secrets]", "  - identity: {}\n    aesgcm: {keys: []}\n"));
  EXPECT_NE(two.status().message().find("more than one provider specified in a single element"), std::string::npos)
      << two.status().message();
  auto kind = ParseEncryptionConfig("apiVersion: v1\nkind: ConfigMap\n");
  EXPECT_FALSE(kind.ok());
  EXPECT_NE(kind.status().message().find("got unexpected config type"), std::string::npos);
  // kms: apiVersion defaults to v1, which kube 1.32 builds only behind its KMSv1 gate.
  auto kms = ParseEncryptionConfig(Config("[secrets]", "  - kms:\n      name: x\n      endpoint: unix:///k.sock\n"));
  ASSERT_TRUE(kms.ok()) << kms.status().message();
  EXPECT_EQ(kms->resources[0].providers[0].kms.api_version, "v1");
  auto v1 = BuildTransformers(*kms, [](const KmsConfig&) -> StatusOr<std::shared_ptr<const Transformer>> {
    return Status(500, "InternalError", "not reached");
  });
  EXPECT_EQ(v1.status().message(), "KMSv1 is deprecated and will only receive security updates going forward. Use KMSv2 "
                                   "instead.  Set --feature-gates=KMSv1=true to use the deprecated KMSv1 feature.");
  // With the gate on, the factory builds it, with kube's default cachesize; 0 is refused.
  EXPECT_EQ(kms->resources[0].providers[0].kms.cache_size, 1000);
  ASSERT_EQ(features::MutableGates().Set({"KMSv1=true"}), "");
  int built = 0;
  auto on = BuildTransformers(*kms, [&](const KmsConfig& c) -> StatusOr<std::shared_ptr<const Transformer>> {
    ++built;
    EXPECT_EQ(c.api_version, "v1");
    return EncryptCheckIdentity();
  });
  ASSERT_EQ(features::MutableGates().Set({"KMSv1=false"}), "");
  EXPECT_TRUE(on.ok()) << on.status().message();
  EXPECT_EQ(built, 1);
  auto zero = ParseEncryptionConfig(
      Config("[secrets]", "  - kms:\n      name: x\n      cachesize: 0\n      endpoint: unix:///k.sock\n"));
  EXPECT_NE(zero.status().message().find("cachesize should be a positive value, or negative to disable"), std::string::npos)
      << zero.status().message();
  auto v2 = ParseEncryptionConfig(Config("[secrets]", "  - kms:\n      apiVersion: v2\n      name: x\n      endpoint: "
                                                      "unix:///k.sock\n      timeout: 5s\n"));
  ASSERT_TRUE(v2.ok()) << v2.status().message();
  EXPECT_EQ(v2->resources[0].providers[0].kms.name, "x");
  EXPECT_EQ(v2->resources[0].providers[0].kms.timeout, std::chrono::seconds(5));
  auto bad_v2 = ParseEncryptionConfig(Config("[secrets]", "  - kms:\n      apiVersion: v2\n      name: a:b\n      endpoint: "
                                                          "tcp://k:1\n      cachesize: 10\n"));
  EXPECT_NE(bad_v2.status().message().find("kms.name: Invalid value: \"a:b\": invalid KMS provider name a:b, must not "
                                           "contain ':'"),
            std::string::npos)
      << bad_v2.status().message();
  EXPECT_NE(bad_v2.status().message().find("kms.endpoint: Invalid value: \"tcp://k:1\": unsupported scheme \"tcp\" for KMS "
                                           "provider, only unix is supported"),
            std::string::npos);
  EXPECT_NE(bad_v2.status().message().find("kms.cachesize: Invalid value: 10: cachesize is not supported in v2"),
            std::string::npos);
  EXPECT_FALSE(ParseEncryptionConfig("resources: [").ok());
}

TEST(EncryptionConfig, LaterRulesMaskedByWildcardsAreRefused) {
  auto c = ParseEncryptionConfig(
      "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n"
      "- resources: ['*.apps']\n  providers: [{identity: {}}]\n"
      "- resources: [deployments.apps]\n  providers: [{identity: {}}]\n");
  ASSERT_TRUE(c.ok()) << c.status().message();
  auto built = BuildTransformers(*c);
  ASSERT_FALSE(built.ok());
  EXPECT_EQ(built.status().message(), "resource \"deployments.apps\" is masked by earlier rule \"*.apps\"");
}

TEST(EncryptionConfig, ParseGroupResourceAsKube) {
  EXPECT_EQ(ParseGroupResource("secrets"), (GroupResource{"", "secrets"}));
  EXPECT_EQ(ParseGroupResource("deployments.apps"), (GroupResource{"apps", "deployments"}));
  EXPECT_EQ(ParseGroupResource("*.apps"), (GroupResource{"apps", "*"}));
  EXPECT_EQ(ParseGroupResource("*.*"), (GroupResource{"*", "*"}));
  EXPECT_EQ(ParseGroupResource("*."), (GroupResource{"", "*"}));
  EXPECT_EQ(ParseGroupResource("leases.coordination.k8s.io"), (GroupResource{"coordination.k8s.io", "leases"}));
}

TEST(EncryptionConfig, LoadNamesTheFile) {
  auto missing = LoadEncryptionConfig("/nonexistent/enc.yaml");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("\"/nonexistent/enc.yaml\""), std::string::npos);
}

}  // namespace
}  // namespace capstan::storage::transformers
