#include "cmd/runtime_config.h"

#include <gtest/gtest.h>

namespace capstan::cmd {
namespace {

std::string ErrorOf(const std::vector<std::string>& values, bool apf = true) {
  auto rc = RuntimeConfig::Parse(values, apf);
  return rc.ok() ? "" : rc.status().message();
}

TEST(RuntimeConfigTest, KubesDefaultsServeGaVersionsOnly) {
  RuntimeConfig rc;
  EXPECT_TRUE(rc.VersionEnabled("", "v1"));
  EXPECT_TRUE(rc.VersionEnabled("autoscaling", "v2"));
  EXPECT_TRUE(rc.VersionEnabled("apiextensions.k8s.io", "v1"));
  EXPECT_FALSE(rc.VersionEnabled("resource.k8s.io", "v1beta1"));
  EXPECT_FALSE(rc.VersionEnabled("apps", "v1beta1")) << "registered, but kube has no storage for it";
  EXPECT_TRUE(rc.ResourceEnabled("batch", "v1", "cronjobs"));
}

TEST(RuntimeConfigTest, VersionsAndResourcesSwitch) {
  auto rc = RuntimeConfig::Parse({"batch/v1/cronjobs=false,resource.k8s.io/v1beta1", "storage.k8s.io/v1=false"}, true);
  ASSERT_TRUE(rc.ok()) << rc.status().message();
  EXPECT_FALSE(rc->ResourceEnabled("batch", "v1", "cronjobs"));
  EXPECT_TRUE(rc->ResourceEnabled("batch", "v1", "jobs"));
  EXPECT_TRUE(rc->VersionEnabled("resource.k8s.io", "v1beta1")) << "no value means true";
  EXPECT_FALSE(rc->VersionEnabled("storage.k8s.io", "v1"));
  auto few = RuntimeConfig::Parse({"api/all=false,batch/v1=true,resource.k8s.io/v1beta1,apps/v1=false"}, false);
  ASSERT_TRUE(few.ok()) << few.status().message();
  EXPECT_EQ(few->NotServed({"batch/v1", "apps/v1"}), (std::vector<std::string>{"resource.k8s.io/v1beta1"}))
      << "the enabled versions Capstan lacks";
}

TEST(RuntimeConfigTest, StageKeysAndTheCoreGroup) {
  auto all = RuntimeConfig::Parse({"api/all=true"}, true);
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->VersionEnabled("resource.k8s.io", "v1alpha3"));
  EXPECT_TRUE(all->VersionEnabled("flowcontrol.apiserver.k8s.io", "v1beta3"));
  EXPECT_FALSE(all->VersionEnabled("apps", "v1beta1")) << "api/all switches the versions kube's config lists";
  auto beta = RuntimeConfig::Parse({"api/beta=true,api/alpha=false,networking.k8s.io/v1beta1=false"}, true);
  ASSERT_TRUE(beta.ok());
  EXPECT_TRUE(beta->VersionEnabled("storage.k8s.io", "v1beta1"));
  EXPECT_FALSE(beta->VersionEnabled("networking.k8s.io", "v1beta1")) << "a version key wins over a stage key";
  EXPECT_FALSE(beta->VersionEnabled("coordination.k8s.io", "v1alpha2"));
  auto ga_off = RuntimeConfig::Parse({"api/ga=false,v1=true,apps/v1"}, false);
  ASSERT_TRUE(ga_off.ok()) << ga_off.status().message();
  EXPECT_TRUE(ga_off->VersionEnabled("", "v1"));
  EXPECT_TRUE(ga_off->VersionEnabled("apps", "v1"));
  EXPECT_FALSE(ga_off->VersionEnabled("batch", "v1"));
  auto legacy = RuntimeConfig::Parse({"api/v1=false,api/legacy=true,apps/v1=true"}, true);
  ASSERT_TRUE(legacy.ok());
  EXPECT_FALSE(legacy->VersionEnabled("", "v1"));
}

TEST(RuntimeConfigTest, KubesErrors) {
  EXPECT_EQ(ErrorOf({"api/all=false"}, false), "invalid key with only api/all=false");
  EXPECT_EQ(ErrorOf({"api/all=false"}),
            "[--runtime-config=api/all=false conflicts with --enable-priority-and-fairness=true, invalid key with only "
            "api/all=false]");
  EXPECT_EQ(ErrorOf({"foo"}), "runtime-config invalid key foo");
  EXPECT_EQ(ErrorOf({"a/b/c/d=true"}), "runtime-config invalid key a/b/c/d");
  EXPECT_EQ(ErrorOf({"example.com/v1=true,other.io/v2=true"}), "unknown api groups example.com,other.io");
  EXPECT_EQ(ErrorOf({"apps/v9=true"}), "group version apps/v9 that has not been registered");
  EXPECT_EQ(ErrorOf({"apps/v1=yes"}), "invalid value of apps/v1: yes, err: strconv.ParseBool: parsing \"yes\": invalid syntax");
  EXPECT_EQ(ErrorOf({"api/beta=1"}), "invalid value api/beta=1");
  EXPECT_EQ(ErrorOf({"apps/v1/Deployments=false"}),
            "invalid key apps/v1/Deployments: group/version/resource and resource is always lowercase plural, not \"Deployments\"");
  EXPECT_EQ(ErrorOf({"flowcontrol.apiserver.k8s.io/v1=false"}),
            "--runtime-config=flowcontrol.apiserver.k8s.io/v1=false conflicts with --enable-priority-and-fairness=true");
  EXPECT_EQ(ErrorOf({"api/all=false,flowcontrol.apiserver.k8s.io/v1=true"}), "") << "the more specific key decides";
  EXPECT_EQ(ErrorOf({"api/ga=false"}, false), "");
}

}  // namespace
}  // namespace capstan::cmd
