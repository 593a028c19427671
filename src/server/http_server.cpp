#include "server/http_server.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <atomic>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "server/asio_await.h"
#include "server/http_connection.h"
#include "server/http_server_impl.h"
#include "server/tls_cipher_suites.h"
#include "util/log.h"

namespace capstan::server {

using boost::system::error_code;

namespace {
Task<void> RunConnection(std::shared_ptr<Connection> c) { co_await c->Run(); }

// ALPN: the first of the server's protocols the client offers (Go's order of preference); none in
// common: no ALPN, and the connection speaks HTTP/1.1.
int SelectAlpn(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in, unsigned int inlen,
               void* arg) {
  const auto* offered = static_cast<const std::string*>(arg);
  unsigned char* chosen = nullptr;
  if (SSL_select_next_proto(&chosen, outlen, reinterpret_cast<const unsigned char*>(offered->data()),
                            static_cast<unsigned int>(offered->size()), in, inlen) != OPENSSL_NPN_NEGOTIATED) {
    return SSL_TLSEXT_ERR_NOACK;
  }
  *out = chosen;
  return SSL_TLSEXT_ERR_OK;
}

int AlwaysAcceptPeer(int, X509_STORE_CTX*) {
  // Client certificates are requested but verified by the x509 authenticator, so that an unknown or
  // expired one is answered with kube's 401 Status rather than a failed handshake.
  return 1;
}

// The TLS 1.2 suites (Go's names) as OpenSSL's cipher list. Suites the library lacks are named in a
// warning; when none is left, TLS 1.2 has nothing to negotiate, as in Go, so only TLS 1.3 connects.
void SetCipherSuites(SSL_CTX* ctx, const std::vector<std::string>& go_names) {
  std::vector<std::string> wanted = OpenSslCipherList(go_names);
  std::string list;
  for (const auto& c : wanted) list += (list.empty() ? "" : ":") + c;
  if (list.empty() || SSL_CTX_set_cipher_list(ctx, list.c_str()) != 1) {
    ERR_clear_error();
    SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION);
  }
  std::set<std::string> offered;
  if (STACK_OF(SSL_CIPHER)* have = SSL_CTX_get_ciphers(ctx)) {
    for (int i = 0; i < sk_SSL_CIPHER_num(have); ++i) offered.insert(SSL_CIPHER_get_name(sk_SSL_CIPHER_value(have, i)));
  }
  std::string missing;
  bool any_tls12 = false;
  for (const auto& name : go_names) {
    auto suite = FindTlsCipherSuite(name);
    if (!suite || suite->openssl_name.empty()) continue;
    if (offered.count(std::string(suite->openssl_name))) {
      any_tls12 = true;
    } else {
      missing += (missing.empty() ? "" : ",") + name;
    }
  }
  if (!missing.empty()) {
    LogWarn("--tls-cipher-suites: the TLS library does not have these suites, so they are not offered",
            {{"suites", missing}});
  }
  if (!go_names.empty() && !any_tls12) {
    LogWarn("--tls-cipher-suites names no TLS 1.2 suite that can be offered: only TLS 1.3 clients can connect");
  }
}
}  // namespace

void HttpServer::Impl::Accept() {
  IoThread& target = *threads[next_thread.fetch_add(1) % threads.size()];
  acceptor->async_accept(target.ioc, [this, &target](error_code ec, tcp::socket sock) {
    if (ec) {
      if (ec == asio::error::operation_aborted || draining.load()) return;
      LogWarn("accept failed", {{"error", ec.message()}});
      Accept();
      return;
    }
    if (draining.load()) return;
    {
      std::lock_guard lock(mu);
      connections.fetch_add(1);
    }
    error_code nd;
    sock.set_option(tcp::no_delay(true), nd);
    asio::post(target.ioc, [this, &target, s = std::move(sock)]() mutable {
      auto conn = std::make_shared<Connection>(std::move(s), tls, *this, target);
      Spawn(RunConnection(std::move(conn)));
    });
    Accept();
  });
}

namespace {
// OpenSSL's certificate callback, once per handshake after the ClientHello: the pair for the server
// name and the client CA names, from the current certificates.
int ChooseCertificate(SSL* ssl, void* arg) { return static_cast<const ServingCertificates*>(arg)->Apply(ssl) ? 1 : 0; }
}  // namespace

HttpServer::HttpServer(HttpServerOptions opts, http::Handler handler) : impl_(std::make_unique<Impl>()) {
  impl_->opts = std::move(opts);
  impl_->handler = std::move(handler);
}

HttpServer::~HttpServer() {
  if (!impl_->threads.empty()) Shutdown(std::chrono::milliseconds(0));
}

