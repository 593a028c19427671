// The union, the top-level authenticator (system:authenticated, anonymous, audiences) and the
// audience-agnostic wrappers.
#include "auth/authn/authenticator.h"

#include <gtest/gtest.h>

#include "auth/authn/token_authenticator.h"

namespace capstan::authn {
namespace {

// Answers with a fixed outcome and counts calls.
class Fixed : public RequestAuthenticator, public TokenAuthenticator {
 public:
  explicit Fixed(AuthResult r) : r_(std::move(r)) {}
  Task<AuthResult> AuthenticateRequest(const http::HttpRequest&, const Audiences& a) override {
    ++calls;
    seen = a;
    co_return r_;
  }
  Task<AuthResult> AuthenticateToken(const std::string&, const Audiences& a) override {
    ++calls;
    seen = a;
    co_return r_;
  }
  int calls = 0;
  Audiences seen;

 private:
  AuthResult r_;
};

AuthResult User(const std::string& name, std::vector<std::string> groups = {}, Audiences auds = {}) {
  Response r;
  r.user.name = name;
  r.user.groups = std::move(groups);
  r.audiences = std::move(auds);
  return std::optional<Response>(std::move(r));
}
AuthResult None() { return std::optional<Response>(); }

std::unique_ptr<UnionAuthenticator> UnionOf(std::vector<AuthResult> results, std::vector<Fixed*>* members = nullptr) {
  std::vector<std::unique_ptr<RequestAuthenticator>> v;
  for (auto& r : results) {
    auto f = std::make_unique<Fixed>(std::move(r));
    if (members) members->push_back(f.get());
    v.push_back(std::move(f));
  }
  return std::make_unique<UnionAuthenticator>(std::move(v));
}

TEST(AudiencesTest, IntersectKeepsTheWantedOrder) {
  EXPECT_EQ(IntersectAudiences({"a", "b", "c"}, {"c", "x", "a"}), (Audiences{"c", "a"}));
  EXPECT_TRUE(IntersectAudiences({}, {"a"}).empty());
}

TEST(AggregateTest, OneErrorAsIsSeveralDeduplicatedInBrackets) {
  EXPECT_EQ(AggregateAuthErrors({AuthError("x")}).message(), "x");
  EXPECT_EQ(AggregateAuthErrors({AuthError("x"), AuthError("x")}).message(), "x");
  EXPECT_EQ(AggregateAuthErrors({AuthError("x"), AuthError("y"), AuthError("x")}).message(), "[x, y]");
  EXPECT_EQ(AggregateAuthErrors({AuthError("x")}).code(), 401);
}

TEST(UnionTest, FirstUserWinsAndLaterMembersAreNotAsked) {
  std::vector<Fixed*> m;
  auto u = UnionOf({None(), User("alice"), User("bob")}, &m);
  auto r = SyncWait(u->AuthenticateRequest(http::HttpRequest{}, {}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->user.name, "alice");
  EXPECT_EQ(m[2]->calls, 0);
}

TEST(UnionTest, ErrorsAreSkippedWhenSomeoneElseKnowsTheRequest) {
  auto u = UnionOf({AuthError("bad cert"), User("alice")});
  auto r = SyncWait(u->AuthenticateRequest(http::HttpRequest{}, {}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->user.name, "alice");
}

TEST(UnionTest, ErrorsAreAggregatedWhenNobodyKnowsTheRequest) {
  auto u = UnionOf({AuthError("a"), None(), AuthError("b")});
  auto r = SyncWait(u->AuthenticateRequest(http::HttpRequest{}, {}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "[a, b]");
}

TEST(UnionTest, NoOpinionFromEveryoneIsNoOpinion) {
  auto u = UnionOf({None(), None()});
  auto r = SyncWait(u->AuthenticateRequest(http::HttpRequest{}, {}));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
}

TEST(TopLevelTest, AddsSystemAuthenticatedOnce) {
  TopLevelAuthenticator t(UnionOf({User("alice", {"dev"})}), false);
  auto r = SyncWait(t.Authenticate(http::HttpRequest{}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->groups, (std::vector<std::string>{"dev", "system:authenticated"}));
  TopLevelAuthenticator already(UnionOf({User("bob", {"system:authenticated"})}), false);
  r = SyncWait(already.Authenticate(http::HttpRequest{}));
  EXPECT_EQ((*r)->groups, (std::vector<std::string>{"system:authenticated"}));
  // kube's group adder leaves users of system:unauthenticated alone.
  TopLevelAuthenticator unauth(UnionOf({User("carol", {"system:unauthenticated"})}), false);
  r = SyncWait(unauth.Authenticate(http::HttpRequest{}));
  EXPECT_EQ((*r)->groups, (std::vector<std::string>{"system:unauthenticated"}));
}

TEST(TopLevelTest, AnonymousOnlyWhenNobodyHadAnOpinion) {
  TopLevelAuthenticator anon(UnionOf({None()}), true);
  auto r = SyncWait(anon.Authenticate(http::HttpRequest{}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->name, "system:anonymous");
  EXPECT_EQ((*r)->groups, (std::vector<std::string>{"system:unauthenticated"}));

  // An invalid credential is a 401, never anonymous.
  TopLevelAuthenticator bad(UnionOf({AuthError("invalid bearer token")}), true);
  r = SyncWait(bad.Authenticate(http::HttpRequest{}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), 401);

  TopLevelAuthenticator off(UnionOf({None()}), false);
  r = SyncWait(off.Authenticate(http::HttpRequest{}));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
}

TEST(TopLevelTest, PassesTheApiAudiencesAndRejectsResponsesForOthers) {
  std::vector<Fixed*> m;
  TopLevelAuthenticator t(UnionOf({User("alice", {}, {"other"})}, &m), false, {"api"});
  auto r = SyncWait(t.Authenticate(http::HttpRequest{}));
  EXPECT_EQ(m[0]->seen, (Audiences{"api"}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), 401);

  std::vector<Fixed*> m2;
  TopLevelAuthenticator ok(UnionOf({User("alice", {}, {"api"})}, &m2), false, {"api"});
  EXPECT_TRUE(SyncWait(ok.Authenticate(http::HttpRequest{})).ok());
  // Explicit audiences (a TokenReview) are passed through as they are.
  auto explicit_r = SyncWait(ok.AuthenticateRequest(http::HttpRequest{}, {"x"}));
  EXPECT_EQ(m2[0]->seen, (Audiences{"x"}));
}

TEST(AudienceAgnosticTest, AnswersOnlyForTheImplicitAudiences) {
  auto inner = std::make_unique<Fixed>(User("alice"));
  Fixed* raw = inner.get();
  AudienceAgnosticToken t({"api", "other-api"}, std::move(inner));
  auto r = SyncWait(t.AuthenticateToken("tok", {"x", "api"}));
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->audiences, (Audiences{"api"}));
  r = SyncWait(t.AuthenticateToken("tok", {"x"}));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
  EXPECT_EQ(raw->calls, 1);  // not asked for foreign audiences
  // Without wanted audiences the delegate decides alone.
  r = SyncWait(t.AuthenticateToken("tok", {}));
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_TRUE((*r)->audiences.empty());
}

TEST(AudienceAgnosticTest, ADelegateThatReturnsAudiencesIsAnError) {
  AudienceAgnosticToken t({"api"}, std::make_unique<Fixed>(User("alice", {}, {"api"})));
  EXPECT_FALSE(SyncWait(t.AuthenticateToken("tok", {"api"})).ok());
}

TEST(TokenUnionTest, FirstSuccessOrAggregatedErrors) {
  std::vector<std::unique_ptr<TokenAuthenticator>> v;
  v.push_back(std::make_unique<Fixed>(AuthError("expired")));
  v.push_back(std::make_unique<Fixed>(None()));
  v.push_back(std::make_unique<Fixed>(User("bob")));
  TokenUnion u(std::move(v));
  auto r = SyncWait(u.AuthenticateToken("t", {}));
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->user.name, "bob");

  std::vector<std::unique_ptr<TokenAuthenticator>> w;
  w.push_back(std::make_unique<Fixed>(AuthError("expired")));
  w.push_back(std::make_unique<Fixed>(None()));
  TokenUnion u2(std::move(w));
  r = SyncWait(u2.AuthenticateToken("t", {}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "expired");
}

}  // namespace
}  // namespace capstan::authn
