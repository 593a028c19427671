#include "server/http_client.h"
#include "server/http/http_stream.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <atomic>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "server/asio_await.h"
#include "server/http_client_response.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::server {

namespace asio = boost::asio;
namespace ssl = boost::asio::ssl;
using tcp = asio::ip::tcp;
using boost::system::error_code;

namespace {

std::string GoMethod(const std::string& m) {
  std::string out = ToLower(m);
  if (!out.empty() && out[0] >= 'a' && out[0] <= 'z') out[0] = static_cast<char>(out[0] - 'a' + 'A');
  return out;
}

// Go crypto/x509's wording for a failed server certificate check.
std::string VerifyFailure(long result, const std::string& host) {
  switch (result) {
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
      return "tls: failed to verify certificate: x509: certificate signed by unknown authority";
    case X509_V_ERR_CERT_HAS_EXPIRED:
    case X509_V_ERR_CERT_NOT_YET_VALID:
      return "tls: failed to verify certificate: x509: certificate has expired or is not yet valid";
    case X509_V_ERR_HOSTNAME_MISMATCH:
    case X509_V_ERR_IP_ADDRESS_MISMATCH:
      return "tls: failed to verify certificate: x509: certificate is not valid for " + host;
    default:
      return std::string("tls: failed to verify certificate: x509: ") + X509_verify_cert_error_string(result);
  }
}

bool IsIpLiteral(const std::string& host) {
  error_code ec;
  asio::ip::make_address(host, ec);
  return !ec;
}

}  // namespace

struct Exchange;

struct HttpClientEngine::Impl {
  HttpClientEngineOptions opts;
  asio::io_context ioc{1};
  std::shared_ptr<IoContextExecutor> executor = std::make_shared<IoContextExecutor>(ioc);
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
  std::thread thread;
  std::mutex mu;
  bool stopped = false;                 // GUARDED_BY(mu): no more work is posted once set
  std::set<Exchange*> inflight;         // engine thread only
  std::atomic<int64_t> opened{0};

  // Posts fn to the engine thread; false once the engine is stopping.
  bool Post(std::function<void()> fn) {
    std::lock_guard lock(mu);
    if (stopped) return false;
    asio::post(ioc, std::move(fn));
    return true;
  }
};

namespace {

struct Conn {
  Conn(asio::io_context& ioc, ssl::context& ctx, bool use_tls) : stream(ioc, ctx), tls(use_tls) {}
  ssl::stream<tcp::socket> stream;
  bool tls;
  bool closed = false;
  std::chrono::steady_clock::time_point idle_since;

  void Close() {
    if (closed) return;
    closed = true;
    error_code ec;
    stream.lowest_layer().shutdown(tcp::socket::shutdown_both, ec);
    stream.lowest_layer().close(ec);
  }
};

}  // namespace

// One client's TLS context and idle connections. Shared by the client handle and its exchanges.
struct ClientState {
  std::shared_ptr<HttpClientEngine::Impl> engine;
  ssl::context ctx{ssl::context::tls_client};
  http::ClientTlsConfig tls;
  std::mutex mu;
  std::map<std::string, std::vector<std::shared_ptr<Conn>>> idle;  // GUARDED_BY(mu)

  std::shared_ptr<Conn> TakeIdle(const std::string& key) {
    std::lock_guard lock(mu);
    auto it = idle.find(key);
    if (it == idle.end()) return nullptr;
    auto now = std::chrono::steady_clock::now();
    while (!it->second.empty()) {
      auto c = std::move(it->second.back());
      it->second.pop_back();
      if (!c->closed && now - c->idle_since < engine->opts.idle_timeout) return c;
      c->Close();
    }
    return nullptr;
  }
  void PutIdle(const std::string& key, std::shared_ptr<Conn> c) {
    c->idle_since = std::chrono::steady_clock::now();
    std::lock_guard lock(mu);
    auto& list = idle[key];
    if (list.size() >= engine->opts.max_idle_per_host) {
      c->Close();
      return;
    }
    list.push_back(std::move(c));
  }
};

