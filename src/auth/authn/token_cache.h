// auth/authn/token_cache.h: remembers token authentication results for a while (kube's
// cachedTokenAuthenticator), so a client that sends the same bearer token on every request pays for
// signature checks, storage lookups or webhook calls once per TTL.
//
// Keys are HMAC-SHA256(per-process random key, token and wanted audiences): the cache never holds a
// token, and a key does not reveal one. Successes are kept for success_ttl, rejections (no opinion, and
// errors when cache_errors) for failure_ttl; a TTL of 0 disables that side. A success is never kept
// past the credential's own expiry (Response::expires), so an expired JWT is not accepted from the
// cache. Concurrent lookups of one key share one call to the inner authenticator (kube's
// singleflight); the waiters resume on their own executors. The cache is bounded (max_entries);
// expired entries are dropped first. Thread-safe.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "auth/authn/authenticator.h"
#include "auth/authn/digest.h"
#include "util/clock.h"

namespace capstan::authn {

struct TokenCacheOptions {
  std::chrono::nanoseconds success_ttl{std::chrono::seconds(10)};
  std::chrono::nanoseconds failure_ttl{0};
  bool cache_errors = true;
  size_t max_entries = 65536;
  const Clock* clock = &RealClock::Get();
};

class CachedTokenAuthenticator : public TokenAuthenticator {
 public:
  CachedTokenAuthenticator(std::unique_ptr<TokenAuthenticator> inner, TokenCacheOptions opts);
  ~CachedTokenAuthenticator() override;
  Task<AuthResult> AuthenticateToken(const std::string& token, const Audiences& audiences) override;

  // For tests and benchmarks: lookups answered from the cache, and calls to the inner authenticator.
  int64_t hits() const { return hits_.load(); }
  int64_t misses() const { return misses_.load(); }
  size_t size() const;

 private:
  struct Entry {
    AuthResult result;
    std::chrono::steady_clock::time_point expires;
  };
  struct Flight;
  static constexpr size_t kShards = 32;
  struct Shard {
    mutable std::mutex mu;
    std::unordered_map<std::string, Entry> entries;             // GUARDED_BY(mu)
    std::unordered_map<std::string, std::shared_ptr<Flight>> flights;  // GUARDED_BY(mu)
  };

  std::string Key(const std::string& token, const Audiences& audiences) const;
  Shard& ShardOf(const std::string& key) { return shards_[static_cast<unsigned char>(key[0]) % kShards]; }
  void StoreLocked(Shard& shard, const std::string& key, const AuthResult& r);
  Task<AuthResult> Lead(std::string key, std::shared_ptr<Flight> flight, std::string token, Audiences audiences);

  std::unique_ptr<TokenAuthenticator> inner_;
  TokenCacheOptions opts_;
  std::unique_ptr<HmacSha256> hmac_;  // keyed with 32 random bytes
  std::array<Shard, kShards> shards_;
  std::atomic<int64_t> hits_{0};
  std::atomic<int64_t> misses_{0};
};

}  // namespace capstan::authn
