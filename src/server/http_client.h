// server/http_client.h: the Asio implementation of http::HttpClientFactory (server/http/http_client.h).
//
// One HttpClientEngine owns one I/O thread and its io_context; every client it makes runs its
// exchanges there: resolve, connect, TLS handshake (the configured CA bundle, or the system roots;
// the server name checked against the certificate's DNS or IP names; an optional client certificate),
// write the request, read the response with ResponseParser, under one deadline per request. Idle
// keep-alive connections are kept per scheme://host:port (at most max_idle_per_host, for idle_timeout)
// and reused; a reused connection that fails before any response byte arrives is retried once on a
// new one. Destroying the engine closes every connection (in-flight requests fail) and joins the
// thread; clients outliving it fail every later request with 503. The continuations of callers
// resume on their own executors, never on the engine's thread. Thread-safe.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "server/http/http_client.h"

namespace capstan::server {

struct HttpClientEngineOptions {
  size_t max_idle_per_host = 4;
  std::chrono::seconds idle_timeout{90};
  std::string user_agent = "capstan";
};

class HttpClientEngine : public http::HttpClientFactory {
 public:
  explicit HttpClientEngine(HttpClientEngineOptions opts = {});
  ~HttpClientEngine() override;
  HttpClientEngine(const HttpClientEngine&) = delete;
  HttpClientEngine& operator=(const HttpClientEngine&) = delete;

  StatusOr<std::unique_ptr<http::HttpClient>> NewClient(const http::ClientTlsConfig& tls) override;

  // Connections opened so far (tests check that keep-alive connections are reused).
  int64_t connections_opened() const;

  struct Impl;  // defined in http_client.cpp

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace capstan::server
