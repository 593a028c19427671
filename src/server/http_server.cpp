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
#include "server/http2_connection.h"
#include "server/http/http_date.h"
#include "server/http/responses.h"
#include "util/log.h"

namespace capstan::server {

namespace asio = boost::asio;
namespace ssl = boost::asio::ssl;
using tcp = asio::ip::tcp;
using boost::system::error_code;

namespace {

const char* ReasonPhrase(int code) {
  switch (code) {
    case 100: return "Continue";
    case 101: return "Switching Protocols";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 206: return "Partial Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 411: return "Length Required";
    case 412: return "Precondition Failed";
    case 413: return "Request Entity Too Large";
    case 415: return "Unsupported Media Type";
    case 417: return "Expectation Failed";
    case 422: return "Unprocessable Entity";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
  }
}

void AppendHeaders(std::string& out, const http::Headers& h) {
  for (const auto& f : h.fields()) {
    out += f.name;
    out += ": ";
    out += f.value;
    out += "\r\n";
  }
}

}  // namespace

struct IoThread;

class Connection : public http::ResponseWriter, public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket sock, ssl::context& tls, HttpServer::Impl& server, IoThread& io);
  ~Connection() override;

  Task<void> Run();
  void CloseIfIdle();
  void CancelLongRunning();

  // ResponseWriter
  Task<bool> Respond(http::HttpResponse resp) override;
  Task<bool> StartStream(int status, http::Headers headers) override;
  Task<bool> WriteChunk(std::string data) override;
  Task<bool> EndStream() override;
  bool started() const override { return started_; }
  int status() const override { return status_; }

 private:
  Task<bool> WriteAll(std::string data);
  Task<error_code> ReadMore();
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
  error_code bg_error_;
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
};

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
  std::vector<std::unique_ptr<IoThread>> threads;
  std::unique_ptr<tcp::acceptor> acceptor;
  std::atomic<size_t> next_thread{0};
  std::atomic<int64_t> connections{0};
  std::atomic<int64_t> in_flight{0};
  std::atomic<bool> draining{false};
  int port = 0;
  std::string alpn;  // the protocols offered, in ALPN wire form
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

Connection::Connection(tcp::socket sock, ssl::context& tls, HttpServer::Impl& server, IoThread& io)
    : stream_(std::move(sock), tls), timer_(io.ioc), server_(server), io_(io), parser_(server.opts.limits) {
  error_code ec;
  auto ep = stream_.lowest_layer().remote_endpoint(ec);
  if (!ec) remote_ = ep.address().to_string() + ":" + std::to_string(ep.port());
  io_.connections.insert(this);
}

Connection::~Connection() {
  io_.connections.erase(this);
  server_.ConnectionClosed();
}

// The connection's deadline changes several times per request (idle, slow header, none while the
// handler runs). Rather than cancel and re-arm the Asio timer each time, the timer is left running and
// only moved earlier: when it fires it compares the clock with the current deadline and either closes
// the socket, waits again for the rest, or stops when there is no deadline. On a keep-alive connection
// this leaves no timer operation on the request path.
void Connection::ArmTimer(std::chrono::steady_clock::duration d) {
  deadline_ = std::chrono::steady_clock::now() + d;
  if (timer_at_ != std::chrono::steady_clock::time_point{} && timer_at_ <= deadline_) return;
  StartTimer(deadline_);
}

void Connection::CancelTimer() { deadline_ = {}; }

void Connection::StartTimer(std::chrono::steady_clock::time_point at) {
  timer_at_ = at;
  timer_.expires_at(at);
  timer_.async_wait([weak = weak_from_this()](error_code ec) {
    auto self = weak.lock();
    if (self && !ec) self->OnTimer();
  });
}

void Connection::OnTimer() {
  const auto now = std::chrono::steady_clock::now();
  if (now < timer_at_) return;  // an earlier wait that completed as it was replaced; the new one is pending
  timer_at_ = {};
  if (deadline_ == std::chrono::steady_clock::time_point{}) return;
  if (now >= deadline_) {
    CloseSocket();
    return;
  }
  StartTimer(deadline_);
}

void Connection::CloseSocket() {
  if (closed_) return;
  closed_ = true;
  error_code ec;
  stream_.lowest_layer().shutdown(tcp::socket::shutdown_both, ec);
  stream_.lowest_layer().close(ec);
}

