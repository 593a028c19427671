#include "util/feature_gate.h"

#include <gtest/gtest.h>

#include "util/metrics.h"

namespace capstan::features {
namespace {

constexpr FeatureSpec kKnown[] = {
    {"AllAlpha", false, Stage::kAlpha, false},   {"AllBeta", false, Stage::kBeta, false},
    {"AlphaOne", false, Stage::kAlpha, false},   {"AlphaTwo", false, Stage::kAlpha, false},
    {"BetaOff", false, Stage::kBeta, false},     {"BetaOn", true, Stage::kBeta, false},
    {"GaLocked", true, Stage::kGA, true},        {"GaOpen", true, Stage::kGA, false},
    {"OldOne", false, Stage::kDeprecated, false},
};

TEST(FeatureGateTest, DefaultsUntilSet) {
  FeatureGate g(kKnown);
  EXPECT_FALSE(g.Enabled("AlphaOne"));
  EXPECT_TRUE(g.Enabled("BetaOn"));
  EXPECT_TRUE(g.Enabled("GaLocked"));
  EXPECT_EQ(g.String(), "");
}

TEST(FeatureGateTest, SetsNamedGatesWithKubePrefixAndRepeats) {
  FeatureGate g(kKnown);
  EXPECT_EQ(g.Set({"AlphaOne=true, BetaOn=false", "AlphaOne=false,AlphaTwo=T"}), "");
  EXPECT_FALSE(g.Enabled("AlphaOne")) << "a later occurrence wins";
  EXPECT_TRUE(g.Enabled("AlphaTwo"));
  EXPECT_FALSE(g.Enabled("BetaOn"));
  EXPECT_EQ(g.String(), "AlphaOne=false,AlphaTwo=true,BetaOn=false");
  FeatureGate k(kKnown);
  EXPECT_EQ(k.Set({"kube:AlphaOne=true"}), "");
  EXPECT_TRUE(k.Enabled("AlphaOne"));
}

TEST(FeatureGateTest, KubesErrorsAndNothingChangesOnError) {
  FeatureGate g(kKnown);
  EXPECT_EQ(g.Set({"Nope=true"}), "unrecognized feature gate: Nope");
  EXPECT_EQ(g.Set({"AlphaOne=true,Nope=true,GaLocked=false"}), "unrecognized feature gate: Nope");
  EXPECT_FALSE(g.Enabled("AlphaOne"));
  EXPECT_EQ(g.Set({"GaLocked=false"}), "cannot set feature gate GaLocked to false, feature is locked to true");
  EXPECT_EQ(g.Set({"GaLocked=true"}), "") << "setting a locked gate to its default is allowed";
  EXPECT_EQ(g.Set({"AlphaOne"}), "missing bool value for AlphaOne");
  EXPECT_EQ(g.Set({"AlphaOne=yes"}),
            "invalid value of AlphaOne=yes, err: strconv.ParseBool: parsing \"yes\": invalid syntax");
  EXPECT_EQ(g.Set({"other:AlphaOne=true"}), "component not registered: other");
  EXPECT_EQ(g.Set({"kube:AlphaOne=true", "AlphaTwo=true"}),
            "set kube feature gates with default empty prefix or kube: prefix consistently, do not mix use");
  EXPECT_FALSE(g.Enabled("AlphaOne"));
  EXPECT_FALSE(g.Enabled("AlphaTwo"));
}

TEST(FeatureGateTest, SeveralLockedGatesAreAllReported) {
  constexpr FeatureSpec known[] = {{"A", true, Stage::kGA, true}, {"B", false, Stage::kDeprecated, true}};
  FeatureGate g(known);
  EXPECT_EQ(g.Set({"A=false,B=true"}),
            "[cannot set feature gate A to false, feature is locked to true, cannot set feature gate B to true, feature "
            "is locked to false]");
}

TEST(FeatureGateTest, WarnsForGaAndDeprecatedGates) {
  FeatureGate g(kKnown);
  std::vector<std::string> warnings;
  EXPECT_EQ(g.Set({"GaOpen=false,OldOne=true,AlphaOne=true"}, &warnings), "");
  EXPECT_EQ(warnings, (std::vector<std::string>{
                          "Setting GA feature gate GaOpen=false. It will be removed in a future release.",
                          "Setting deprecated feature gate OldOne=true. It will be removed in a future release."}));
  EXPECT_FALSE(g.Enabled("GaOpen"));
}

TEST(FeatureGateTest, AllAlphaAndAllBetaSwitchTheirStageExceptNamedGates) {
  FeatureGate g(kKnown);
  EXPECT_EQ(g.Set({"AllAlpha=true,AlphaTwo=false"}), "");
  EXPECT_TRUE(g.Enabled("AlphaOne"));
  EXPECT_FALSE(g.Enabled("AlphaTwo"));
  EXPECT_FALSE(g.Enabled("BetaOff")) << "beta gates are not alpha";
  FeatureGate b(kKnown);
  EXPECT_EQ(b.Set({"AllBeta=false"}), "");
  EXPECT_FALSE(b.Enabled("BetaOn"));
  EXPECT_FALSE(b.Enabled("AlphaOne"));
}

TEST(FeatureGateTest, KubeApiserverSetHasKubes132Gates) {
  FeatureGate g(KubeApiserverFeatures());
  EXPECT_TRUE(g.Enabled("WatchList"));
  EXPECT_TRUE(g.Enabled("CRDValidationRatcheting"));
  EXPECT_FALSE(g.Enabled("MutatingAdmissionPolicy"));
  ASSERT_NE(g.Find("APIListChunking"), nullptr);
  EXPECT_TRUE(g.Find("APIListChunking")->locked);
  EXPECT_EQ(g.Find("ValidatingAdmissionPolicy"), nullptr) << "GA in 1.30, removed from the gates by 1.32";
  EXPECT_EQ(g.Set({"APIListChunking=false"}), "cannot set feature gate APIListChunking to false, feature is locked to true");
}

TEST(FeatureGateTest, MetricsCarryNameStageAndState) {
  FeatureGate g(kKnown);
  ASSERT_EQ(g.Set({"AlphaOne=true"}), "");
  MetricsRegistry r;
  AddFeatureMetrics(g, r);
  std::string text = r.Expose();
  EXPECT_NE(text.find("kubernetes_feature_enabled{name=\"AlphaOne\",stage=\"ALPHA\"} 1"), std::string::npos) << text;
  EXPECT_NE(text.find("kubernetes_feature_enabled{name=\"GaLocked\",stage=\"\"} 1"), std::string::npos) << text;
  EXPECT_NE(text.find("kubernetes_feature_enabled{name=\"BetaOff\",stage=\"BETA\"} 0"), std::string::npos) << text;
}

}  // namespace
}  // namespace capstan::features
