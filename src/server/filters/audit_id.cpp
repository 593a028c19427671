#include <openssl/rand.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>

#include "server/filters/filters.h"

namespace capstan::server {
namespace {
// Audit IDs must be unique, not secret: a per-thread generator seeded once from OpenSSL's RNG avoids
// RAND_bytes (and its lock) on every request.
std::string NewAuditId() {
  thread_local std::mt19937_64 rng = [] {
    std::array<uint32_t, 8> seed{};
    if (RAND_bytes(reinterpret_cast<unsigned char*>(seed.data()), sizeof seed) != 1) {
      seed[0] = static_cast<uint32_t>(std::random_device{}());
    }
    std::seed_seq seq(seed.begin(), seed.end());
    return std::mt19937_64(seq);
  }();
  unsigned char b[16];
  for (int i = 0; i < 2; ++i) {
    uint64_t v = rng();
    std::memcpy(b + 8 * i, &v, 8);
  }
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);
  char out[37];
  std::snprintf(out, sizeof out, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return out;
}
}  // namespace

Handler WithAuditId(Handler next) {
  return [next = std::move(next)](http::RequestContext& ctx) -> Task<void> {
    // A client-supplied Audit-ID is kept, as kube does; otherwise a new one.
    std::string id(ctx.request.headers.Get("Audit-ID"));
    ctx.audit_id = id.empty() ? NewAuditId() : id;
    ctx.writer->extra_headers().Set("Audit-Id", ctx.audit_id);
    co_await next(ctx);
  };
}

}  // namespace capstan::server
