// server/http_connection.h: one accepted TLS connection of the HTTPS server. After the handshake it
// speaks what ALPN chose: HTTP/2 through server/http2_connection.h, otherwise HTTP/1.1 here, where the
// connection itself is the ResponseWriter of its one request at a time (keep-alive, chunked streaming,
// a background read during streamed responses that notices a client going away and cancels the
// request, 101 upgrades that hand the connection to the handler (exec, attach, port-forward), the idle/slow-header/handshake deadlines of one timer, 100-continue, the 413 drain).
// Owned by shared_ptr from the coroutine that runs it; registered in its IoThread's set for shutdown.
// Only for src/server/ translation units (Asio). Thread-safety: everything on its I/O thread.
#pragma once

#include <chrono>
#include <coroutine>
#include <memory>
#include <string>
#include <vector>

#include "server/http/http_parser.h"
#include "server/http/request_context.h"
#include "server/http2_connection.h"
#include "server/http_server_impl.h"

namespace capstan::server {

class Connection : public http::ResponseWriter, public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket sock, ssl::context& tls, HttpServer::Impl& server, IoThread& io);
  ~Connection() override;

  // Handshake, then serve until the connection ends.
  Task<void> Run();
  // Shutdown: an HTTP/1.1 connection between requests closes now; an HTTP/2 one sends GOAWAY and
  // closes once its streams are done.
  void CloseIfIdle();
  // Shutdown: cancels the watches the connection serves.
  void CancelLongRunning();

  // ResponseWriter
  Task<bool> Respond(http::HttpResponse resp) override;
  Task<bool> StartStream(int status, http::Headers headers) override;
  Task<bool> WriteChunk(std::string data) override;
  Task<bool> EndStream() override;
  Task<http::ByteStream*> Upgrade(http::Headers headers) override;
  bool started() const override { return started_; }
  int status() const override { return status_; }

 private:
  // Suspends until the outstanding background read has completed.
  struct BackgroundReadDone {
    Connection* c;
    bool await_ready() const { return !c->bg_read_active_; }
    void await_suspend(std::coroutine_handle<> h) { c->bg_waiter_ = h; }
    void await_resume() const {}
  };

  // The connection after a 101, for the handler that upgraded it.
  class Upgraded : public http::ByteStream {
   public:
    explicit Upgraded(Connection& c) : c_(c) {}
    Task<std::string> Read() override;
    Task<bool> Write(std::string data) override { co_return co_await c_.WriteAll(std::move(data)); }
    void Close() override { c_.CloseSocket(); }

   private:
    Connection& c_;
  };
  Task<bool> WriteAll(std::string data);
  Task<boost::system::error_code> ReadMore();
  void StartBackgroundRead();
  void ArmTimer(std::chrono::steady_clock::duration d);
  void CancelTimer();
  void StartTimer(std::chrono::steady_clock::time_point at);
  void OnTimer();
  void CloseSocket();
  std::string Head(int status, const http::Headers& headers, bool keep_alive);
  Task<void> RespondParseError(int status, const std::string& msg);
  Task<void> DrainRefusedBody();
  Task<void> RunHttp2();

  ssl::stream<tcp::socket> stream_;
  asio::steady_timer timer_;
  std::chrono::steady_clock::time_point deadline_{};  // when the socket closes; {}: no deadline
  std::chrono::steady_clock::time_point timer_at_{};  // when timer_ fires; {}: not waiting
  HttpServer::Impl& server_;
  IoThread& io_;
  http::RequestParser parser_;
  std::string inbuf_;
  std::vector<std::string> peer_certs_;
  std::string remote_;
  bool closed_ = false;
  std::shared_ptr<Http2Connection> h2_;  // set when the client negotiated h2

  // Background read during streamed responses (detects a client that goes away).
  bool bg_read_active_ = false;
  char bg_buf_[4096];
  boost::system::error_code bg_error_;
  bool bg_failed_ = false;
  std::coroutine_handle<> bg_waiter_;

  // Per-request state.
  http::RequestContext* ctx_ = nullptr;
  bool in_request_ = false;
  bool long_running_ = false;
  bool keep_alive_ = true;
  bool head_request_ = false;
  bool started_ = false;
  bool streaming_ = false;
  bool stream_ended_ = false;
  bool write_failed_ = false;
  int status_ = 0;
  std::unique_ptr<Upgraded> upgraded_;  // set once the handler took the connection over
};

}  // namespace capstan::server
