// The connection's deadlines: a TLS handshake that never comes, an idle keep-alive connection and a
// slow request head are closed; a handler that runs past the idle timeout is not cut off, and the
// connection is closed once it is idle again. Timeouts are 1 s; waits for a close are bounded at 30 s.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
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
  explicit Client(int port) : ctx_(SSL_CTX_new(TLS_client_method())), fd_(Dial(port)) {
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

}  // namespace
}  // namespace capstan::server