void Connection::CloseIfIdle() {
  if (h2_) {
    h2_->Drain();
    return;
  }
  // Part of a request already read (say, a slow upload) counts as in flight: it is finished first.
  if (!in_request_ && inbuf_.empty() && parser_.Idle()) CloseSocket();
}

void Connection::CancelLongRunning() {
  if (h2_) {
    h2_->CancelLongRunning();
    return;
  }
  if (in_request_ && long_running_ && ctx_) ctx_->cancel.Cancel();
}

Task<error_code> Connection::ReadMore() {
  if (bg_read_active_) {
    // A background read is outstanding: wait for it rather than starting a second one.
    struct Wait {
      Connection* c;
      bool await_ready() { return !c->bg_read_active_; }
      void await_suspend(std::coroutine_handle<> h) { c->bg_waiter_ = h; }
      void await_resume() {}
    };
    co_await Wait{this};
    if (bg_failed_) co_return bg_error_;
    co_return error_code();
  }
  if (bg_failed_) co_return bg_error_;
  char buf[16384];
  auto [ec, n] = co_await AsioAwait([&](auto h) { stream_.async_read_some(asio::buffer(buf), std::move(h)); });
  if (!ec) inbuf_.append(buf, n);
  co_return ec;
}

void Connection::StartBackgroundRead() {
  if (bg_read_active_ || bg_failed_ || closed_) return;
  bg_read_active_ = true;
  stream_.async_read_some(asio::buffer(bg_buf_), [self = shared_from_this()](error_code ec, size_t n) {
    self->bg_read_active_ = false;
    if (ec) {
      self->bg_failed_ = true;
      self->bg_error_ = ec;
    } else {
      self->inbuf_.append(self->bg_buf_, n);
    }
    if (auto w = std::exchange(self->bg_waiter_, {})) {
      w.resume();
      return;
    }
    if (ec) {
      // The client went away during a streamed response: end the request.
      if (self->ctx_) self->ctx_->cancel.Cancel();
      return;
    }
    // Keep watching for the end of the connection, within the head limit.
    if (self->streaming_ && !self->stream_ended_ && self->inbuf_.size() < self->server_.opts.limits.max_header_bytes) {
      self->StartBackgroundRead();
    }
  });
}

Task<bool> Connection::WriteAll(std::string data) {
  if (write_failed_ || closed_) co_return false;
  auto [ec, n] = co_await AsioAwait([&](auto h) { asio::async_write(stream_, asio::buffer(data), std::move(h)); });
  if (ec) {
    write_failed_ = true;
    if (ctx_) ctx_->cancel.Cancel();
    co_return false;
  }
  co_return true;
}

std::string Connection::Head(int status, const http::Headers& headers, bool keep_alive) {
  std::string out;
  out.reserve(256);
  out += "HTTP/1.1 ";
  out += std::to_string(status);
  out += ' ';
  out += ReasonPhrase(status);
  out += "\r\n";
  // Headers the filters added, unless the handler set the same header itself (it knows better).
  for (const auto& f : extra_headers_.fields()) {
    if (headers.Has(f.name)) continue;
    out += f.name;
    out += ": ";
    out += f.value;
    out += "\r\n";
  }
  AppendHeaders(out, headers);
  out += "Date: ";
  out += http::HttpDate();
  out += "\r\n";
  if (!keep_alive) out += "Connection: close\r\n";
  return out;
}

Task<bool> Connection::Respond(http::HttpResponse resp) {
  if (started_) co_return false;
  started_ = true;
  status_ = resp.status;
  if (ctx_ && ctx_->cancel.cancelled() && !long_running_) {
    // The request timed out and its answer was already given; drop late writes.
  }
  std::string out = Head(resp.status, resp.headers, keep_alive_);
  out += "Content-Length: ";
  out += std::to_string(resp.body.size());
  out += "\r\n\r\n";
  if (!head_request_) out += resp.body;
  co_return co_await WriteAll(std::move(out));
}

Task<bool> Connection::StartStream(int status, http::Headers headers) {
  if (started_) co_return false;
  started_ = true;
  streaming_ = true;
  status_ = status;
  std::string out = Head(status, headers, keep_alive_);
  out += "Transfer-Encoding: chunked\r\n\r\n";
  bool ok = co_await WriteAll(std::move(out));
  if (ok) StartBackgroundRead();
  co_return ok;
}

