// Valid and invalid values per format, following kube-openapi's strfmt checks.
#include "apimachinery/schema_formats.h"

#include <gtest/gtest.h>

namespace capstan::apimachinery {
namespace {

struct Case {
  const char* format;
  const char* value;
  bool valid;
};

TEST(SchemaFormatsTest, NamesAreNormalized) {
  EXPECT_EQ(LookupStringFormat("date-time"), StringFormat::kDateTime);
  EXPECT_EQ(LookupStringFormat("datetime"), StringFormat::kDateTime);
  EXPECT_EQ(LookupStringFormat("k8s-short-name"), StringFormat::kK8sShortName);
  EXPECT_EQ(LookupStringFormat("int32"), StringFormat::kNone);
  EXPECT_EQ(LookupStringFormat("color"), StringFormat::kNone);
}

TEST(SchemaFormatsTest, Values) {
  const Case cases[] = {
      {"ipv4", "10.0.0.1", true},
      {"ipv4", "010.000.0.1", true},  // Go's sloppy parser keeps leading zeros
      {"ipv4", "256.0.0.1", false},
      {"ipv4", "1.2.3", false},
      {"ipv4", "::ffff:1.2.3.4", true},  // any IP with a dot, as kube checks it
      {"ipv6", "::1", true},
      {"ipv6", "2001:db8::8a2e:370:7334", true},
      {"ipv6", "2001:db8:::1", false},
      {"ipv6", "10.0.0.1", false},
      {"ipv6", "12345::", false},
      {"cidr", "10.0.0.0/8", true},
      {"cidr", "fd00::/64", true},
      {"cidr", "10.0.0.0/33", false},
      {"cidr", "10.0.0.0", false},
      {"mac", "00:1a:2b:3c:4d:5e", true},
      {"mac", "00-1a-2b-3c-4d-5e", true},
      {"mac", "001a.2b3c.4d5e", true},
      {"mac", "00:1a:2b:3c:4d", false},
      {"mac", "00:1a-2b:3c:4d:5e", false},
      {"uuid", "123e4567-e89b-12d3-a456-426614174000", true},
      {"uuid", "123E4567E89B12D3A456426614174000", true},
      {"uuid", "123e4567-e89b-12d3-a456", false},
      {"uuid4", "123e4567-e89b-42d3-a456-426614174000", true},
      {"uuid4", "123e4567-e89b-12d3-a456-426614174000", false},
      {"uuid3", "123e4567-e89b-32d3-a456-426614174000", true},
      {"uuid5", "123e4567-e89b-52d3-8456-426614174000", true},
      {"hostname", "example.com", true},
      {"hostname", "localhost", true},
      {"hostname", "-bad.com", false},
      {"hostname", "a_b.com", false},
      {"date", "2024-02-29", true},
      {"date", "2023-02-29", false},
      {"date", "2024-13-01", false},
      {"date", "2024-1-01", false},
      {"date-time", "2006-01-02T15:04:05Z", true},
      {"date-time", "2006-01-02t15:04:05.123+07:00", true},
      {"date-time", "2006-01-02T24:04:05Z", false},
      {"date-time", "2006-01-02 15:04:05Z", false},
      {"duration", "1h30m", true},
      {"duration", "-1.5s", true},
      {"duration", "3 days", true},
      {"duration", "0", true},
      {"duration", "forever", false},
      {"duration", "1x", false},
      {"byte", "aGVsbG8=", true},
      {"byte", "aGVsbG8", false},
      {"byte", "", false},
      {"uri", "https://example.com/path?q=1", true},
      {"uri", "/just/a/path", true},
      {"uri", "mailto:someone", true},
      {"uri", "relative/path", false},
      {"uri", "", false},
      {"uri", "http://[::1", false},
      {"uri", "http://host:port/", false},
      {"uri", "/bad%zz", false},
      {"email", "someone@example.com", true},
      {"email", "Some One <someone@example.com>", true},
      {"email", "someone", false},
      {"email", "a..b@example.com", false},
      {"bsonobjectid", "507f1f77bcf86cd799439011", true},
      {"bsonobjectid", "507f1f77bcf86cd79943901", false},
      {"isbn10", "0321751043", true},
      {"isbn10", "0321751044", false},
      {"isbn13", "978-0321751041", true},
      {"isbn", "978-0321751041", true},
      {"creditcard", "4111 1111 1111 1111", true},
      {"creditcard", "4111 1111 1111 1112", false},
      {"ssn", "123-45-6789", true},
      {"ssn", "123456789", false},
      {"hexcolor", "#ffF", true},
      {"hexcolor", "#ffff", false},
      {"rgbcolor", "rgb(255, 0, 10)", true},
      {"rgbcolor", "rgb(256,0,0)", false},
      {"password", "anything", true},
      {"k8s-short-name", "abc-1", true},
      {"k8s-short-name", "a-", false},
      {"k8s-short-name", "A", false},
      {"k8s-long-name", "a.b-c.d", true},
      {"k8s-long-name", "a.-", false},
  };
  for (const auto& c : cases) {
    StringFormat f = LookupStringFormat(c.format);
    ASSERT_NE(f, StringFormat::kNone) << c.format;
    EXPECT_EQ(IsValidStringFormat(f, c.value), c.valid) << c.format << " " << c.value;
  }
}

}  // namespace
}  // namespace capstan::apimachinery
