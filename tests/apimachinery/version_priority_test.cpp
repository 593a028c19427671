#include "apimachinery/version_priority.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace capstan::apimachinery {
namespace {

TEST(VersionPriorityTest, GaBeforeBetaBeforeAlphaThenByNumber) {
  EXPECT_GT(CompareKubeAwareVersionStrings("v1", "v1beta1"), 0);
  EXPECT_GT(CompareKubeAwareVersionStrings("v2", "v1"), 0);
  EXPECT_GT(CompareKubeAwareVersionStrings("v1beta2", "v1beta1"), 0);
  EXPECT_GT(CompareKubeAwareVersionStrings("v1beta1", "v1alpha1"), 0);
  EXPECT_GT(CompareKubeAwareVersionStrings("v1beta1", "v2alpha1"), 0);
  EXPECT_GT(CompareKubeAwareVersionStrings("v10", "v9"), 0);
  EXPECT_LT(CompareKubeAwareVersionStrings("v1alpha1", "v1"), 0);
  EXPECT_EQ(CompareKubeAwareVersionStrings("v1", "v1"), 0);
}

TEST(VersionPriorityTest, OtherNamesSortLastAlphabetically) {
  EXPECT_GT(CompareKubeAwareVersionStrings("v1alpha1", "foo"), 0);
  EXPECT_GT(CompareKubeAwareVersionStrings("bar", "foo"), 0);
  EXPECT_LT(CompareKubeAwareVersionStrings("v1gamma1", "v1alpha1"), 0);  // not kube-like
  EXPECT_LT(CompareKubeAwareVersionStrings("v1beta", "v1alpha1"), 0);    // no minor: not kube-like
  EXPECT_LT(CompareKubeAwareVersionStrings("V1", "v1alpha1"), 0);
}

TEST(VersionPriorityTest, DigitsReadAsAtoiReadsThem) {
  // Go's strconv.Atoi takes leading zeros; a number past int64 makes the name not kube-like.
  EXPECT_EQ(CompareKubeAwareVersionStrings("v01", "v1"), 0);
  EXPECT_LT(CompareKubeAwareVersionStrings("v99999999999999999999", "v1alpha1"), 0);
}

TEST(VersionPriorityTest, SortsAsDiscoveryListsThem) {
  std::vector<std::string> v = {"v1alpha1", "v1", "foo", "v1beta1", "v2beta1", "v2", "v1beta2", "bar"};
  std::sort(v.begin(), v.end(), KubeAwareVersionLess);
  EXPECT_EQ(v, (std::vector<std::string>{"v2", "v1", "v2beta1", "v1beta2", "v1beta1", "v1alpha1", "bar", "foo"}));
}

}  // namespace
}  // namespace capstan::apimachinery