Task<bool> Connection::WriteChunk(std::string data) {
  if (!streaming_ || stream_ended_) co_return false;
  if (data.empty()) co_return true;
  char size[32];
  int len = snprintf(size, sizeof size, "%zx\r\n", data.size());
  std::string out;
  out.reserve(data.size() + static_cast<size_t>(len) + 2);
  out.append(size, static_cast<size_t>(len));
  out += data;
  out += "\r\n";
  co_return co_await WriteAll(std::move(out));
}

Task<bool> Connection::EndStream() {
  if (!streaming_ || stream_ended_) co_return false;
  stream_ended_ = true;
  co_return co_await WriteAll("0\r\n\r\n");
}

Task<void> Connection::RespondParseError(int status, const std::string& msg) {
  keep_alive_ = false;
  started_ = false;
  http::HttpResponse resp;
  if (status == 413) {
    Status st(413, "RequestEntityTooLarge",
              "Request entity too large: limit is " + std::to_string(server_.opts.limits.max_body_bytes));
    resp = http::StatusResponse(st);
  } else {
    resp = http::TextResponse(std::to_string(status) + " " + ReasonPhrase(status) + ": " + msg, status);
  }
  co_await Respond(std::move(resp));
}

// After a 413 the client is usually still uploading the body. Closing now, with its bytes unread,
// makes TCP answer them with a reset, which can destroy the 413 before the client has read it (kubectl
// then reports a broken pipe). So the rest is read and dropped, as Go's server discards an unread
// body, within bounds: at most kMaxDrainBytes, each read within kDrainReadTimeout.
Task<void> Connection::DrainRefusedBody() {
  constexpr size_t kMaxDrainBytes = 64 * 1024 * 1024;
  constexpr auto kDrainReadTimeout = std::chrono::seconds(5);
  size_t drained = inbuf_.size();
  inbuf_.clear();
  while (!closed_ && !write_failed_ && drained < kMaxDrainBytes) {
    ArmTimer(kDrainReadTimeout);
    error_code ec = co_await ReadMore();
    if (ec) break;
    drained += inbuf_.size();
    inbuf_.clear();
  }
  CancelTimer();
}