// One request in flight: the deadline, the connection it uses, and how to stop it.
struct Exchange : std::enable_shared_from_this<Exchange> {
  asio::steady_timer timer;
  std::optional<tcp::resolver> resolver;
  std::shared_ptr<Conn> conn;
  bool timed_out = false;
  bool cancelled = false;
  // Set while the head timeout is armed: the rest of the whole-exchange timeout, for after the head.
  std::optional<std::chrono::steady_clock::time_point> deadline;

  explicit Exchange(asio::io_context& ioc) : timer(ioc) {}
  void Cancel() {
    cancelled = true;
    if (resolver) resolver->cancel();
    if (conn) conn->Close();
  }
  // (Re)arms the timer: the exchange is cancelled as timed out when it fires.
  void Arm(std::chrono::steady_clock::time_point at) {
    timer.expires_at(at);
    timer.async_wait([self = shared_from_this()](error_code ec) {
      if (ec || self->cancelled) return;
      self->timed_out = true;
      self->Cancel();
    });
  }
  // The head arrived: only the whole-exchange deadline applies from now on.
  void HeadArrived() {
    if (!deadline) return;
    auto at = *deadline;
    deadline.reset();
    Arm(at);
  }
};

namespace {

using Callback = std::function<void(StatusOr<http::ClientResponse>)>;

std::string SerializeRequest(const http::ClientRequest& req, const http::ParsedUrl& url, const std::string& user_agent) {
  std::string out;
  out.reserve(256 + req.body.size());
  out += req.method;
  out += ' ';
  out += url.target;
  out += " HTTP/1.1\r\nHost: ";
  out += url.HostHeader();
  out += "\r\n";
  bool has_ua = req.headers.Has("User-Agent");
  if (!has_ua) out += "User-Agent: " + user_agent + "\r\n";
  for (const auto& f : req.headers.fields()) {
    if (EqualsIgnoreCase(f.name, "Host") || EqualsIgnoreCase(f.name, "Content-Length") ||
        EqualsIgnoreCase(f.name, "Connection") || EqualsIgnoreCase(f.name, "Transfer-Encoding")) {
      continue;
    }
    // Header injection guard: no line breaks in names or values.
    if (f.name.find_first_of("\r\n:") != std::string::npos || f.value.find_first_of("\r\n") != std::string::npos) continue;
    out += f.name;
    out += ": ";
    out += f.value;
    out += "\r\n";
  }
  if (req.headers.Has("Upgrade")) out += "Connection: Upgrade\r\n";
  if (!req.body.empty() || (req.method != "GET" && req.method != "HEAD")) {
    out += "Content-Length: " + std::to_string(req.body.size()) + "\r\n";
  }
  out += "\r\n";
  out += req.body;
  return out;
}

struct Outcome {
  StatusOr<http::ClientResponse> result = Status(503, "ServiceUnavailable", "");
  bool retry = false;  // a reused connection failed before any response byte
  bool head_sent = false;  // streaming: the head went to the caller, the rest to the sink
  std::shared_ptr<Conn> upgraded;  // an upgrade's 101: the connection, and the bytes after the head
  std::string after_head;
};

// Streaming (server/http/http_stream.h): where the head goes once parsed, and the sink for the body.
struct StreamState {
  Callback head;
  http::StreamSink sink;
};

Task<error_code> Write(Conn& c, const std::string& data) {
  auto [ec, n] = c.tls ? co_await AsioAwait([&](auto h) { asio::async_write(c.stream, asio::buffer(data), std::move(h)); })
                       : co_await AsioAwait([&](auto h) { asio::async_write(c.stream.next_layer(), asio::buffer(data), std::move(h)); });
  (void)n;
  co_return ec;
}

Task<std::pair<error_code, size_t>> ReadSome(Conn& c, char* buf, size_t size) {
  if (c.tls) co_return co_await AsioAwait([&](auto h) { c.stream.async_read_some(asio::buffer(buf, size), std::move(h)); });
  co_return co_await AsioAwait([&](auto h) { c.stream.next_layer().async_read_some(asio::buffer(buf, size), std::move(h)); });
}

// Opens a connection: resolve, connect, TLS handshake with the name check.
Task<StatusOr<std::shared_ptr<Conn>>> Dial(ClientState& cs, Exchange& ex, const http::ParsedUrl& url,
                                           const std::string& prefix) {
  auto& ioc = cs.engine->ioc;
  auto conn = std::make_shared<Conn>(ioc, cs.ctx, url.scheme == "https");
  ex.conn = conn;
  std::vector<tcp::endpoint> endpoints;
  error_code ec;
  auto addr = asio::ip::make_address(url.host, ec);
  if (!ec) {
    endpoints.emplace_back(addr, url.port);
  } else {
    ex.resolver.emplace(ioc);
    tcp::resolver::results_type results;
    error_code rec;
    struct ResolveOp {
      Exchange& ex;
      const http::ParsedUrl& url;
      tcp::resolver::results_type& results;
      error_code& ec;
      bool await_ready() noexcept { return false; }
      void await_suspend(std::coroutine_handle<> h) {
        ex.resolver->async_resolve(url.host, std::to_string(url.port),
                                   [this, h](error_code e, tcp::resolver::results_type r) {
                                     ec = e;
                                     results = std::move(r);
                                     h.resume();
                                   });
      }
      void await_resume() {}
    };
    co_await ResolveOp{ex, url, results, rec};
    if (rec || ex.cancelled) {
      co_return Status(503, "ServiceUnavailable", prefix + "dial tcp: lookup " + url.host + ": " + rec.message());
    }
    for (const auto& r : results) endpoints.push_back(r.endpoint());
  }
  error_code cec = asio::error::host_not_found;
  std::string target;
  for (const auto& ep : endpoints) {
    if (ex.cancelled) break;
    error_code close_ec;
    conn->stream.lowest_layer().close(close_ec);
    target = (ep.address().is_v6() ? "[" + ep.address().to_string() + "]" : ep.address().to_string()) + ":" +
             std::to_string(ep.port());
    auto [e, unused] = co_await AsioAwait([&](auto h) { conn->stream.lowest_layer().async_connect(ep, std::move(h)); });
    (void)unused;
    cec = e;
    if (!cec) break;
  }
  if (cec || ex.cancelled) {
    std::string why = cec == asio::error::connection_refused ? "connect: connection refused" : cec.message();
    co_return Status(503, "ServiceUnavailable", prefix + "dial tcp " + target + ": " + why);
  }
  cs.engine->opened.fetch_add(1);
  error_code nd;
  conn->stream.lowest_layer().set_option(tcp::no_delay(true), nd);
  if (conn->tls) {
    SSL* ssl = conn->stream.native_handle();
    std::string name = cs.tls.server_name.empty() ? url.host : cs.tls.server_name;
    if (!IsIpLiteral(name)) SSL_set_tlsext_host_name(ssl, name.c_str());
    if (!cs.tls.insecure_skip_verify) {
      X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
      if (IsIpLiteral(name)) {
        X509_VERIFY_PARAM_set1_ip_asc(param, name.c_str());
      } else {
        X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
        X509_VERIFY_PARAM_set1_host(param, name.c_str(), name.size());
      }
    }
    auto [hec, unused] = co_await AsioAwait([&](auto h) { conn->stream.async_handshake(ssl::stream_base::client, std::move(h)); });
    (void)unused;
    if (hec || ex.cancelled) {
      long vr = SSL_get_verify_result(ssl);
      std::string why = vr != X509_V_OK ? VerifyFailure(vr, name) : "remote error: " + hec.message();
      co_return Status(503, "ServiceUnavailable", prefix + why);
    }
  }
  co_return conn;
}

Task<Outcome> Attempt(ClientState& cs, Exchange& ex, const http::ClientRequest& req, const http::ParsedUrl& url,
                      const std::string& key, const std::string& wire, const std::string& prefix,
                      StreamState* stream, bool upgrade) {
  Outcome out;
  auto conn = upgrade ? nullptr : cs.TakeIdle(key);
  bool reused = conn != nullptr;
  if (!conn) {
    auto dialed = co_await Dial(cs, ex, url, prefix);
    if (!dialed.ok()) {
      out.result = dialed.TakeStatus();
      co_return out;
    }
    conn = std::move(*dialed);
  }
  ex.conn = conn;
  if (error_code wec = co_await Write(*conn, wire)) {
    conn->Close();
    out.retry = reused && !ex.cancelled;
    out.result = Status(503, "ServiceUnavailable", prefix + "write: " + wec.message());
    co_return out;
  }
  ResponseParser parser(req.max_response_bytes, req.method == "HEAD");
  if (upgrade) parser.AllowSwitch();
  // Streaming: hands the head over once, then every body piece; false when the consumer stopped.
  auto pass_on = [&]() -> bool {
    if (!parser.head_done()) return true;
    ex.HeadArrived();
    if (!stream) return true;
    if (!out.head_sent) {
      out.head_sent = true;
      http::ClientResponse head = parser.head();
      head.body.clear();
      stream->head(std::move(head));
    }
    std::string piece = parser.DrainBody();
    return piece.empty() || stream->sink.on_data(std::move(piece));
  };
  char buf[16384];
  for (;;) {
    auto [rec, n] = co_await ReadSome(*conn, buf, sizeof buf);
    ResponseParser::Result r;
    size_t consumed = 0;
    if (rec) {
      if (ex.cancelled || (rec != asio::error::eof && rec != ssl::error::stream_truncated)) {
        conn->Close();
        out.retry = reused && !parser.started() && !ex.cancelled;
        out.result = Status(503, "ServiceUnavailable", prefix + "read: " + rec.message());
        co_return out;
      }
      r = parser.FinishAtEof();
      conn->Close();
      if (r != ResponseParser::Result::kDone) {
        out.retry = reused && !parser.started();
        out.result = Status(503, "ServiceUnavailable", prefix + parser.error());
        co_return out;
      }
    } else {
      r = parser.Feed(std::string_view(buf, n), &consumed);
      if (r != ResponseParser::Result::kError && !pass_on()) {
        conn->Close();
        out.result = Status(499, "ClientClosedRequest", prefix + "the consumer stopped reading the stream");
        co_return out;
      }
      if (r == ResponseParser::Result::kNeedMore) continue;
      if (r == ResponseParser::Result::kError) {
        conn->Close();
        if (parser.body_too_large()) {
          out.result = Status(413, "RequestEntityTooLarge",
                              prefix + "response body larger than " + std::to_string(req.max_response_bytes) + " bytes");
        } else {
          out.result = Status(503, "ServiceUnavailable", prefix + "malformed HTTP response: " + parser.error());
        }
        co_return out;
      }
    }
    if (r == ResponseParser::Result::kDone) pass_on();
    if (upgrade && parser.head().status == 101) {
      out.result = parser.Take();
      out.after_head.assign(buf + consumed, n - consumed);
      out.upgraded = std::move(conn);
      ex.conn.reset();
      co_return out;
    }
    bool reusable = !conn->closed && parser.keep_alive() && consumed == n;
    out.result = parser.Take();
    ex.conn.reset();
    if (reusable) {
      cs.PutIdle(key, std::move(conn));
    } else {
      conn->Close();
    }
    co_return out;
  }
}

using UpgradeCallback = std::function<void(StatusOr<http::UpgradeResponse>)>;
std::unique_ptr<http::ByteStream> NewUpgradedStream(std::shared_ptr<ClientState> cs, std::shared_ptr<Conn> conn,
                                                    std::string after_head);

Task<void> RunExchange(std::shared_ptr<ClientState> cs, http::ClientRequest req, http::ParsedUrl url, Callback cb,
                       std::shared_ptr<StreamState> stream = nullptr, UpgradeCallback upgraded = nullptr) {
  auto& engine = *cs->engine;
  // Shared with the deadline timer's handler, which may run after the exchange has finished.
  auto ex = std::make_shared<Exchange>(engine.ioc);
  engine.inflight.insert(ex.get());
  std::string prefix = GoMethod(req.method) + " " + GoQuote(req.url) + ": ";
  auto now = std::chrono::steady_clock::now();
  if (req.head_timeout.count() > 0 && req.head_timeout < req.timeout) {
    ex->deadline = now + req.timeout;
    ex->Arm(now + req.head_timeout);
  } else {
    ex->Arm(now + req.timeout);
  }
  std::string key = url.scheme + "://" + url.host + ":" + std::to_string(url.port);
  std::string wire = SerializeRequest(req, url, engine.opts.user_agent);
  if (stream) stream->head = cb;
  const bool upgrade = upgraded != nullptr;
  Outcome out = co_await Attempt(*cs, *ex, req, url, key, wire, prefix, stream.get(), upgrade);
  if (out.retry && !ex->cancelled) out = co_await Attempt(*cs, *ex, req, url, key, wire, prefix, stream.get(), upgrade);
  if (ex->timed_out) {
    out.result = Status(504, "Timeout", prefix + "context deadline exceeded (Client.Timeout exceeded while awaiting headers)");
  } else if (ex->cancelled && !out.result.ok()) {
    out.result = Status(503, "ServiceUnavailable", prefix + "the HTTP client is shutting down");
  }
  ex->cancelled = true;  // a late timer handler does nothing
  ex->timer.cancel();
  ex->conn.reset();
  engine.inflight.erase(ex.get());
  if (upgrade) {
    if (!out.result.ok()) {
      upgraded(out.result.TakeStatus());
      co_return;
    }
    http::UpgradeResponse ur;
    ur.response = std::move(*out.result);
    if (out.upgraded) ur.stream = NewUpgradedStream(cs, std::move(out.upgraded), std::move(out.after_head));
    upgraded(std::move(ur));
  } else if (out.head_sent) {
    stream->sink.on_end(out.result.ok() ? Status() : out.result.status());
  } else {
    cb(std::move(out.result));
  }
}

// The connection after a kubelet's 101: reads and writes run on the engine's thread; the caller
// resumes on its own executor.
class UpgradedClientStream : public http::ByteStream {
 public:
  UpgradedClientStream(std::shared_ptr<ClientState> cs, std::shared_ptr<Conn> conn, std::string after_head)
      : cs_(std::move(cs)), conn_(std::move(conn)), pending_(std::move(after_head)) {}
  ~UpgradedClientStream() override { Close(); }

