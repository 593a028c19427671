#include "server/http/upstream.h"

#include <deque>
#include <mutex>

#include "util/strings.h"

namespace capstan::http {

bool IsHopByHop(std::string_view name) {
  static const char* const kHop[] = {"connection",          "proxy-connection", "keep-alive", "proxy-authenticate",
                                     "proxy-authorization", "te",               "trailer",    "transfer-encoding",
                                     "upgrade",             "content-length",   "host"};
  std::string n = ToLower(name);
  for (const char* h : kHop) {
    if (n == h) return true;
  }
  return false;
}

std::string ForwardedFor(std::string_view prior, std::string_view remote_addr) {
  std::string_view host = remote_addr;
  if (!host.empty() && host.front() == '[') {
    size_t close = host.find(']');
    host = close == std::string_view::npos ? host.substr(1) : host.substr(1, close - 1);
  } else if (size_t colon = host.rfind(':'); colon != std::string_view::npos && host.find(':') == colon) {
    host = host.substr(0, colon);
  }
  if (host.empty()) return std::string(prior);
  return prior.empty() ? std::string(host) : std::string(prior) + ", " + std::string(host);
}

// Pieces from the client's I/O thread to the request's coroutine.
struct UpstreamStream::Queue {
  // From the I/O thread; false once the consumer stopped.
  bool Push(std::string data) {
    std::function<void(int)> wake;
    {
      std::lock_guard lock(mu);
      if (stopped) return false;
      items.push_back(std::move(data));
      wake = std::exchange(waiter, nullptr);
    }
    if (wake) wake(0);
    return true;
  }
  void End(Status st) {
    std::function<void(int)> wake;
    {
      std::lock_guard lock(mu);
      ended = true;
      end = std::move(st);
      wake = std::exchange(waiter, nullptr);
    }
    if (wake) wake(0);
  }
  void Stop() {
    std::function<void(int)> wake;
    {
      std::lock_guard lock(mu);
      stopped = true;
      wake = std::exchange(waiter, nullptr);
    }
    if (wake) wake(0);
  }

  std::mutex mu;
  std::deque<std::string> items;  // GUARDED_BY(mu)
  bool ended = false;             // GUARDED_BY(mu)
  bool stopped = false;           // GUARDED_BY(mu)
  Status end;                     // GUARDED_BY(mu)
  std::function<void(int)> waiter;  // GUARDED_BY(mu)
};

Task<StatusOr<std::unique_ptr<UpstreamStream>>> UpstreamStream::Open(StreamingHttpClient& client, ClientRequest req) {
  auto q = std::make_shared<Queue>();
  StreamSink sink;
  sink.on_data = [q](std::string data) { return q->Push(std::move(data)); };
  sink.on_end = [q](Status st) { q->End(std::move(st)); };
  auto head = co_await client.DoStream(std::move(req), std::move(sink));
  if (!head.ok()) co_return head.TakeStatus();
  co_return std::unique_ptr<UpstreamStream>(new UpstreamStream(q, std::move(*head)));
}

UpstreamStream::~UpstreamStream() { q_->Stop(); }

void UpstreamStream::Stop() { q_->Stop(); }

Status UpstreamStream::end() const {
  std::lock_guard lock(q_->mu);
  return q_->end;
}

Task<std::optional<std::string>> UpstreamStream::Next() {
  std::shared_ptr<Queue> q = q_;
  for (;;) {
    {
      std::lock_guard lock(q->mu);
      if (q->stopped) co_return std::nullopt;
      if (!q->items.empty()) {
        std::string item = std::move(q->items.front());
        q->items.pop_front();
        co_return item;
      }
      if (q->ended) co_return std::nullopt;
    }
    co_await Await<int>([q](std::function<void(int)> cb) {
      std::unique_lock lock(q->mu);
      if (!q->items.empty() || q->ended || q->stopped) {
        lock.unlock();
        cb(0);
        return;
      }
      q->waiter = std::move(cb);
    });
  }
}

Task<std::string> UpstreamStream::ReadUpTo(size_t max) {
  std::string out;
  while (out.size() < max) {
    auto piece = co_await Next();
    if (!piece) break;
    out += *piece;
  }
  if (out.size() > max) out.resize(max);
  Stop();
  co_return out;
}

Task<Status> RelayBody(RequestContext& ctx, UpstreamStream& up, int status, Headers headers) {
  size_t cancel_id = ctx.cancel.OnCancel([&up] { up.Stop(); });
  bool ok = co_await ctx.writer->StartStream(status, std::move(headers));
  while (ok) {
    auto piece = co_await up.Next();
    if (!piece) break;
    ok = co_await ctx.writer->WriteChunk(std::move(*piece));
  }
  up.Stop();
  ctx.cancel.Remove(cancel_id);
  if (ok) co_await ctx.writer->EndStream();
  co_return ok ? up.end() : Status();
}

}  // namespace capstan::http
