#include <random>

#include "server/filters/filters.h"

namespace capstan::server {

Handler WithProbabilisticGoaway(Handler next, double chance, std::function<double()> random) {
  if (!random) {
    random = [] {
      thread_local std::mt19937_64 rng{std::random_device{}()};
      return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    };
  }
  return [next = std::move(next), chance, random = std::move(random)](http::RequestContext& ctx) -> Task<void> {
    // kube's WithProbabilisticGoaway: the HTTP/2 connection sends GOAWAY after this response and the
    // client's next requests open a new connection, perhaps to another replica. Requests in flight on
    // the old connection, watches too, are not disturbed.
    if (ctx.request.version_major == 2 && random() < chance) ctx.writer->extra_headers().Set("Connection", "close");
    co_await next(ctx);
  };
}

}  // namespace capstan::server
