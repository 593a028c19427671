#include "auth/authn/token_file.h"

#include <gtest/gtest.h>

#include "auth/authn/csv.h"
#include "authn_test_util.h"

namespace capstan::authn {
namespace {

TEST(CsvTest, GoEncodingCsvRules) {
  auto r = ParseCsv("a,b,c\n\n\"x,y\",\"he said \"\"hi\"\"\",\r\nlast");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].fields, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ((*r)[1].fields, (std::vector<std::string>{"x,y", "he said \"hi\"", ""}));
  EXPECT_EQ((*r)[1].line, 3);
  EXPECT_EQ((*r)[2].fields, (std::vector<std::string>{"last"}));
}

TEST(CsvTest, QuotedNewlines) {
  auto r = ParseCsv("\"a\nb\",c\nd\n");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].fields[0], "a\nb");
  EXPECT_EQ((*r)[1].line, 3);
}

TEST(CsvTest, Errors) {
  EXPECT_EQ(ParseCsv("a,b\"c\n").status().message(), "parse error on line 1, column 4: bare \" in non-quoted-field");
  EXPECT_EQ(ParseCsv("ok\n\"abc\"x\n").status().message(),
            "parse error on line 2, column 6: extraneous or missing \" in quoted-field");
  EXPECT_FALSE(ParseCsv("\"unterminated").ok());
}

TEST(StaticTokenTest, LoadsUsersAndGroups) {
  auto a = StaticTokenAuthenticator::FromCsv("tok1,alice,uid-1,\"dev,ops\"\ntok2,bob,uid-2\ntok3,carol,uid-3,\n,empty,x\n",
                                             "tokens.csv");
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ((*a)->size(), 3u);
  auto u = (*a)->Lookup("tok1");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->name, "alice");
  EXPECT_EQ(u->uid, "uid-1");
  EXPECT_EQ(u->groups, (std::vector<std::string>{"dev", "ops"}));
  EXPECT_TRUE((*a)->Lookup("tok2")->groups.empty());
  // kube splits an empty fourth column into one empty group.
  EXPECT_EQ((*a)->Lookup("tok3")->groups, (std::vector<std::string>{""}));
  EXPECT_FALSE((*a)->Lookup("tok"));
  EXPECT_FALSE((*a)->Lookup("tok11"));
  EXPECT_FALSE((*a)->Lookup(""));
}

TEST(StaticTokenTest, AuthenticateToken) {
  auto a = StaticTokenAuthenticator::FromCsv("tok1,alice,uid-1\n", "tokens.csv");
  auto r = SyncWait((*a)->AuthenticateToken("tok1", {}));
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->user.name, "alice");
  r = SyncWait((*a)->AuthenticateToken("nope", {}));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
}

TEST(StaticTokenTest, Errors) {
  auto a = StaticTokenAuthenticator::FromCsv("tok,alice\n", "tokens.csv");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().message(), "token file 'tokens.csv' must have at least 3 columns (token, user name, user uid), found 2");
  EXPECT_FALSE(StaticTokenAuthenticator::FromCsv("\"bad", "tokens.csv").ok());
  EXPECT_FALSE(StaticTokenAuthenticator::FromFile("/nonexistent/tokens.csv").ok());
  testing::TempDir dir;
  auto ok = StaticTokenAuthenticator::FromFile(dir.Write("t.csv", "a,b,c\n"));
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE((*ok)->Lookup("a"));
}

TEST(ConstantTimeEqualsTest, Basics) {
  EXPECT_TRUE(ConstantTimeEquals("abc", "abc"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abd"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "ab"));
  EXPECT_EQ(Sha256("").size(), 32u);
}

}  // namespace
}  // namespace capstan::authn
