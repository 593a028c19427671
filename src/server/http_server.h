// server/http_server.h: the HTTPS listener: TLS, HTTP/1.1 keep-alive and chunked streaming
// (server/http_connection.h), HTTP/2 by ALPN (server/http2_connection.h), I/O threads.
//
// One io_context per I/O thread (one per core by default); each accepted connection lives on one of
// them for its whole life, so a connection's coroutine never races with itself. Requests are parsed
// with http::RequestParser and handed to the root Handler (the filter chain) as a RequestContext.
// Limits answer clearly: body over the limit → 413 Status, head over the limit → 431, malformed HTTP
// → 400 and close, TLS garbage → connection closed; idle and slow-header timeouts close connections.
//
// Shutdown(): stop accepting, close idle connections (HTTP/2 ones get a GOAWAY and close once their
// streams are done), cancel long-running requests (watches end), let in-flight requests finish within
// the grace period, then stop the threads.
// This header is free of Asio (pimpl), so cmd/ can include it. Thread-safety: Start/Shutdown/Wait from
// one controlling thread; the handler runs on I/O threads.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "apimachinery/status.h"
#include "server/http/http_parser.h"
#include "server/http/request_context.h"
#include "server/serving_certificates.h"
#include "util/metrics.h"

namespace capstan::server {

struct HttpServerOptions {
  std::string bind_address = "127.0.0.1";
  int port = 6443;  // 0: pick a free port
  bool permit_port_sharing = false;  // --permit-port-sharing: SO_REUSEPORT, so several servers share the port
  std::string tls_cert_file;
  std::string tls_private_key_file;
  // PEM bundles of the CAs client certificates are verified with (--client-ca-file, then
  // --requestheader-client-ca-file): the handshake names their subjects as acceptable client CAs, as
  // Go's server does with its ClientCAs pool, so a client holding several certificates picks by them.
  std::vector<std::string> client_ca_files;
  // --tls-sni-cert-key, in flag order (server/serving_certificates.h has kube's choice by name).
  std::vector<CertKeyFiles> sni_cert_keys;
  // How often the serving, SNI and client CA files are re-read (kube: every minute and on fsnotify
  // events); 0: never.
  std::chrono::milliseconds certificate_reload_interval{1000};
  int io_threads = 0;  // 0: one per core
  http::ParserLimits limits;
  std::chrono::seconds idle_timeout{90};
  std::chrono::seconds read_header_timeout{32};
  std::chrono::seconds tls_handshake_timeout{10};
  // --tls-min-version: "VersionTLS12" (kube's default) or "VersionTLS13". Below 1.2 the TLS library's
  // security level refuses to negotiate, so 1.2 it is (the caller says so at start).
  std::string tls_min_version = "VersionTLS12";
  // --tls-cipher-suites: Go's names (server/tls_cipher_suites.h), checked by the caller; empty: Go's
  // default suites. They choose the TLS 1.2 suites only: TLS 1.3 offers its own, as in Go. A suite the
  // TLS library does not have (RC4, 3DES) is named in a warning at start.
  std::vector<std::string> tls_cipher_suites;
  // HTTP/2: ALPN offers "h2" then "http/1.1" (kube's order) unless disabled (--disable-http2-serving).
  bool enable_http2 = true;
  uint32_t http2_max_streams_per_connection = 0;  // --http2-max-streams-per-connection; 0: kube's 100
  // Where the connection counters go (capstan_http_connections_total, capstan_http2_streams_total);
  // null: not counted.
  MetricsRegistry* metrics = nullptr;
};

class HttpServer {
 public:
  HttpServer(HttpServerOptions opts, http::Handler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and listens, calls on_bound(port) before the first connection is accepted, then starts the
  // I/O threads.
  Status Start(const std::function<void(int port)>& on_bound = nullptr);
  // The bound port (after Start).
  int port() const;
  // Graceful stop: returns when every connection is closed or the grace period has passed.
  void Shutdown(std::chrono::milliseconds grace);
  // Number of requests being handled now.
  int64_t InFlight() const;
  // Called when a client CA bundle was re-read with new content: (index in client_ca_files, PEM).
  // After Start.
  void OnClientCaChange(std::function<void(size_t, const std::string&)> listener);

  struct Impl;  // opaque; defined in http_server.cpp

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace capstan::server
