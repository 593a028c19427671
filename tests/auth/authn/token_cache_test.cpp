#include "auth/authn/token_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "util/async.h"

namespace capstan::authn {
namespace {

// Answers per token: "good" is alice, "err" an error, anything else no opinion. Counts calls.
class Counting : public TokenAuthenticator {
 public:
  Task<AuthResult> AuthenticateToken(const std::string& token, const Audiences& audiences) override {
    ++calls;
    if (gate) co_await gate->Wait();
    if (token == "err") co_return AuthError("backend down");
    if (token != "good") co_return std::optional<Response>();
    Response r;
    r.user.name = "alice";
    r.audiences = audiences;
    r.expires = expires;
    co_return std::optional<Response>(std::move(r));
  }
  std::atomic<int> calls{0};
  AsyncEvent* gate = nullptr;
  std::optional<std::chrono::system_clock::time_point> expires;
};

struct Fixture {
  FakeClock clock;
  Counting* inner = nullptr;
  std::unique_ptr<CachedTokenAuthenticator> cache;
  explicit Fixture(TokenCacheOptions o) {
    o.clock = &clock;
    auto c = std::make_unique<Counting>();
    inner = c.get();
    cache = std::make_unique<CachedTokenAuthenticator>(std::move(c), o);
  }
  AuthResult Auth(const std::string& t, Audiences a = {}) { return SyncWait(cache->AuthenticateToken(t, a)); }
};

TEST(TokenCacheTest, SuccessIsKeptForItsTtl) {
  Fixture f(TokenCacheOptions{std::chrono::seconds(10), std::chrono::seconds(0)});
  ASSERT_TRUE(f.Auth("good")->has_value());
  ASSERT_TRUE(f.Auth("good")->has_value());
  EXPECT_EQ(f.inner->calls, 1);
  EXPECT_EQ(f.cache->hits(), 1);
  f.clock.Advance(std::chrono::seconds(11));
  ASSERT_TRUE(f.Auth("good")->has_value());
  EXPECT_EQ(f.inner->calls, 2);
}

TEST(TokenCacheTest, FailuresAreNotKeptWithoutAFailureTtl) {
  Fixture f(TokenCacheOptions{std::chrono::seconds(10), std::chrono::seconds(0)});
  EXPECT_FALSE(f.Auth("other")->has_value());
  EXPECT_FALSE(f.Auth("other")->has_value());
  EXPECT_EQ(f.inner->calls, 2);
}

TEST(TokenCacheTest, FailuresAndErrorsWithAFailureTtl) {
  Fixture f(TokenCacheOptions{std::chrono::seconds(10), std::chrono::seconds(3), true});
  EXPECT_FALSE(f.Auth("other")->has_value());
  EXPECT_FALSE(f.Auth("other")->has_value());
  EXPECT_FALSE(f.Auth("err").ok());
  EXPECT_EQ(f.Auth("err").status().message(), "backend down");
  EXPECT_EQ(f.inner->calls, 2);
  f.clock.Advance(std::chrono::seconds(4));
  f.Auth("other");
  EXPECT_EQ(f.inner->calls, 3);
}

TEST(TokenCacheTest, ErrorsAreNotCachedWhenCacheErrorsIsOff) {
  Fixture f(TokenCacheOptions{std::chrono::seconds(10), std::chrono::seconds(10), false});
  f.Auth("err");
  f.Auth("err");
  EXPECT_EQ(f.inner->calls, 2);
  f.Auth("other");
  f.Auth("other");
  EXPECT_EQ(f.inner->calls, 3);  // no opinion is a failure, cached
}

TEST(TokenCacheTest, AudiencesArePartOfTheKey) {
  Fixture f(TokenCacheOptions{std::chrono::seconds(10), std::chrono::seconds(0)});
  EXPECT_EQ((*f.Auth("good", {"a"}))->audiences, (Audiences{"a"}));
  EXPECT_EQ((*f.Auth("good", {"b"}))->audiences, (Audiences{"b"}));
  // Length prefixes: ["ab"] and ["a","b"] are different keys.
  f.Auth("good", {"ab"});
  f.Auth("good", {"a", "b"});
  EXPECT_EQ(f.inner->calls, 4);
}

TEST(TokenCacheTest, NeverPastTheCredentialsExpiry) {
  Fixture f(TokenCacheOptions{std::chrono::seconds(10), std::chrono::seconds(0)});
  f.inner->expires = f.clock.Now() + std::chrono::seconds(2);
  f.Auth("good");
  f.Auth("good");
  EXPECT_EQ(f.inner->calls, 1);
  f.clock.Advance(std::chrono::seconds(3));
  f.Auth("good");
  EXPECT_EQ(f.inner->calls, 2);
  // Already expired: not cached at all.
  f.inner->expires = f.clock.Now() - std::chrono::seconds(1);
  f.clock.Advance(std::chrono::seconds(11));
  f.Auth("good");
  f.Auth("good");
  EXPECT_EQ(f.inner->calls, 4);
}

TEST(TokenCacheTest, IsBounded) {
  TokenCacheOptions o{std::chrono::seconds(10), std::chrono::seconds(10)};
  o.max_entries = 64;
  Fixture f(o);
  for (int i = 0; i < 1000; ++i) f.Auth("t" + std::to_string(i));
  EXPECT_LE(f.cache->size(), 64u + 32u);
}

TEST(TokenCacheTest, ConcurrentLookupsShareOneCall) {
  Fixture f(TokenCacheOptions{std::chrono::seconds(10), std::chrono::seconds(0)});
  AsyncEvent gate;
  f.inner->gate = &gate;
  std::atomic<int> done{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      auto r = SyncWait(f.cache->AuthenticateToken("good", {}));
      if (r.ok() && r->has_value()) done.fetch_add(1);
    });
  }
  // Let every thread reach the cache before the first call finishes.
  while (f.inner->calls.load() < 1) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  gate.Set();
  for (auto& t : threads) t.join();
  EXPECT_EQ(done.load(), 4);
  EXPECT_EQ(f.inner->calls.load(), 1);
}

}  // namespace
}  // namespace capstan::authn
