#include "server/http_connection.h"

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "server/http/http_date.h"
#include "server/http/responses.h"
#include "util/log.h"

namespace capstan::server {

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
    co_await BackgroundReadDone{this};
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

Task<http::ByteStream*> Connection::Upgrade(http::Headers headers) {
  if (started_) co_return nullptr;
  started_ = true;
  status_ = 101;
  keep_alive_ = false;  // the connection ends with the upgraded exchange
  std::string out = "HTTP/1.1 101 Switching Protocols\r\n";
  AppendHeaders(out, headers);
  out += "\r\n";
  if (!co_await WriteAll(std::move(out))) co_return nullptr;
  upgraded_ = std::make_unique<Upgraded>(*this);
  co_return upgraded_.get();
}

Task<std::string> Connection::Upgraded::Read() {
  if (c_.inbuf_.empty() && !c_.closed_) {
    if (co_await c_.ReadMore()) co_return std::string();
  }
  co_return std::exchange(c_.inbuf_, std::string());
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
    // Go's server logs "http: TLS handshake error from" for every failure but a peer closing at once.
    if (server_.tls_handshake_errors && hs_ec != boost::asio::error::eof) server_.tls_handshake_errors->Inc();
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
    co_await BackgroundReadDone{this};
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

}  // namespace capstan::server
