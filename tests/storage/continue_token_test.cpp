#include "storage/continue_token.h"

#include <gtest/gtest.h>

#include "util/strings.h"

namespace capstan::storage {
namespace {

TEST(ContinueTokenTest, RoundTripsKubesFormat) {
  std::string token = EncodeContinue(std::string("/registry/configmaps/default/b") + std::string(1, '\0'), "/registry/configmaps/default/", 42);
  std::string raw;
  ASSERT_TRUE(Base64UrlDecode(token, raw));
  EXPECT_EQ(raw, "{\"v\":\"meta.k8s.io/v1\",\"rv\":42,\"start\":\"b\\u0000\"}");
  auto pos = DecodeContinue(token, "/registry/configmaps/default/");
  ASSERT_TRUE(pos.ok()) << pos.status().message();
  EXPECT_EQ(pos->from_key, std::string("/registry/configmaps/default/b") + std::string(1, '\0'));
  EXPECT_EQ(pos->revision, 42);
}

TEST(ContinueTokenTest, RejectsTraversalAndGarbage) {
  std::string up = Base64UrlEncode("{\"v\":\"meta.k8s.io/v1\",\"rv\":5,\"start\":\"../secrets/x\"}");
  auto r = DecodeContinue(up, "/registry/configmaps/");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), 400);
  EXPECT_NE(r.status().message().find("invalid continue token: continue key is not valid"), std::string::npos);
  EXPECT_FALSE(DecodeContinue("!!!", "/p/").ok());
  EXPECT_FALSE(DecodeContinue(Base64UrlEncode("{\"v\":\"x\",\"rv\":1,\"start\":\"a\"}"), "/p/").ok());
  EXPECT_FALSE(DecodeContinue(Base64UrlEncode("{\"v\":\"meta.k8s.io/v1\",\"rv\":0,\"start\":\"a\"}"), "/p/").ok());
  EXPECT_FALSE(DecodeContinue(Base64UrlEncode("{\"v\":\"meta.k8s.io/v1\",\"rv\":3,\"start\":\"\"}"), "/p/").ok());
}

}  // namespace
}  // namespace capstan::storage
