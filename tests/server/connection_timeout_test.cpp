// The connection's deadlines: a TLS handshake that never comes, an idle keep-alive connection and a
// slow request head are closed; a handler that runs past the idle timeout is not cut off, and the
// connection is closed once it is idle again. Over HTTP/2 (ALPN h2): an idle connection gets GOAWAY
// and is closed, a protocol error's GOAWAY reaches the client before the close. Timeouts are 1 s;
// waits for a close are bounded at 30 s.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nghttp2/nghttp2.h>

#include <cerrno>
#include <csignal>
#include <chrono>
#include <memory>
#include <string>

#include "auth/authn/authn_test_util.h"
#include "server/http_server.h"
#include "util/timer.h"

namespace capstan::server {
namespace {

using namespace std::chrono_literals;

int Dial(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  timeval tv{30, 0};  // no wait in these tests is longer
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

// A blocking TLS client on one connection.
class Client {
 public:
  // h2: offer only "h2" by ALPN.
  explicit Client(int port, bool h2 = false) : ctx_(SSL_CTX_new(TLS_client_method())), fd_(Dial(port)) {
    if (h2) SSL_CTX_set_alpn_protos(ctx_, reinterpret_cast<const unsigned char*>("\x02h2"), 3);
    ssl_ = SSL_new(ctx_);
    SSL_set_fd(ssl_, fd_);
    connected_ = fd_ >= 0 && SSL_connect(ssl_) == 1;
  }
  ~Client() {
    SSL_free(ssl_);
    SSL_CTX_free(ctx_);
    if (fd_ >= 0) close(fd_);
  }
  bool connected() const { return connected_; }
  std::string Alpn() const {
    const unsigned char* p = nullptr;
    unsigned int n = 0;
    SSL_get0_alpn_selected(ssl_, &p, &n);
    return std::string(reinterpret_cast<const char*>(p), n);
  }
  // Whatever arrives next; "" once the server has closed (or after the 30 s receive timeout).
  std::string ReadSome() {
    char buf[16384];
    int n = SSL_read(ssl_, buf, sizeof buf);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
  }
  bool Send(const std::string& s) { return SSL_write(ssl_, s.data(), static_cast<int>(s.size())) > 0; }
  // Reads until the response "HTTP/1.1 ... \r\n\r\n<body of Content-Length>" is complete, or "" on close.
  std::string ReadResponse() {
    std::string got;
    char buf[4096];
    for (;;) {
      auto head_end = got.find("\r\n\r\n");
      if (head_end != std::string::npos) {
        auto cl = got.find("Content-Length: ");
        size_t len = cl == std::string::npos ? 0 : std::stoul(got.substr(cl + 16));
        if (got.size() >= head_end + 4 + len) return got;
      }
      int n = SSL_read(ssl_, buf, sizeof buf);
      if (n <= 0) return "";
      got.append(buf, static_cast<size_t>(n));
    }
  }
  // True when the server closed the connection (a read ends without data); false when the read
  // only timed out (the 30 s receive timeout) or data came.
  bool ClosedByServer() {
    char buf[256];
    errno = 0;
    if (SSL_read(ssl_, buf, sizeof buf) > 0) return false;
    return errno != EAGAIN && errno != EWOULDBLOCK;
  }

 private:
  SSL_CTX* ctx_;
  int fd_;
  SSL* ssl_ = nullptr;
  bool connected_ = false;
};

class ConnectionTimeoutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    signal(SIGPIPE, SIG_IGN);  // the client may write after the server closed (as capstan's main does)
    auto pair = ca_.Issue("localhost", {}, true, false);
    HttpServerOptions o;
    o.port = 0;
    o.tls_cert_file = dir_.Write("server.crt", pair.cert);
    o.tls_private_key_file = dir_.Write("server.key", pair.key);
    o.io_threads = 1;
    o.idle_timeout = 1s;
    o.read_header_timeout = 1s;
    o.tls_handshake_timeout = 1s;
    server_ = std::make_unique<HttpServer>(o, [](http::RequestContext& ctx) -> Task<void> {
      if (ctx.request.path == "/slow") co_await SleepFor(2500ms);
      http::HttpResponse r;
      r.status = 200;
      r.body = "ok";
      co_await ctx.writer->Respond(std::move(r));
    });
    ASSERT_TRUE(server_->Start().ok());
  }
  void TearDown() override { server_->Shutdown(2000ms); }

  authn::testing::TempDir dir_;
  authn::testing::TestCa ca_;
  std::unique_ptr<HttpServer> server_;
};

const std::string kGet = "GET /fast HTTP/1.1\r\nHost: x\r\n\r\n";

TEST_F(ConnectionTimeoutTest, AConnectionThatNeverStartsTlsIsClosed) {
  int fd = Dial(server_->port());
  ASSERT_GE(fd, 0);
  char c;
  EXPECT_EQ(recv(fd, &c, 1, 0), 0);  // closed (-1 would be the 30 s receive timeout)
  close(fd);
}

TEST_F(ConnectionTimeoutTest, AnIdleKeepAliveConnectionIsClosedAfterItsRequests) {
  Client c(server_->port());
  ASSERT_TRUE(c.connected());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(c.Send(kGet));
    EXPECT_NE(c.ReadResponse().find("200 OK"), std::string::npos) << i;
  }
  EXPECT_TRUE(c.ClosedByServer());
}