  Task<std::string> Read() override {
    if (!pending_.empty()) co_return std::exchange(pending_, std::string());
    auto cs = cs_;
    auto conn = conn_;
    co_return co_await Await<std::string>([cs, conn](std::function<void(std::string)> cb) {
      bool posted = cs->engine->Post([conn, cb]() mutable { Spawn(ReadInto(conn, std::move(cb))); });
      if (!posted) cb(std::string());
    });
  }
  Task<bool> Write(std::string data) override {
    auto cs = cs_;
    auto conn = conn_;
    co_return co_await Await<bool>([cs, conn, data = std::move(data)](std::function<void(bool)> cb) mutable {
      bool posted = cs->engine->Post([conn, data = std::move(data), cb]() mutable {
        Spawn(WriteFrom(conn, std::move(data), std::move(cb)));
      });
      if (!posted) cb(false);
    });
  }
  void Close() override {
    if (closed_) return;
    closed_ = true;
    if (!cs_->engine->Post([conn = conn_] { conn->Close(); })) return;
  }

 private:
  static Task<void> ReadInto(std::shared_ptr<Conn> conn, std::function<void(std::string)> cb) {
    if (conn->closed) {
      cb(std::string());
      co_return;
    }
    char buf[16384];
    auto [ec, n] = co_await ReadSome(*conn, buf, sizeof buf);
    cb(ec ? std::string() : std::string(buf, n));
  }
  static Task<void> WriteFrom(std::shared_ptr<Conn> conn, std::string data, std::function<void(bool)> cb) {
    if (conn->closed) {
      cb(false);
      co_return;
    }
    cb(!co_await capstan::server::Write(*conn, data));
  }