Task<void> Connection::Run() {
  auto self = shared_from_this();
  ArmTimer(server_.opts.tls_handshake_timeout);
  auto [hs_ec, unused] =
      co_await AsioAwait([&](auto h) { stream_.async_handshake(ssl::stream_base::server, std::move(h)); });
  (void)unused;
  CancelTimer();
  if (hs_ec) {
    LogDebug("TLS handshake failed", {{"remote", remote_}, {"error", hs_ec.message()}});
    CloseSocket();
    co_return;
  }
  // On a server, the peer's chain excludes its leaf certificate: take the leaf first.
  auto append_der = [this](X509* cert) {
    int len = i2d_X509(cert, nullptr);
    if (len <= 0) return;
    std::string der(static_cast<size_t>(len), '\0');
    auto* p = reinterpret_cast<unsigned char*>(der.data());
    i2d_X509(cert, &p);
    peer_certs_.push_back(std::move(der));
  };
  if (X509* leaf = SSL_get1_peer_certificate(stream_.native_handle())) {
    append_der(leaf);
    X509_free(leaf);
    if (STACK_OF(X509)* chain = SSL_get_peer_cert_chain(stream_.native_handle())) {
      for (int i = 0; i < sk_X509_num(chain); ++i) append_der(sk_X509_value(chain, i));
    }
  }

  const unsigned char* alpn = nullptr;
  unsigned int alpn_len = 0;
  SSL_get0_alpn_selected(stream_.native_handle(), &alpn, &alpn_len);
  if (alpn_len == 2 && alpn[0] == 'h' && alpn[1] == '2') {
    co_await RunHttp2();
    CloseSocket();
    co_return;
  }
  if (server_.http1_connections) server_.http1_connections->Inc();
  if (server_.http1_open) server_.http1_open->Add(1);
  struct OpenGauge {
    Gauge* g;
    ~OpenGauge() {
      if (g) g->Add(-1);
    }
  } open_gauge{server_.http1_open};

  while (!closed_ && !server_.draining.load()) {
    // Read one request.
    bool idle = inbuf_.empty();
    ArmTimer(idle ? std::chrono::steady_clock::duration(server_.opts.idle_timeout)
                  : std::chrono::steady_clock::duration(server_.opts.read_header_timeout));
    bool header_timer = !idle;
    bool continue_sent = false;
    std::chrono::steady_clock::time_point head_received{};
    http::RequestParser::Result result = http::RequestParser::Result::kNeedMore;
    for (;;) {
      if (!inbuf_.empty()) {
        if (!header_timer) {
          // Bytes of a new request arrived: from now on the slow-header timeout applies.
          ArmTimer(server_.opts.read_header_timeout);
          header_timer = true;
        }
        size_t consumed = 0;
        result = parser_.Feed(inbuf_, &consumed);
        inbuf_.erase(0, consumed);
        if (parser_.HeadDone() && head_received == std::chrono::steady_clock::time_point{}) {
          head_received = std::chrono::steady_clock::now();
        }
        if (result != http::RequestParser::Result::kNeedMore) break;
        if (parser_.HeadDone()) CancelTimer();  // bodies may arrive slowly; the idle socket timeout still closes
      }
      if (parser_.WantsContinue() && !continue_sent) {
        continue_sent = true;
        if (!co_await WriteAll("HTTP/1.1 100 Continue\r\n\r\n")) break;
      }
      error_code ec = co_await ReadMore();
      if (ec) break;
    }
    CancelTimer();
    if (result == http::RequestParser::Result::kError) {
      in_request_ = true;
      co_await RespondParseError(parser_.error_status(), parser_.error_message());
      if (parser_.error_status() == 413) co_await DrainRefusedBody();
      break;
    }
    if (result != http::RequestParser::Result::kDone) break;

    // Handle it.
    auto ctx = std::make_unique<http::RequestContext>();
    ctx->request = parser_.TakeRequest();
    ctx->request.remote_addr = remote_;
    ctx->request.peer_certs_der = peer_certs_;
    // A request is in flight from the moment its head arrived (its body may still be uploading).
    ctx->received = head_received != std::chrono::steady_clock::time_point{} ? head_received
                                                                              : std::chrono::steady_clock::now();
    ctx->writer = this;
    ctx_ = ctx.get();
    in_request_ = true;
    keep_alive_ = ctx->request.keep_alive;
    head_request_ = ctx->request.method == "HEAD";
    started_ = streaming_ = stream_ended_ = false;
    long_running_ = false;
    status_ = 0;
    extra_headers_ = http::Headers();
    server_.in_flight.fetch_add(1);
    // Long-running requests are recognised by the request-info filter; it tells the connection through
    // the context before the handler streams. Here: a watch query or verb path marks it too, for shutdown.
    long_running_ = http::LooksLongRunning(ctx->request);
    try {
      co_await server_.handler(*ctx);
    } catch (const std::exception& e) {
      LogError("unhandled exception in handler", {{"error", e.what()}, {"path", ctx->request.path}});
    } catch (...) {
      LogError("unhandled exception in handler", {{"path", ctx->request.path}});
    }
    if (!started_) {
      co_await Respond(http::StatusResponse(Status(500, "InternalError", "the server did not answer the request")));
    } else if (streaming_ && !stream_ended_) {
      co_await EndStream();
    }
    server_.in_flight.fetch_sub(1);
    ctx_ = nullptr;
    in_request_ = false;
    if (write_failed_ || !keep_alive_) break;
  }
  // Let a pending background read finish before the socket goes away.
  CloseSocket();
  if (bg_read_active_) {
    struct Wait {
      Connection* c;
      bool await_ready() { return !c->bg_read_active_; }
      void await_suspend(std::coroutine_handle<> h) { c->bg_waiter_ = h; }
      void await_resume() {}
    };
    co_await Wait{this};
  }
}

namespace {
// The handler chain for one HTTP/2 stream, counted as in flight like an HTTP/1.1 request.
Task<void> CountedHandler(HttpServer::Impl& s, http::RequestContext& ctx) {
  s.in_flight.fetch_add(1);
  try {
    co_await s.handler(ctx);
  } catch (...) {
    s.in_flight.fetch_sub(1);
    throw;
  }
  s.in_flight.fetch_sub(1);
}
}  // namespace

