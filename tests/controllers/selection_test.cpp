// --controllers: kube-controller-manager's syntax, names and aliases.
#include "controllers/selection.h"

#include <gtest/gtest.h>

namespace capstan::controllers {
namespace {

TEST(SelectionTest, StarEnablesAllButDisabledByDefault) {
  std::vector<std::string> star{"*"};
  EXPECT_TRUE(IsControllerEnabled("namespace-controller", star));
  EXPECT_TRUE(IsControllerEnabled("garbage-collector-controller", star));
  EXPECT_FALSE(IsControllerEnabled("token-cleaner-controller", star));
}

TEST(SelectionTest, DefaultRunsEverythingCapstanHas) {
  auto def = DefaultControllerSelection();
  for (auto name : ImplementedControllers()) EXPECT_TRUE(IsControllerEnabled(name, def)) << name;
}

TEST(SelectionTest, FirstMentionDecidesAndAliasesWork) {
  EXPECT_FALSE(IsControllerEnabled("namespace-controller", {"*", "-namespace"}));
  EXPECT_FALSE(IsControllerEnabled("namespace-controller", {"-namespace-controller", "*"}));
  EXPECT_TRUE(IsControllerEnabled("namespace-controller", {"namespace", "-namespace"}));
  EXPECT_TRUE(IsControllerEnabled("token-cleaner-controller", {"*", "tokencleaner"}));
  EXPECT_FALSE(IsControllerEnabled("garbage-collector-controller", {"namespace"}));
  EXPECT_TRUE(IsControllerEnabled("garbage-collector-controller", {"-namespace", "*"}));
}

TEST(SelectionTest, UnknownNamesAreRejectedWithKubesMessage) {
  EXPECT_TRUE(ValidateControllerSelection({"*", "-deployment-controller", "replicaset", "tokencleaner"}).ok());
  Status st = ValidateControllerSelection({"*", "-nosuch"});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "\"nosuch\" is not in the list of known controllers");
}

TEST(SelectionTest, CanonicalNames) {
  EXPECT_EQ(CanonicalControllerName("root-ca-cert-publisher"), "root-ca-certificate-publisher-controller");
  EXPECT_EQ(CanonicalControllerName("serviceaccount-controller"), "serviceaccount-controller");
  EXPECT_EQ(CanonicalControllerName("bogus"), "");
}

}  // namespace
}  // namespace capstan::controllers
