#include "apimachinery/time_util.h"

#include <gtest/gtest.h>

#include "apimachinery/int_or_string.h"

namespace capstan::apimachinery {
namespace {

std::string Err(StatusOr<Timestamp> r) { return r.ok() ? "<ok>" : r.status().message(); }

TEST(TimeUtilTest, FormatUtc) {
  Timestamp t{1714558830, 123456789};  // 2024-05-01T10:20:30.123456789Z
  EXPECT_EQ(FormatRfc3339(t), "2024-05-01T10:20:30Z");
  EXPECT_EQ(FormatRfc3339Micro(t), "2024-05-01T10:20:30.123456Z");
  EXPECT_EQ(FormatRfc3339(Timestamp{0, 0}), "1970-01-01T00:00:00Z");
  EXPECT_EQ(FormatRfc3339(Timestamp{-1, 0}), "1969-12-31T23:59:59Z");
  EXPECT_EQ(FormatRfc3339(Timestamp{951782400, 0}), "2000-02-29T00:00:00Z");
}

TEST(TimeUtilTest, ParseLikeGo) {
  auto t = ParseRfc3339("2024-05-01T10:20:30Z");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->seconds, 1714558830);
  auto off = ParseRfc3339("2024-05-01T12:20:30.5+02:00");
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(off->seconds, 1714558830);
  EXPECT_EQ(off->nanos, 500000000);
  EXPECT_EQ(FormatRfc3339(*off), "2024-05-01T10:20:30Z");
  EXPECT_TRUE(ParseRfc3339("2024-05-01T1:20:30Z").ok());  // Go accepts a one-digit hour
  auto micro = ParseRfc3339Micro("2024-05-01T10:20:30.123456Z");
  ASSERT_TRUE(micro.ok());
  EXPECT_EQ(micro->nanos, 123456000);
  EXPECT_EQ(FormatRfc3339Micro(*micro), "2024-05-01T10:20:30.123456Z");
}

TEST(TimeUtilTest, GoErrors) {
  EXPECT_EQ(Err(ParseRfc3339("x")),
            "parsing time \"x\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"x\" as \"2006\"");
  EXPECT_EQ(Err(ParseRfc3339("2024/01/01T00:00:00Z")),
            "parsing time \"2024/01/01T00:00:00Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse "
            "\"/01/01T00:00:00Z\" as \"-\"");
  EXPECT_EQ(Err(ParseRfc3339("2024-13-01T00:00:00Z")), "parsing time \"2024-13-01T00:00:00Z\": month out of range");
  EXPECT_EQ(Err(ParseRfc3339("2023-02-29T00:00:00Z")), "parsing time \"2023-02-29T00:00:00Z\": day out of range");
  EXPECT_EQ(Err(ParseRfc3339("2024-01-01T24:00:00Z")), "parsing time \"2024-01-01T24:00:00Z\": hour out of range");
  EXPECT_EQ(Err(ParseRfc3339("2024-01-01T00:00:00")),
            "parsing time \"2024-01-01T00:00:00\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as \"Z07:00\"");
  EXPECT_EQ(Err(ParseRfc3339("2024-01-01T00:00:00Zx")), "parsing time \"2024-01-01T00:00:00Zx\": extra text: \"x\"");
  EXPECT_EQ(Err(ParseRfc3339Micro("2024-01-01T00:00:00Z")),
            "parsing time \"2024-01-01T00:00:00Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Z\" as "
            "\".000000\"");
  EXPECT_EQ(ParseRfc3339("").status().code(), 400);
}

TEST(IntOrStringTest, JsonAndScaling) {
  auto i = IntOrString::FromJson(boost::json::value(8080));
  ASSERT_TRUE(i.has_value());
  EXPECT_FALSE(i->is_string());
  EXPECT_EQ(i->String(), "8080");
  auto s = IntOrString::FromJson(boost::json::value("25%"));
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->ScaledValue(10, true).value(), 3);
  EXPECT_EQ(s->ScaledValue(10, false).value(), 2);
  EXPECT_EQ(i->ScaledValue(10, true).value(), 8080);
  EXPECT_FALSE(IntOrString::FromJson(boost::json::value(1.5)).has_value());
  EXPECT_FALSE(IntOrString::FromJson(boost::json::value(int64_t{1} << 40)).has_value());
  EXPECT_EQ(IntOrString::FromString("http").ScaledValue(1, true).status().message(),
            "invalid value for IntOrString: invalid type: string is not a percentage");
  EXPECT_EQ(IntOrString::FromString("x%").ScaledValue(1, true).status().message(),
            "invalid value for IntOrString: invalid value \"x%\": strconv.Atoi: parsing \"x\": invalid syntax");
  EXPECT_EQ(IntOrString::Parse("12"), IntOrString::FromInt(12));
  EXPECT_EQ(IntOrString::Parse("12a"), IntOrString::FromString("12a"));
  EXPECT_EQ(IntOrString::FromString("a").ToJson(), boost::json::value("a"));
}

}  // namespace
}  // namespace capstan::apimachinery