TEST_F(ConnectionTimeoutTest, ASlowRequestHeadIsClosed) {
  Client c(server_->port());
  ASSERT_TRUE(c.connected());
  ASSERT_TRUE(c.Send("GET /fast HTTP/1.1\r\nHost: x\r\n"));  // the head never ends
  EXPECT_TRUE(c.ClosedByServer());
}

TEST_F(ConnectionTimeoutTest, AHandlerRunningPastTheIdleTimeoutIsNotCutOff) {
  Client c(server_->port());
  ASSERT_TRUE(c.connected());
  // The idle deadline armed when the connection opened passes while the handler sleeps: the
  // connection has no deadline then, so the answer arrives, and the connection still serves.
  ASSERT_TRUE(c.Send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_NE(c.ReadResponse().find("200 OK"), std::string::npos);
  ASSERT_TRUE(c.Send(kGet));
  EXPECT_NE(c.ReadResponse().find("200 OK"), std::string::npos);
  EXPECT_TRUE(c.ClosedByServer());
}

// An nghttp2 client session over a Client: what the server sent, decoded.
class H2 {
 public:
  explicit H2(Client& c) : c_(c) {
    nghttp2_session_callbacks* cbs;
    nghttp2_session_callbacks_new(&cbs);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cbs, [](nghttp2_session*, const nghttp2_frame* f, void* u) {
      auto* self = static_cast<H2*>(u);
      if (f->hd.type == NGHTTP2_GOAWAY) self->goaway_code = static_cast<int>(f->goaway.error_code);
      return 0;
    });
    nghttp2_session_callbacks_set_on_header_callback(
        cbs, [](nghttp2_session*, const nghttp2_frame*, const uint8_t* n, size_t nl, const uint8_t* v, size_t vl, uint8_t,
                void* u) {
          if (std::string(reinterpret_cast<const char*>(n), nl) == ":status") {
            static_cast<H2*>(u)->status = std::string(reinterpret_cast<const char*>(v), vl);
          }
          return 0;
        });
    nghttp2_session_client_new(&s_, cbs, this);
    nghttp2_session_callbacks_del(cbs);
    nghttp2_submit_settings(s_, NGHTTP2_FLAG_NONE, nullptr, 0);
  }
  ~H2() { nghttp2_session_del(s_); }
  void Get(const std::string& path) {
    std::string m = ":method", g = "GET", sc = ":scheme", h = "https", p = ":path", a = ":authority", x = "x";
    std::string pv = path;
    nghttp2_nv nva[] = {Nv(m, g), Nv(sc, h), Nv(p, pv), Nv(a, x)};
    nghttp2_submit_request(s_, nullptr, nva, 4, nullptr, nullptr);
    Flush();
  }
  void Flush() {
    const uint8_t* d;
    ssize_t n;
    std::string out;
    while ((n = nghttp2_session_mem_send(s_, &d)) > 0) out.append(reinterpret_cast<const char*>(d), static_cast<size_t>(n));
    if (!out.empty()) c_.Send(out);
  }
  // Reads and decodes until `done` holds; false if the server closed first.
  template <class F>
  bool ReadUntil(F done) {
    while (!done()) {
      std::string in = c_.ReadSome();
      if (in.empty()) return false;
      nghttp2_session_mem_recv(s_, reinterpret_cast<const uint8_t*>(in.data()), in.size());
      Flush();
    }
    return true;
  }

  std::string status;
  int goaway_code = -1;

 private:
  static nghttp2_nv Nv(std::string& n, std::string& v) {
    return {reinterpret_cast<uint8_t*>(n.data()), reinterpret_cast<uint8_t*>(v.data()), n.size(), v.size(),
            NGHTTP2_NV_FLAG_NONE};
  }
  Client& c_;
  nghttp2_session* s_ = nullptr;
};

TEST_F(ConnectionTimeoutTest, AnIdleHttp2ConnectionGetsGoawayAndIsClosed) {
  Client c(server_->port(), /*h2=*/true);
  ASSERT_TRUE(c.connected());
  ASSERT_EQ(c.Alpn(), "h2");
  H2 h2(c);
  h2.Get("/fast");
  ASSERT_TRUE(h2.ReadUntil([&] { return !h2.status.empty(); }));
  EXPECT_EQ(h2.status, "200");
  // Nothing more is asked: after the idle timeout, GOAWAY(NO_ERROR), then the close.
  EXPECT_TRUE(h2.ReadUntil([&] { return h2.goaway_code >= 0; }));
  EXPECT_EQ(h2.goaway_code, NGHTTP2_NO_ERROR);
  EXPECT_TRUE(c.ClosedByServer());
}

TEST_F(ConnectionTimeoutTest, AnHttp2ProtocolErrorIsAnsweredWithGoawayBeforeTheClose) {
  Client c(server_->port(), /*h2=*/true);
  ASSERT_TRUE(c.connected());
  H2 h2(c);
  h2.Flush();  // the preface and SETTINGS
  // A WINDOW_UPDATE of 0 on the connection is a connection error (RFC 9113 6.9).
  ASSERT_TRUE(c.Send(std::string("\x00\x00\x04\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00", 13)));
  EXPECT_TRUE(h2.ReadUntil([&] { return h2.goaway_code >= 0; }));
  EXPECT_EQ(h2.goaway_code, NGHTTP2_PROTOCOL_ERROR);
  EXPECT_TRUE(c.ClosedByServer());
}

}  // namespace
}  // namespace capstan::server
