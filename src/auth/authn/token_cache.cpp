#include "auth/authn/token_cache.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <optional>
#include <vector>

#include "auth/authn/flight.h"

namespace capstan::authn {

// One in-progress call to the inner authenticator; later lookups of the same key wait for it.
struct CachedTokenAuthenticator::Flight : SharedFlight<AuthResult> {};

CachedTokenAuthenticator::CachedTokenAuthenticator(std::unique_ptr<TokenAuthenticator> inner, TokenCacheOptions opts)
    : inner_(std::move(inner)), opts_(opts) {
  std::array<unsigned char, 32> key{};
  if (RAND_bytes(key.data(), static_cast<int>(key.size())) != 1) {
    // No randomness: fall back to a key that still differs per process and per instance.
    auto seed = std::chrono::steady_clock::now().time_since_epoch().count() ^ reinterpret_cast<intptr_t>(this);
    for (size_t i = 0; i < key.size(); ++i) key[i] = static_cast<unsigned char>(seed >> (8 * (i % 8)));
  }
  hmac_ = std::make_unique<HmacSha256>(std::string_view(reinterpret_cast<const char*>(key.data()), key.size()));
  OPENSSL_cleanse(key.data(), key.size());
}

CachedTokenAuthenticator::~CachedTokenAuthenticator() = default;

size_t CachedTokenAuthenticator::size() const {
  size_t n = 0;
  for (const auto& s : shards_) {
    std::lock_guard lock(s.mu);
    n += s.entries.size();
  }
  return n;
}

std::string CachedTokenAuthenticator::Key(const std::string& token, const Audiences& audiences) const {
  // Length-prefixed fields, so ("ab", ["c"]) and ("a", ["bc"]) differ.
  std::string data;
  data.reserve(token.size() + 16 + audiences.size() * 32);
  auto put_len = [&](size_t n) {
    for (int i = 3; i >= 0; --i) data.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  };
  put_len(token.size());
  data += token;
  put_len(audiences.size());
  for (const auto& a : audiences) {
    put_len(a.size());
    data += a;
  }
  std::string key = hmac_->Sum(data);
  OPENSSL_cleanse(data.data(), data.size());
  return key;
}

void CachedTokenAuthenticator::StoreLocked(Shard& shard, const std::string& key, const AuthResult& r) {
  auto now = opts_.clock->Monotonic();
  std::chrono::nanoseconds ttl{0};
  if (!r.ok()) {
    if (!opts_.cache_errors) return;
    ttl = opts_.failure_ttl;
  } else if (r->has_value()) {
    ttl = opts_.success_ttl;
    if (const auto& exp = (*r)->expires) {
      auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(*exp - opts_.clock->Now());
      if (left < ttl) ttl = left;
    }
  } else {
    ttl = opts_.failure_ttl;
  }
  if (ttl.count() <= 0) return;
  size_t per_shard = opts_.max_entries / kShards + 1;
  if (shard.entries.size() >= per_shard) {
    for (auto it = shard.entries.begin(); it != shard.entries.end();) {
      it = it->second.expires <= now ? shard.entries.erase(it) : std::next(it);
    }
    if (shard.entries.size() >= per_shard) shard.entries.erase(shard.entries.begin());
  }
  shard.entries.insert_or_assign(key, Entry{r, now + ttl});
}

Task<AuthResult> CachedTokenAuthenticator::AuthenticateToken(const std::string& token, const Audiences& audiences) {
  std::string key = Key(token, audiences);
  Shard& shard = ShardOf(key);
  std::shared_ptr<Flight> flight;
  bool leader = false;
  {
    std::lock_guard lock(shard.mu);
    auto it = shard.entries.find(key);
    if (it != shard.entries.end()) {
      if (it->second.expires > opts_.clock->Monotonic()) {
        hits_.fetch_add(1, std::memory_order_relaxed);
        co_return it->second.result;
      }
      shard.entries.erase(it);
    }
    auto f = shard.flights.find(key);
    if (f != shard.flights.end()) {
      flight = f->second;
    } else {
      flight = std::make_shared<Flight>();
      shard.flights.emplace(key, flight);
      leader = true;
    }
  }
  if (!leader) co_return co_await flight->Wait();
  misses_.fetch_add(1, std::memory_order_relaxed);
  co_return co_await Lead(std::move(key), std::move(flight), token, audiences);
}

Task<AuthResult> CachedTokenAuthenticator::Lead(std::string key, std::shared_ptr<Flight> flight, std::string token,
                                                Audiences audiences) {
  AuthResult r = std::optional<Response>();
  try {
    r = co_await inner_->AuthenticateToken(token, audiences);
  } catch (...) {
    r = Status(500, "InternalError", "authentication failed unexpectedly");
  }
  Shard& shard = ShardOf(key);
  {
    std::lock_guard lock(shard.mu);
    StoreLocked(shard, key, r);
    shard.flights.erase(key);
  }
  flight->Finish(r);
  co_return r;
}

}  // namespace capstan::authn
