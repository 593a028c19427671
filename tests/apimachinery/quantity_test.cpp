#include "apimachinery/quantity.h"

#include <gtest/gtest.h>

namespace capstan::apimachinery {
namespace {

std::string Str(std::string_view in) {
  auto q = ParseQuantity(in);
  if (!q.ok()) return "ERR: " + q.status().message();
  return q->String();
}

// Canonical forms and alternate spellings, from kube's own quantity tests.
TEST(QuantityTest, CanonicalForms) {
  struct Case {
    const char* expect;
    const char* alternate;
  } cases[] = {{"1Gi", "1024Mi"},     {"300Mi", "307200Ki"}, {"6Ki", ""},        {"1001Gi", "1025024Mi"},
               {"1Ti", "1024Gi"},     {"5", "5000m"},        {"500m", "0.5"},     {"1G", "1000M"},
               {"1G", "0.001T"},      {"1m", "1000u"},       {"80m", ""},         {"1080m", "1.08"},
               {"1080m", "1080000000n"}, {"300M", ""},       {"1T", ""},          {"1234567M", ""},
               {"1234567m", ""},      {"3k", ""},            {"1025", ""},        {"0", "00"},
               {"1e9", ".001e12"},    {"1e-3", "0.001e0"},   {"1e-9", "1000e-12"}, {"80e-3", ""},
               {"300e6", ""},         {"1e12", ""},          {"1e3", ""},         {"3e3", ""},
               {"1n", ""},            {"80n", ""},           {"1080n", ""},       {"1u", ""},
               {"80u", ""},           {"1080u", ""}};
  for (const Case& c : cases) {
    EXPECT_EQ(Str(c.expect), c.expect);
    if (*c.alternate) EXPECT_EQ(Str(c.alternate), c.expect) << c.alternate;
    if (std::string(c.expect) != "0") EXPECT_EQ(Str(std::string("-") + c.expect), std::string("-") + c.expect);
  }
}

TEST(QuantityTest, ParseEmit) {
  std::pair<const char*, const char*> cases[] = {
      {"1Ki", "1Ki"},        {"1Mi", "1Mi"},          {"1Gi", "1Gi"},           {"1024Mi", "1Gi"},
      {"1000M", "1G"},       {".001Ki", "1024m"},     {".000001Ki", "1024u"},   {".000000001Ki", "1024n"},
      {".000000000001Ki", "2n"}};
  for (auto [in, want] : cases) {
    EXPECT_EQ(Str(in), want) << in;
    EXPECT_EQ(Str(std::string("-") + in), std::string("-") + want) << in;
  }
}

TEST(QuantityTest, KeepsKubesCachedText) {
  EXPECT_EQ(Str("1.500"), "1.500");  // kept: scale is a multiple of 3 and no trailing 000
  EXPECT_EQ(Str("+1"), "+1");
  EXPECT_EQ(Str("1000"), "1k");
  EXPECT_EQ(Str("1.5Gi"), "1536Mi");
  EXPECT_EQ(Str("0.1"), "100m");
  EXPECT_EQ(Str("100m"), "100m");
  EXPECT_EQ(Str("1.0000000001"), "1000000001n");  // rounded up to nano
  EXPECT_EQ(Str("0.0000000001"), "1n");
  EXPECT_EQ(Str("-0.0000000001"), "-1n");
  EXPECT_EQ(Str("1000E"), "1");  // kube prints no suffix for exponent 21 (sic)
  EXPECT_EQ(Str("1.0000000000000000001E"), "1000000000000000000100m");
  EXPECT_EQ(Str("10000000000000000000"), "10E");
  EXPECT_EQ(Str("16Ei"), "9223372036854775807");  // BinarySI is capped at 2^63-1
  EXPECT_EQ(Str("1e1000000"), "10e999999");  // exponents floor to a multiple of 3
  EXPECT_EQ(Str("1e999999"), "1e999999");
  EXPECT_EQ(Str("2e3"), "2e3");
  // A large int64 mantissa with a large exponent prints with more digits than the fast path reads;
  // that form reads back (the general path takes the same exponents as the fast one).
  EXPECT_EQ(Str("00090000001095516155E00009551615"), "9000000109551615500e9551613");
  EXPECT_EQ(Str("9000000109551615500e9551613"), "9000000109551615500e9551613");
}

TEST(QuantityTest, Errors) {
  for (const char* bad : {"", "1.1.M", "1+1.0M", "aoeu", "0.1am", " 1", "1 "}) {
    EXPECT_EQ(Str(bad), std::string("ERR: ") + std::string(kQuantityFormatError)) << bad;
  }
  for (const char* bad : {"0.1mi", "-3.01e-", ".5i", "1i", "-3.01i", "1e"}) {
    EXPECT_EQ(Str(bad), "ERR: unable to parse quantity's suffix") << bad;
  }
  EXPECT_EQ(Str(".e-20"), "ERR: unable to parse numeric part of quantity");
  EXPECT_EQ(ParseQuantity("x").status().code(), 400);
}

TEST(QuantityTest, CompareAndValues) {
  auto q = [](std::string_view s) { return *ParseQuantity(s); };
  EXPECT_EQ(q("1Gi").Cmp(q("1024Mi")), 0);
  EXPECT_EQ(q("1G").Cmp(q("1Gi")), -1);
  EXPECT_EQ(q("-1").Cmp(q("1m")), -1);
  EXPECT_EQ(q("1e1000").Cmp(q("1")), 1);
  EXPECT_EQ(q("100m").Cmp(q("0.1")), 0);
  EXPECT_TRUE(q("0.1") == q("100m"));
  EXPECT_EQ(q("1.5").Value(), 2);
  EXPECT_EQ(q("-1.5").Value(), -2);
  EXPECT_EQ(q("1.5").MilliValue(), 1500);
  EXPECT_EQ(q("1Ki").Value(), 1024);
  EXPECT_EQ(q("1n").MilliValue(), 1);
  EXPECT_EQ(q("2k").AsInt64().value(), 2000);
  EXPECT_FALSE(q("1.5").AsInt64().has_value());
  EXPECT_EQ(Quantity::FromMilli(1500).String(), "1500m");
  EXPECT_EQ(Quantity::FromInt(2048, QuantityFormat::kBinarySI).String(), "2Ki");
  EXPECT_EQ(ParseQuantityJson(boost::json::value(3))->String(), "3");
  EXPECT_EQ(ParseQuantityJson(boost::json::value(" 1Gi "))->String(), "1Gi");
  EXPECT_FALSE(ParseQuantityJson(boost::json::value(true)).ok());
}

}  // namespace
}  // namespace capstan::apimachinery
