#include "cmd/etcd_stand_in.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <thread>

#include "util/strings.h"

namespace capstan::cmd {
namespace {

constexpr const char* kUsage =
    "Usage: capstan etcd-stand-in --listen-client-urls=http://HOST:PORT[,...] [etcd flags, ignored]\n\n"
    "Not etcd: answers GET /health with {\"health\":\"true\",\"reason\":\"\"} so that envtest, which always\n"
    "starts an etcd, goes on to start Capstan on its embedded store. It stores nothing.\n";

struct HostPort {
  std::string host;
  std::string port;
};

// "http://127.0.0.1:2379" -> {127.0.0.1, 2379}; "[::1]:2379" hosts keep no brackets.
bool ParseHttpUrl(const std::string& url, HostPort& out) {
  const std::string scheme = "http://";
  if (url.rfind(scheme, 0) != 0) return false;
  std::string rest = url.substr(scheme.size());
  if (auto slash = rest.find('/'); slash != std::string::npos) rest.resize(slash);
  auto colon = rest.rfind(':');
  if (colon == std::string::npos) return false;
  out.host = rest.substr(0, colon);
  out.port = rest.substr(colon + 1);
  if (out.host.size() >= 2 && out.host.front() == '[' && out.host.back() == ']') out.host = out.host.substr(1, out.host.size() - 2);
  return !out.host.empty() && !out.port.empty();
}

int Listen(const HostPort& hp) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* res = nullptr;
  if (getaddrinfo(hp.host.c_str(), hp.port.c_str(), &hints, &res) != 0 || res == nullptr) return -1;
  int fd = socket(res->ai_family, res->ai_socktype, 0);
  int one = 1;
  if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (fd >= 0 && (bind(fd, res->ai_addr, res->ai_addrlen) != 0 || listen(fd, 64) != 0)) {
    close(fd);
    fd = -1;
  }
  freeaddrinfo(res);
  return fd;
}

void WriteAll(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return;
    off += static_cast<size_t>(n);
  }
}

// One request per connection: read the request line and headers, answer, close.
void Serve(int conn) {
  std::string req;
  char buf[2048];
  while (req.find("\r\n\r\n") == std::string::npos && req.size() < 16384) {
    ssize_t n = recv(conn, buf, sizeof buf, 0);
    if (n <= 0) break;
    req.append(buf, static_cast<size_t>(n));
  }
  WriteAll(conn, EtcdStandInResponse(req));
  close(conn);
}

}  // namespace

std::string EtcdStandInResponse(std::string_view request) {
  std::string_view line = request.substr(0, request.find("\r\n"));
  auto parts = Split(line, ' ');
  std::string method = parts.size() > 0 ? parts[0] : "";
  std::string path = parts.size() > 1 ? parts[1] : "";
  if (auto q = path.find('?'); q != std::string::npos) path.resize(q);
  std::string status = "404 Not Found", type = "text/plain; charset=utf-8", body = "404 page not found\n";
  if (method == "GET" && (path == "/health" || path == "/livez" || path == "/readyz")) {
    status = "200 OK";
    type = "application/json";
    body = "{\"health\":\"true\",\"reason\":\"\"}";
  }
  return "HTTP/1.1 " + status + "\r\nContent-Type: " + type + "\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nConnection: close\r\n\r\n" + body;
}

int RunEtcdStandIn(const std::vector<std::string>& args) {
  std::vector<std::string> urls;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h" || a == "-help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    std::string value;
    if (a.rfind("--listen-client-urls=", 0) == 0) {
      value = a.substr(std::strlen("--listen-client-urls="));
    } else if (a == "--listen-client-urls" && i + 1 < args.size()) {
      value = args[++i];
    } else {
      continue;
    }
    for (auto u : Split(value, ',')) {
      if (!TrimSpace(u).empty()) urls.emplace_back(TrimSpace(u));
    }
  }
  if (urls.empty()) urls.push_back("http://127.0.0.1:2379");  // etcd's default

  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);

  for (const std::string& u : urls) {
    HostPort hp;
    if (!ParseHttpUrl(u, hp)) {
      std::fprintf(stderr, "etcd-stand-in: unsupported --listen-client-urls entry %s (http://host:port only)\n", u.c_str());
      return 1;
    }
    int fd = Listen(hp);
    if (fd < 0) {
      std::fprintf(stderr, "etcd-stand-in: cannot listen on %s: %s\n", u.c_str(), std::strerror(errno));
      return 1;
    }
    std::thread([fd] {
      while (true) {
        int conn = accept(fd, nullptr, nullptr);
        if (conn < 0) {
          if (errno == EINTR || errno == ECONNABORTED) continue;
          return;
        }
        std::thread(Serve, conn).detach();
      }
    }).detach();
  }
  std::fprintf(stderr, "etcd-stand-in: answering /health on %s (not etcd: it stores nothing)\n", Join(urls, ",").c_str());
  int sig = 0;
  sigwait(&set, &sig);
  return 0;
}

}  // namespace capstan::cmd
