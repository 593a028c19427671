#include "server/http2_connection.h"

#include "server/asio_await.h"

namespace capstan::server {

namespace asio = boost::asio;
using boost::system::error_code;

namespace {

constexpr size_t kWriteBytes = 64 * 1024;      // frames per socket write
constexpr size_t kReadBytes = 16 * 1024;
constexpr auto kFinalFlushTimeout = std::chrono::seconds(5);  // for a GOAWAY after a protocol error

// Suspends, leaving the handle in *slot for whoever resumes it.
struct Park {
  std::coroutine_handle<>* slot;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) noexcept { *slot = h; }
  void await_resume() const noexcept {}
};

}  // namespace

Http2Connection::Http2Connection(TlsStream& stream, asio::io_context& ioc, Http2ConnectionOptions opts,
                                 Http2Session::Hooks hooks, std::function<void()> close_socket)
    : stream_(stream), ioc_(ioc), opts_(opts), close_socket_(std::move(close_socket)), idle_timer_(ioc) {
  // The session lives inside this object, so its hooks may hold `this`.
  hooks.want_write = [this] { Kick(); };
  hooks.post = [&ioc](std::function<void()> fn) { asio::post(ioc, std::move(fn)); };
  session_ = std::make_unique<Http2Session>(opts_.limits, std::move(hooks), opts_.metrics);
}

void Http2Connection::Kick() {
  kicked_ = true;
  if (!pump_waiter_ || kick_posted_) return;
  // Resumed from the event loop, never inside the session's own call that asked for the write.
  kick_posted_ = true;
  asio::post(ioc_, [weak = weak_from_this()] {
    auto self = weak.lock();
    if (!self) return;
    self->kick_posted_ = false;
    if (auto h = std::exchange(self->pump_waiter_, {})) h.resume();
  });
}

Task<void> Http2Connection::Pump() {
  for (;;) {
    std::string out = session_->TakeOutput(kWriteBytes);
    if (out.empty()) {
      if (finishing_ || !session_->Alive()) break;
      if (!kicked_) co_await Park{&pump_waiter_};
      kicked_ = false;
      continue;
    }
    auto [ec, n] = co_await AsioAwait([&](auto h) { asio::async_write(stream_, asio::buffer(out), std::move(h)); });
    (void)n;
    if (ec) break;
  }
  pump_done_ = true;
  close_socket_();  // ends the read side too
  if (run_waiter_) {
    asio::post(ioc_, [weak = weak_from_this()] {
      if (auto self = weak.lock()) {
        if (auto h = std::exchange(self->run_waiter_, {})) h.resume();
      }
    });
  }
}

void Http2Connection::ArmIdleTimer(std::chrono::steady_clock::time_point at) {
  idle_timer_.expires_at(at);
  idle_timer_.async_wait([weak = weak_from_this()](error_code ec) {
    if (ec) return;
    if (auto self = weak.lock()) self->OnIdleTimer();
  });
}

void Http2Connection::OnIdleTimer() {
  if (pump_done_) return;
  if (finishing_) {
    close_socket_();  // the last frames did not go out in time
    return;
  }
  auto now = std::chrono::steady_clock::now();
  if (session_->ActiveStreams() == 0 && now - last_active_ >= opts_.idle_timeout) {
    session_->Drain();  // GOAWAY; with no stream open the pump then closes the connection
    return;
  }
  ArmIdleTimer(std::max(now, last_active_) + opts_.idle_timeout);
}

void Http2Connection::Drain() { session_->Drain(); }

void Http2Connection::CancelLongRunning() { session_->CancelLongRunning(); }

Task<void> Http2Connection::Run() {
  auto self = shared_from_this();
  last_active_ = std::chrono::steady_clock::now();
  ArmIdleTimer(last_active_ + opts_.idle_timeout);
  Spawn(Pump());
  bool protocol_error = false;
  char buf[kReadBytes];
  for (;;) {
    auto [ec, n] = co_await AsioAwait([&](auto h) { stream_.async_read_some(asio::buffer(buf), std::move(h)); });
    if (ec) break;
    last_active_ = std::chrono::steady_clock::now();
    if (!session_->Feed(std::string_view(buf, n))) {
      protocol_error = true;
      break;
    }
  }
  finishing_ = true;
  if (protocol_error) {
    // The session queued a GOAWAY naming the error: send it, within a bound.
    ArmIdleTimer(std::chrono::steady_clock::now() + kFinalFlushTimeout);
    Kick();
  } else {
    close_socket_();  // the peer is gone
    Kick();
  }
  if (!pump_done_) co_await Park{&run_waiter_};
  session_->CancelAll();
  co_await session_->WaitHandlers();
  idle_timer_.cancel();
}

}  // namespace capstan::server