Status HttpServer::Start(const std::function<void(int port)>& on_bound) {
  Impl& s = *impl_;
  error_code ec;
  s.tls.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                    ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 | ssl::context::single_dh_use);
  SSL_CTX_set_min_proto_version(s.tls.native_handle(),
                                s.opts.tls_min_version == "VersionTLS13" ? TLS1_3_VERSION : TLS1_2_VERSION);
  SSL_CTX_set_options(s.tls.native_handle(), SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  SetCipherSuites(s.tls.native_handle(), s.opts.tls_cipher_suites);
  ServingCertificates::Config certs;
  certs.serving = {s.opts.tls_cert_file, s.opts.tls_private_key_file, {}};
  certs.sni = s.opts.sni_cert_keys;
  certs.client_ca_files = s.opts.client_ca_files;
  auto loaded = ServingCertificates::Load(std::move(certs));
  if (!loaded.ok()) return loaded.status();
  s.certificates = std::move(*loaded);
  SSL_CTX_set_cert_cb(s.tls.native_handle(), ChooseCertificate, s.certificates.get());
  SSL_CTX_set_verify(s.tls.native_handle(), SSL_VERIFY_PEER, AlwaysAcceptPeer);
  SSL_CTX_set_session_id_context(s.tls.native_handle(), reinterpret_cast<const unsigned char*>("capstan"), 7);
  s.alpn = s.opts.enable_http2 ? std::string("\x02h2\x08http/1.1", 12) : std::string("\x08http/1.1", 9);
  SSL_CTX_set_alpn_select_cb(s.tls.native_handle(), SelectAlpn, &s.alpn);
  if (s.opts.metrics) {
    s.tls_handshake_errors = &s.opts.metrics->NewCounter("apiserver_tls_handshake_errors_total",
                                                         "Number of requests dropped with 'TLS handshake error from' error");
    auto& conns = s.opts.metrics->NewCounterVec("capstan_http_connections_total",
                                                "TLS connections accepted, by the protocol negotiated.", {"protocol"});
    s.http1_connections = conns.With({"HTTP/1.1"});
    s.http2_connections = conns.With({"HTTP/2"});
    auto& open = s.opts.metrics->NewGaugeVec("capstan_http_open_connections",
                                             "TLS connections open now, by protocol.", {"protocol"});
    s.http1_open = open.With({"HTTP/1.1"});
    s.http2_open = open.With({"HTTP/2"});
    s.http2_metrics.streams =
        &s.opts.metrics->NewCounter("capstan_http2_streams_total", "HTTP/2 request streams served.");
    s.http2_metrics.resets_received = &s.opts.metrics->NewCounter(
        "capstan_http2_stream_resets_received_total", "RST_STREAM frames received from HTTP/2 clients.");
  }

  int n = s.opts.io_threads > 0 ? s.opts.io_threads : static_cast<int>(std::thread::hardware_concurrency());
  if (n <= 0) n = 1;
  for (int i = 0; i < n; ++i) s.threads.push_back(std::make_unique<IoThread>());

  auto addr = asio::ip::make_address(s.opts.bind_address, ec);
  if (ec) return Status(500, "InternalError", "invalid --bind-address " + s.opts.bind_address);
  tcp::endpoint ep(addr, static_cast<unsigned short>(s.opts.port));
  s.acceptor = std::make_unique<tcp::acceptor>(s.threads[0]->ioc);
  s.acceptor->open(ep.protocol(), ec);
  if (!ec) s.acceptor->set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec && s.opts.permit_port_sharing) {
    s.acceptor->set_option(asio::detail::socket_option::boolean<SOL_SOCKET, SO_REUSEPORT>(true), ec);
  }
  if (!ec) s.acceptor->bind(ep, ec);
  if (!ec) s.acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Status(500, "InternalError",
                  "failed to listen on " + s.opts.bind_address + ":" + std::to_string(s.opts.port) + ": " + ec.message());
  }
  s.port = s.acceptor->local_endpoint().port();
  if (s.opts.certificate_reload_interval.count() > 0) s.certificates->StartPolling(s.opts.certificate_reload_interval);
  if (on_bound) on_bound(s.port);
  s.Accept();
  for (auto& t : s.threads) {
    IoThread* io = t.get();
    io->thread = std::thread([io] {
      ExecutorScope scope(io->executor);
      auto guard = asio::make_work_guard(io->ioc);
      io->ioc.run();
    });
  }
  return Status();
}

int HttpServer::port() const { return impl_->port; }
int64_t HttpServer::InFlight() const { return impl_->in_flight.load(); }

void HttpServer::OnClientCaChange(std::function<void(size_t, const std::string&)> listener) {
  if (impl_->certificates) impl_->certificates->OnClientCaChange(std::move(listener));
}

void HttpServer::Shutdown(std::chrono::milliseconds grace) {
  Impl& s = *impl_;
  if (s.threads.empty()) return;
  s.draining = true;
  if (s.acceptor) {
    asio::post(s.threads[0]->ioc, [&s] {
      error_code ec;
      s.acceptor->close(ec);
    });
  }
  auto close_idle = [&s] {
    for (auto& t : s.threads) {
      asio::post(t->ioc, [io = t.get()] {
        for (auto* c : std::vector<Connection*>(io->connections.begin(), io->connections.end())) {
          c->CloseIfIdle();
          c->CancelLongRunning();
        }
      });
    }
  };
  close_idle();
  auto deadline = std::chrono::steady_clock::now() + grace;
  {
    std::unique_lock lock(s.mu);
    while (s.connections.load() > 0 && std::chrono::steady_clock::now() < deadline) {
      s.cv.wait_for(lock, std::chrono::milliseconds(50));
      lock.unlock();
      close_idle();  // connections that finished a request since are idle now
      lock.lock();
    }
  }
  for (auto& t : s.threads) t->ioc.stop();
  for (auto& t : s.threads) {
    if (t->thread.joinable()) t->thread.join();
  }
  s.acceptor.reset();
  s.threads.clear();
  if (s.certificates) s.certificates->Stop();
}

}  // namespace capstan::server
