#include <openssl/rand.h>

#include <cstdio>

#include "server/filters/filters.h"

namespace capstan::server {
namespace {
std::string NewAuditId() {
  unsigned char b[16];
  RAND_bytes(b, sizeof b);
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);
  char out[37];
  std::snprintf(out, sizeof out, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return out;
}
}  // namespace

Handler WithAudit(Handler next) {
  return [next = std::move(next)](http::RequestContext& ctx) -> Task<void> {
    // A client-supplied Audit-ID is kept, as kube does; otherwise a new one.
    std::string id(ctx.request.headers.Get("Audit-ID"));
    ctx.audit_id = id.empty() ? NewAuditId() : id;
    ctx.writer->extra_headers().Set("Audit-Id", ctx.audit_id);
    co_await next(ctx);
  };
}

}  // namespace capstan::server
