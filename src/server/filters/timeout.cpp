#include <coroutine>

#include "server/filters/filters.h"
#include "server/http/forwarding_writer.h"
#include "server/http/responses.h"
#include "util/async.h"
#include "util/duration.h"
#include "util/strings.h"
#include "util/timer.h"

namespace capstan::server {
namespace {

// Forwards to the connection's writer until the request times out; afterwards drops writes, so a
// handler that finishes late cannot write a second response.
class TimeoutWriter : public http::ForwardingWriter {
 public:
  using ForwardingWriter::ForwardingWriter;
  void Expire() { expired_ = true; }
  Task<bool> Respond(http::HttpResponse resp) override {
    if (expired_) co_return false;
    co_return co_await ForwardingWriter::Respond(std::move(resp));
  }
  Task<bool> StartStream(int status, http::Headers headers) override {
    if (expired_) co_return false;
    co_return co_await ForwardingWriter::StartStream(status, std::move(headers));
  }
  Task<bool> WriteChunk(std::string data) override {
    if (expired_) co_return false;
    co_return co_await ForwardingWriter::WriteChunk(std::move(data));
  }
  Task<bool> EndStream() override {
    if (expired_) co_return false;
    co_return co_await ForwardingWriter::EndStream();
  }

 private:
  bool expired_ = false;
};

struct Race {
  AsyncEvent finished_or_expired;
  AsyncEvent inner_done;
  bool finished = false;
  bool expired = false;
};

}  // namespace

Handler WithTimeout(Handler next, std::chrono::nanoseconds request_timeout, RequestMetrics* metrics) {
  return [next = std::move(next), request_timeout, metrics](http::RequestContext& ctx) -> Task<void> {
    if (ctx.info.long_running || request_timeout.count() <= 0) {
      co_await next(ctx);
      co_return;
    }
    auto timeout = request_timeout;
    if (auto t = ctx.request.query.Get("timeout"); t && !t->empty()) {
      auto parsed = ParseGoDuration(*t);
      if (!parsed) {
        co_await http::RespondStatus(
            ctx, Status(400, "BadRequest",
                        "invalid timeout specified in the request URL - time: invalid duration " + GoQuote(*t)));
        co_return;
      }
      if (parsed->count() > 0 && *parsed < timeout) timeout = *parsed;
    }

    http::ResponseWriter* real = ctx.writer;
    TimeoutWriter tw(*real);
    http::ScopedWriter installed(ctx, tw);
    auto race = std::make_shared<Race>();
    auto executor = CurrentExecutor();
    auto timer = RunAfter(timeout, [race, executor] {
      auto fire = [race] {
        if (race->finished) return;
        race->expired = true;
        race->finished_or_expired.Set();
      };
      if (executor) {
        executor->Post(fire);
      } else {
        fire();
      }
    });
    SpawnThen(next(ctx), [race] {
      race->finished = true;
      race->inner_done.Set();
      race->finished_or_expired.Set();
    });
    co_await race->finished_or_expired.Wait();
    timer->Cancel();
    if (race->expired && !race->finished) {
      tw.Expire();
      ctx.cancel.Cancel();
      if (!real->started()) {
        if (metrics) RecordRequestTermination(*metrics, ctx, 504);
        co_await real->Respond(http::StatusResponse(
            Status(504, "Timeout", "Timeout: request did not complete within the allotted timeout")));
      }
      // The handler still holds the context: wait for it before the connection reuses or frees it.
      co_await race->inner_done.Wait();
    }
  };
}

}  // namespace capstan::server