Task<void> Connection::RunHttp2() {
  if (server_.http2_connections) server_.http2_connections->Inc();
  if (server_.http2_open) server_.http2_open->Add(1);
  Http2ConnectionOptions o;
  o.limits.max_concurrent_streams = server_.opts.http2_max_streams_per_connection;
  o.limits.max_body_bytes = server_.opts.limits.max_body_bytes;
  o.limits.max_header_list_bytes = server_.opts.limits.max_header_bytes;
  o.limits.max_header_count = server_.opts.limits.max_header_count;
  o.metrics = server_.http2_metrics;
  o.idle_timeout = server_.opts.idle_timeout;
  Http2Session::Hooks hooks;
  HttpServer::Impl& s = server_;
  hooks.handler = [&s](http::RequestContext& ctx) { return CountedHandler(s, ctx); };
  hooks.remote_addr = remote_;
  hooks.peer_certs_der = peer_certs_;
  h2_ = std::make_shared<Http2Connection>(stream_, io_.ioc, o, std::move(hooks), [this] { CloseSocket(); });
  if (server_.draining.load()) h2_->Drain();
  co_await h2_->Run();
  h2_.reset();
  if (server_.http2_open) server_.http2_open->Add(-1);
}

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
// The subjects of every certificate in the bundles, in order (Go's CertPool.Subjects()); a subject
// already listed is not repeated.
Status SetClientCaNames(SSL_CTX* ctx, const std::vector<std::string>& files) {
  STACK_OF(X509_NAME)* names = sk_X509_NAME_new_null();
  if (!names) return Status(500, "InternalError", "out of memory");
  for (const auto& file : files) {
    BIO* bio = BIO_new_file(file.c_str(), "r");
    if (!bio) {
      sk_X509_NAME_pop_free(names, X509_NAME_free);
      return Status(500, "InternalError", "cannot read client CA bundle " + file);
    }
    while (X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
      const X509_NAME* subject = X509_get_subject_name(cert);
      bool seen = false;
      for (int i = 0; i < sk_X509_NAME_num(names) && !seen; ++i) seen = X509_NAME_cmp(sk_X509_NAME_value(names, i), subject) == 0;
      if (!seen) sk_X509_NAME_push(names, X509_NAME_dup(subject));
      X509_free(cert);
    }
    ERR_clear_error();  // the end of the bundle reads as a PEM "no start line"
    BIO_free(bio);
  }
  SSL_CTX_set_client_CA_list(ctx, names);  // takes ownership
  return Status();
}
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
  SSL_CTX_set_min_proto_version(s.tls.native_handle(), TLS1_2_VERSION);
  SSL_CTX_set_options(s.tls.native_handle(), SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  s.tls.use_certificate_chain_file(s.opts.tls_cert_file, ec);
  if (ec) return Status(500, "InternalError", "cannot load --tls-cert-file " + s.opts.tls_cert_file + ": " + ec.message());
  s.tls.use_private_key_file(s.opts.tls_private_key_file, ssl::context::pem, ec);
  if (ec) {
    return Status(500, "InternalError",
                  "cannot load --tls-private-key-file " + s.opts.tls_private_key_file + ": " + ec.message());
  }
  if (SSL_CTX_check_private_key(s.tls.native_handle()) != 1) {
    return Status(500, "InternalError", "the TLS private key does not match the certificate");
  }
  SSL_CTX_set_verify(s.tls.native_handle(), SSL_VERIFY_PEER, AlwaysAcceptPeer);
  if (Status st = SetClientCaNames(s.tls.native_handle(), s.opts.client_ca_files); !st.ok()) return st;
  SSL_CTX_set_session_id_context(s.tls.native_handle(), reinterpret_cast<const unsigned char*>("capstan"), 7);
  s.alpn = s.opts.enable_http2 ? std::string("\x02h2\x08http/1.1", 12) : std::string("\x08http/1.1", 9);
  SSL_CTX_set_alpn_select_cb(s.tls.native_handle(), SelectAlpn, &s.alpn);
  if (s.opts.metrics) {
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
  if (!ec) s.acceptor->bind(ep, ec);
  if (!ec) s.acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Status(500, "InternalError",
                  "failed to listen on " + s.opts.bind_address + ":" + std::to_string(s.opts.port) + ": " + ec.message());
  }
  s.port = s.acceptor->local_endpoint().port();
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
}

}  // namespace capstan::server
