// server/http_server_impl.h: the server's shared state, for the files of src/server/ that implement it
// (http_server.cpp: listener, TLS context, start and shutdown; http_connection.cpp: one connection).
// Not part of the server's interface: it includes Asio. Thread-safety: Impl's atomics and mu/cv are
// shared across I/O threads; an IoThread's connection set is only touched on that thread.
#pragma once

#include <atomic>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "server/asio_await.h"
#include "server/http2_session.h"
#include "server/http_server.h"
#include "util/metrics.h"

namespace capstan::server {

namespace asio = boost::asio;
namespace ssl = boost::asio::ssl;
using tcp = asio::ip::tcp;

class Connection;

struct IoThread {
  asio::io_context ioc{1};
  std::shared_ptr<IoContextExecutor> executor = std::make_shared<IoContextExecutor>(ioc);
  std::set<Connection*> connections;  // only touched on this thread
  std::thread thread;
};

struct HttpServer::Impl {
  HttpServerOptions opts;
  http::Handler handler;
  ssl::context tls{ssl::context::tls_server};
  std::unique_ptr<ServingCertificates> certificates;  // chosen per handshake by the certificate callback
  std::vector<std::unique_ptr<IoThread>> threads;
  std::unique_ptr<tcp::acceptor> acceptor;
  std::atomic<size_t> next_thread{0};
  std::atomic<int64_t> connections{0};
  std::atomic<int64_t> in_flight{0};
  std::atomic<bool> draining{false};
  int port = 0;
  std::string alpn;  // the protocols offered, in ALPN wire form
  Counter* tls_handshake_errors = nullptr;  // apiserver_tls_handshake_errors_total
  Counter* http1_connections = nullptr;
  Counter* http2_connections = nullptr;
  Gauge* http1_open = nullptr;
  Gauge* http2_open = nullptr;
  Http2Metrics http2_metrics;
  std::mutex mu;
  std::condition_variable cv;

  void Accept();
  void ConnectionClosed() {
    std::lock_guard lock(mu);
    connections.fetch_sub(1);
    cv.notify_all();
  }
};

}  // namespace capstan::server