  std::shared_ptr<ClientState> cs_;
  std::shared_ptr<Conn> conn_;
  std::string pending_;
  bool closed_ = false;
};

std::unique_ptr<http::ByteStream> NewUpgradedStream(std::shared_ptr<ClientState> cs, std::shared_ptr<Conn> conn,
                                                    std::string after_head) {
  return std::make_unique<UpgradedClientStream>(std::move(cs), std::move(conn), std::move(after_head));
}

class AsioHttpClient : public http::HttpClient, public http::StreamingHttpClient, public http::UpgradingHttpClient {
 public:
  explicit AsioHttpClient(std::shared_ptr<ClientState> state) : state_(std::move(state)) {}

  Task<StatusOr<http::ClientResponse>> Do(http::ClientRequest req) override {
    auto url = http::ParseHttpUrl(req.url);
    if (!url) co_return Status(400, "BadRequest", "parse " + GoQuote(req.url) + ": invalid URL");
    auto state = state_;
    co_return co_await Await<StatusOr<http::ClientResponse>>(
        [state, req = std::move(req), url = *url](Callback cb) mutable {
          std::string prefix = GoMethod(req.method) + " " + GoQuote(req.url) + ": ";
          bool posted = state->engine->Post([state, req, url, cb]() mutable {
            Spawn(RunExchange(state, std::move(req), std::move(url), std::move(cb)));
          });
          if (!posted) cb(Status(503, "ServiceUnavailable", prefix + "the HTTP client is shutting down"));
        });
  }

