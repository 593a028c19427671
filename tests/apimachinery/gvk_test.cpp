#include "apimachinery/gvk.h"

#include <gtest/gtest.h>

namespace capstan::apimachinery {
namespace {

TEST(GvkTest, StringForms) {
  EXPECT_EQ((GroupResource{"", "configmaps"}).String(), "configmaps");
  EXPECT_EQ((GroupResource{"apps", "deployments"}).String(), "deployments.apps");
  EXPECT_EQ((GroupKind{"", "ConfigMap"}).String(), "ConfigMap");
  EXPECT_EQ((GroupKind{"apps", "Deployment"}).String(), "Deployment.apps");
  EXPECT_EQ((GroupVersion{"", "v1"}).String(), "v1");
  EXPECT_EQ((GroupVersion{"apps", "v1"}).String(), "apps/v1");
  EXPECT_EQ((GroupVersionKind{"apps", "v1", "Deployment"}).String(), "apps/v1, Kind=Deployment");
  EXPECT_EQ((GroupVersionKind{"", "v1", "Pod"}).String(), "/v1, Kind=Pod");
  EXPECT_EQ((GroupVersionResource{"apps", "v1", "deployments"}).String(), "apps/v1, Resource=deployments");
  EXPECT_EQ((GroupVersionKind{"", "v1", "Pod"}).ApiVersion(), "v1");
  EXPECT_EQ((GroupVersionKind{}).ApiVersion(), "");
}

TEST(GvkTest, ParseGroupVersion) {
  auto core = ParseGroupVersion("v1");
  ASSERT_TRUE(core.ok());
  EXPECT_EQ(core->group, "");
  EXPECT_EQ(core->version, "v1");
  auto apps = ParseGroupVersion("apps/v1");
  ASSERT_TRUE(apps.ok());
  EXPECT_EQ(apps->group, "apps");
  EXPECT_EQ(apps->version, "v1");
  EXPECT_TRUE(ParseGroupVersion("")->Empty());
  EXPECT_TRUE(ParseGroupVersion("/")->Empty());
  auto bad = ParseGroupVersion("a/b/c");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "unexpected GroupVersion string: a/b/c");
  EXPECT_EQ(bad.status().code(), 400);
}

TEST(GvkTest, FromApiVersionAndKind) {
  EXPECT_EQ(FromApiVersionAndKind("apps/v1", "Deployment"), (GroupVersionKind{"apps", "v1", "Deployment"}));
  EXPECT_EQ(FromApiVersionAndKind("x/y/z", "Foo"), (GroupVersionKind{"", "", "Foo"}));
}

TEST(GvkTest, ParseGroupResourceAndKind) {
  EXPECT_EQ(ParseGroupResource("deployments.apps"), (GroupResource{"apps", "deployments"}));
  EXPECT_EQ(ParseGroupResource("foos.example.com"), (GroupResource{"example.com", "foos"}));
  EXPECT_EQ(ParseGroupResource("pods"), (GroupResource{"", "pods"}));
  EXPECT_EQ(ParseGroupKind("Deployment.apps"), (GroupKind{"apps", "Deployment"}));
}

}  // namespace
}  // namespace capstan::apimachinery
