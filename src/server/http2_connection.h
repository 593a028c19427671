// server/http2_connection.h: an HTTP/2 connection over a TLS stream that negotiated "h2" by ALPN.
//
// It moves bytes between the socket and an Http2Session (server/http2_session.h): one coroutine reads
// and feeds the session, one writes whatever the session has to send, one at a time, so the session
// produces frames only as fast as the socket takes them (and a peer that reads nothing stops every
// stream's writer once its windows and buffers are full). The connection ends when the session is
// finished (GOAWAY exchanged, no stream left), the peer closes, a protocol error ends the session, or
// the idle timeout passes with no stream open (a GOAWAY is sent first, as Go's server does).
// Before Run() returns every handler of the connection has finished.
//
// Owned through shared_ptr by the server's Connection, which owns the socket. Only for src/server/
// translation units (Asio). Thread-safety: everything runs on the connection's I/O thread.
#pragma once

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <chrono>
#include <coroutine>
#include <functional>
#include <memory>
#include <string>

#include "server/http2_session.h"
#include "util/task.h"

namespace capstan::server {

struct Http2ConnectionOptions {
  Http2Limits limits;
  Http2Metrics metrics;
  std::chrono::seconds idle_timeout{90};
};

class Http2Connection : public std::enable_shared_from_this<Http2Connection> {
 public:
  using TlsStream = boost::asio::ssl::stream<boost::asio::ip::tcp::socket>;

  // hooks.want_write and hooks.post are filled in here; close_socket ends the TCP connection.
  Http2Connection(TlsStream& stream, boost::asio::io_context& ioc, Http2ConnectionOptions opts,
                  Http2Session::Hooks hooks, std::function<void()> close_socket);
  Http2Connection(const Http2Connection&) = delete;
  Http2Connection& operator=(const Http2Connection&) = delete;

  Task<void> Run();
  // Shutdown: GOAWAY; the connection closes once its streams have finished.
  void Drain();
  void CancelLongRunning();

 private:
  void Kick();
  Task<void> Pump();
  void ArmIdleTimer(std::chrono::steady_clock::time_point at);
  void OnIdleTimer();

  TlsStream& stream_;
  boost::asio::io_context& ioc_;
  Http2ConnectionOptions opts_;
  std::function<void()> close_socket_;
  std::unique_ptr<Http2Session> session_;
  boost::asio::steady_timer idle_timer_;
  std::chrono::steady_clock::time_point last_active_;

  bool finishing_ = false;  // the read side has ended: the pump sends what is left and stops
  bool kicked_ = false;
  bool kick_posted_ = false;
  bool pump_done_ = false;
  std::coroutine_handle<> pump_waiter_;  // the pump, waiting for output
  std::coroutine_handle<> run_waiter_;   // Run, waiting for the pump to stop
};

}  // namespace capstan::server