  Task<StatusOr<http::ClientResponse>> DoStream(http::ClientRequest req, http::StreamSink sink) override {
    auto url = http::ParseHttpUrl(req.url);
    if (!url) co_return Status(400, "BadRequest", "parse " + GoQuote(req.url) + ": invalid URL");
    auto state = state_;
    auto stream = std::make_shared<StreamState>();
    stream->sink = std::move(sink);
    co_return co_await Await<StatusOr<http::ClientResponse>>(
        [state, stream, req = std::move(req), url = *url](Callback cb) mutable {
          std::string prefix = GoMethod(req.method) + " " + GoQuote(req.url) + ": ";
          bool posted = state->engine->Post([state, stream, req, url, cb]() mutable {
            Spawn(RunExchange(state, std::move(req), std::move(url), std::move(cb), stream));
          });
          if (!posted) cb(Status(503, "ServiceUnavailable", prefix + "the HTTP client is shutting down"));
        });
  }

  Task<StatusOr<http::UpgradeResponse>> DoUpgrade(http::ClientRequest req) override {
    auto url = http::ParseHttpUrl(req.url);
    if (!url) co_return Status(400, "BadRequest", "parse " + GoQuote(req.url) + ": invalid URL");
    auto state = state_;
    co_return co_await Await<StatusOr<http::UpgradeResponse>>(
        [state, req = std::move(req), url = *url](UpgradeCallback cb) mutable {
          std::string prefix = GoMethod(req.method) + " " + GoQuote(req.url) + ": ";
          bool posted = state->engine->Post([state, req, url, cb]() mutable {
            Spawn(RunExchange(state, std::move(req), std::move(url), nullptr, nullptr, std::move(cb)));
          });
          if (!posted) cb(Status(503, "ServiceUnavailable", prefix + "the HTTP client is shutting down"));
        });
  }

