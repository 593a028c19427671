#include "aggregator/stream_proxy.h"

#include <deque>
#include <mutex>
#include <optional>

#include "aggregator/api_service_info.h"
#include "aggregator/json_helpers.h"
#include "util/log.h"

namespace capstan::aggregator {

namespace {

// Pieces from the client's I/O thread to the request's coroutine.
class ChunkQueue {
 public:
  // From the I/O thread; false once the consumer stopped.
  bool Push(std::string data) {
    std::function<void(int)> wake;
    {
      std::lock_guard lock(mu_);
      if (stopped_) return false;
      items_.push_back(std::move(data));
      wake = std::exchange(waiter_, nullptr);
    }
    if (wake) wake(0);
    return true;
  }
  void End(Status st) {
    std::function<void(int)> wake;
    {
      std::lock_guard lock(mu_);
      ended_ = true;
      end_ = std::move(st);
      wake = std::exchange(waiter_, nullptr);
    }
    if (wake) wake(0);
  }
  void Stop() {
    std::function<void(int)> wake;
    {
      std::lock_guard lock(mu_);
      stopped_ = true;
      wake = std::exchange(waiter_, nullptr);
    }
    if (wake) wake(0);
  }
  Status end() {
    std::lock_guard lock(mu_);
    return end_;
  }

  // The next piece, or nullopt once the stream ended or was stopped.
  static Task<std::optional<std::string>> Next(std::shared_ptr<ChunkQueue> q) {
    for (;;) {
      std::optional<std::string> item;
      bool done = false;
      {
        std::lock_guard lock(q->mu_);
        if (!q->items_.empty()) {
          item = std::move(q->items_.front());
          q->items_.pop_front();
        } else if (q->ended_ || q->stopped_) {
          done = true;
        }
      }
      if (item) co_return item;
      if (done) co_return std::nullopt;
      co_await Await<int>([q](std::function<void(int)> cb) {
        std::unique_lock lock(q->mu_);
        if (!q->items_.empty() || q->ended_ || q->stopped_) {
          lock.unlock();
          cb(0);
          return;
        }
        q->waiter_ = std::move(cb);
      });
    }
  }

 private:
  std::mutex mu_;
  std::deque<std::string> items_;
  bool ended_ = false;
  bool stopped_ = false;
  Status end_;
  std::function<void(int)> waiter_;
};

}  // namespace

Task<void> ProxyStream(http::RequestContext& ctx, http::StreamingHttpClient& client, http::ClientRequest req,
                       const std::string& apiservice) {
  auto q = std::make_shared<ChunkQueue>();
  http::StreamSink sink;
  sink.on_data = [q](std::string data) { return q->Push(std::move(data)); };
  sink.on_end = [q](Status st) { q->End(std::move(st)); };
  auto resp = co_await client.DoStream(std::move(req), std::move(sink));
  if (!resp.ok()) {
    LogWarn("aggregator: error while proxying request", {{"apiservice", apiservice}, {"error", resp.status().message()}});
    co_await detail::HttpError(ctx, resp.status().message(), 503);
    co_return;
  }
  http::Headers headers;
  for (const auto& f : resp->headers.fields()) {
    if (!IsHopByHop(f.name)) headers.Add(f.name, f.value);
  }
  size_t cancel_id = ctx.cancel.OnCancel([q] { q->Stop(); });
  bool ok = co_await ctx.writer->StartStream(resp->status, std::move(headers));
  while (ok) {
    auto piece = co_await ChunkQueue::Next(q);
    if (!piece) break;
    ok = co_await ctx.writer->WriteChunk(std::move(*piece));
  }
  q->Stop();
  ctx.cancel.Remove(cancel_id);
  if (ok) co_await ctx.writer->EndStream();
  if (Status end = q->end(); !end.ok()) {
    LogInfo("aggregator: proxied stream ended", {{"apiservice", apiservice}, {"error", end.message()}});
  }
}

}  // namespace capstan::aggregator
