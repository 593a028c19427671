#include "server/http/query.h"

#include <gtest/gtest.h>

namespace capstan::http {
namespace {

TEST(QueryTest, DecodesPercentAndPlus) {
  Query q = Query::Parse("labelSelector=app%3Dweb%2Ctier+in+(a)&limit=5&limit=6&flag");
  EXPECT_TRUE(q.ok());
  EXPECT_EQ(q.Get("labelSelector"), "app=web,tier in (a)");
  EXPECT_EQ(q.GetAll("limit")->size(), 2u);
  EXPECT_EQ(q.Get("limit"), "5");
  EXPECT_TRUE(q.Has("flag"));
  EXPECT_EQ(q.Get("flag"), "");
}

TEST(QueryTest, BadEscapesAndSemicolonsAreSkipped) {
  Query q = Query::Parse("a=%zz&b=1;c=2&d=ok");
  EXPECT_FALSE(q.ok());
  EXPECT_FALSE(q.Has("a"));
  EXPECT_FALSE(q.Has("b"));
  EXPECT_EQ(q.Get("d"), "ok");
}

}  // namespace
}  // namespace capstan::http