 private:
  std::shared_ptr<ClientState> state_;
};

}  // namespace

HttpClientEngine::HttpClientEngine(HttpClientEngineOptions opts) : impl_(std::make_shared<Impl>()) {
  impl_->opts = std::move(opts);
  impl_->work.emplace(asio::make_work_guard(impl_->ioc));
  Impl* impl = impl_.get();
  impl_->thread = std::thread([impl] {
    ExecutorScope scope(impl->executor);
    impl->ioc.run();
  });
}

HttpClientEngine::~HttpClientEngine() {
  Impl* impl = impl_.get();
  {
    std::lock_guard lock(impl->mu);
    impl->stopped = true;
    asio::post(impl->ioc, [impl] {
      for (auto* ex : std::vector<Exchange*>(impl->inflight.begin(), impl->inflight.end())) {
        ex->timer.cancel();
        ex->Cancel();
      }
    });
  }
  impl->work.reset();
  if (impl->thread.joinable()) impl->thread.join();
}

int64_t HttpClientEngine::connections_opened() const { return impl_->opened.load(); }

namespace {

// The system's root certificates, read once and shared by every client that trusts them (an
// SSL_CTX of its own would parse the whole bundle again: about 150 certificates, 200 KiB each time).
// X509_STOREs are safe to share between contexts and threads. Null when they cannot be read.
X509_STORE* SystemRoots() {
  static X509_STORE* const kRoots = [] {
    X509_STORE* store = X509_STORE_new();
    if (store && X509_STORE_set_default_paths(store) != 1) {
      X509_STORE_free(store);
      store = nullptr;
    }
    ERR_clear_error();
    return store;
  }();
  return kRoots;
}

}  // namespace

