#include "auth/authn/bootstrap_token.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include "apimachinery/time_util.h"
#include "authn_test_util.h"
#include "util/strings.h"

namespace capstan::authn {
namespace {

namespace json = boost::json;
namespace am = capstan::apimachinery;
using testing::FakeObjects;

TEST(ParseBootstrapTokenTest, Shape) {
  auto p = ParseBootstrapToken("abcdef.0123456789abcdef");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->first, "abcdef");
  EXPECT_EQ(p->second, "0123456789abcdef");
  EXPECT_FALSE(ParseBootstrapToken("ABCDEF.0123456789abcdef"));
  EXPECT_FALSE(ParseBootstrapToken("abcdef0123456789abcdef"));
  EXPECT_FALSE(ParseBootstrapToken("abcde.0123456789abcdef0"));
  EXPECT_FALSE(ParseBootstrapToken(""));
}

class BootstrapTest : public ::testing::Test {
 protected:
  void Store(std::map<std::string, std::string> data, std::string type = "bootstrap.kubernetes.io/token",
             bool deleting = false) {
    json::object d;
    for (auto& [k, v] : data) d[k] = Base64Encode(v);
    json::object s = testing::Meta("bootstrap-token-abcdef", "u", deleting ? "2024-01-01T00:00:00Z" : "");
    s["type"] = type;
    s["data"] = std::move(d);
    objects_.Put("secrets", "kube-system", "bootstrap-token-abcdef", s);
  }
  std::map<std::string, std::string> Good() {
    return {{"token-id", "abcdef"},
            {"token-secret", "0123456789abcdef"},
            {"usage-bootstrap-authentication", "true"},
            {"auth-extra-groups", "system:bootstrappers:kubeadm:default-node-token"}};
  }
  AuthResult Auth(const std::string& token = "abcdef.0123456789abcdef") {
    BootstrapTokenAuthenticator a(objects_.Getter(), &clock_);
    return SyncWait(a.AuthenticateToken(token, {}));
  }
  FakeObjects objects_;
  FakeClock clock_;
};

TEST_F(BootstrapTest, ValidTokenIsTheBootstrapUser) {
  Store(Good());
  auto r = Auth();
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->user.name, "system:bootstrap:abcdef");
  EXPECT_EQ((*r)->user.groups,
            (std::vector<std::string>{"system:bootstrappers", "system:bootstrappers:kubeadm:default-node-token"}));
}

TEST_F(BootstrapTest, EveryRejectionIsNoOpinion) {
  auto expect_none = [&](const char* why) {
    auto r = Auth();
    ASSERT_TRUE(r.ok()) << why;
    EXPECT_FALSE(r->has_value()) << why;
  };
  expect_none("no secret");
  auto d = Good();
  d["token-secret"] = "ffffffffffffffff";
  Store(d);
  expect_none("wrong secret");
  d = Good();
  d["usage-bootstrap-authentication"] = "false";
  Store(d);
  expect_none("not for authentication");
  d = Good();
  d["expiration"] = am::FormatRfc3339(am::Timestamp::FromTimePoint(clock_.Now() - std::chrono::seconds(1)));
  Store(d);
  expect_none("expired");
  d["expiration"] = "soon";
  Store(d);
  expect_none("unparsable expiration");
  d = Good();
  d["auth-extra-groups"] = "system:masters";
  Store(d);
  expect_none("bad group");
  Store(Good(), "Opaque");
  expect_none("wrong type");
  Store(Good(), "bootstrap.kubernetes.io/token", true);
  expect_none("being deleted");
  EXPECT_FALSE(Auth("not-a-bootstrap-token")->has_value());
}

TEST_F(BootstrapTest, FutureExpirationIsFine) {
  auto d = Good();
  d["expiration"] = am::FormatRfc3339(am::Timestamp::FromTimePoint(clock_.Now() + std::chrono::hours(1)));
  Store(d);
  EXPECT_TRUE(Auth()->has_value());
}

}  // namespace
}  // namespace capstan::authn