StatusOr<std::unique_ptr<http::HttpClient>> HttpClientEngine::NewClient(const http::ClientTlsConfig& tls) {
  auto state = std::make_shared<ClientState>();
  state->engine = impl_;
  state->tls = tls;
  auto& ctx = state->ctx;
  error_code ec;
  ctx.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                  ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  SSL_CTX_set_min_proto_version(ctx.native_handle(), TLS1_2_VERSION);
  if (tls.insecure_skip_verify) {
    // Nothing is verified: no roots to load.
  } else if (tls.ca_pem.empty()) {
    X509_STORE* roots = SystemRoots();
    if (!roots) return Status(500, "InternalError", "cannot load the system's root certificates");
    X509_STORE_up_ref(roots);
    SSL_CTX_set_cert_store(ctx.native_handle(), roots);  // takes the reference
  } else {
    // Every certificate of the bundle becomes a trusted root.
    BIO* bio = BIO_new_mem_buf(tls.ca_pem.data(), static_cast<int>(tls.ca_pem.size()));
    X509_STORE* store = SSL_CTX_get_cert_store(ctx.native_handle());
    int added = 0;
    while (X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
      if (X509_STORE_add_cert(store, cert) == 1) ++added;
      X509_free(cert);
    }
    BIO_free(bio);
    ERR_clear_error();
    if (added == 0) return Status(500, "InternalError", "unable to load root certificates: no PEM certificate in the CA bundle");
  }
  if (!tls.client_cert_pem.empty() || !tls.client_key_pem.empty()) {
    ctx.use_certificate_chain(asio::buffer(tls.client_cert_pem), ec);
    if (ec) return Status(500, "InternalError", "tls: failed to find any PEM data in certificate input: " + ec.message());
    ctx.use_private_key(asio::buffer(tls.client_key_pem), ssl::context::pem, ec);
    if (ec) return Status(500, "InternalError", "tls: failed to find any PEM data in key input: " + ec.message());
    if (SSL_CTX_check_private_key(ctx.native_handle()) != 1) {
      return Status(500, "InternalError", "tls: private key does not match public key");
    }
  }
  ctx.set_verify_mode(tls.insecure_skip_verify ? ssl::verify_none : ssl::verify_peer);
  return std::unique_ptr<http::HttpClient>(std::make_unique<AsioHttpClient>(std::move(state)));
}

}  // namespace capstan::server
