// loadgen: a closed-loop HTTPS load generator for Capstan's benchmarks. Each connection is a thread
// sending requests one after the other over keep-alive (TLS, optional client certificate), for a fixed
// time; it prints requests/s and latency percentiles. `{n}` in the path or body is replaced by a
// unique counter (for creates and updates).
//
//   loadgen --port 6443 --cert admin.crt --key admin.key --connections 32 --seconds 5 \
//           --method GET --path /api/v1/namespaces/default/configmaps/x
// --token T sends "Authorization: Bearer T" instead of (or besides) a client certificate.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Options {
  std::string host = "127.0.0.1";
  int port = 6443;
  std::string cert, key;
  std::string token;
  int connections = 1;
  double seconds = 5;
  std::string method = "GET";
  std::string path = "/";
  std::string body;
  std::string content_type = "application/json";
  std::string accept = "application/json";
  std::string label;
};

std::atomic<long> counter{0};

std::string Expand(const std::string& s) {
  auto pos = s.find("{n}");
  if (pos == std::string::npos) return s;
  std::string out = s;
  long n = counter.fetch_add(1);
  while ((pos = out.find("{n}")) != std::string::npos) out.replace(pos, 3, std::to_string(n));
  return out;
}

struct Conn {
  int fd = -1;
  SSL* ssl = nullptr;
  std::string buf;
  bool Open(const Options& o, SSL_CTX* ctx) {
    fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(o.port));
    inet_pton(AF_INET, o.host.c_str(), &a.sin_addr);
    if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return false;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ssl = SSL_new(ctx);
    SSL_set_fd(ssl, fd);
    return SSL_connect(ssl) == 1;
  }
  void Close() {
    if (ssl) SSL_free(ssl);
    if (fd >= 0) close(fd);
    ssl = nullptr;
    fd = -1;
    buf.clear();
  }
  bool ReadMore() {
    char tmp[65536];
    int n = SSL_read(ssl, tmp, sizeof tmp);
    if (n <= 0) return false;
    buf.append(tmp, static_cast<size_t>(n));
    return true;
  }
  // Reads one response; returns its status code (0 on failure).
  int ReadResponse() {
    size_t head_end;
    while ((head_end = buf.find("\r\n\r\n")) == std::string::npos) {
      if (!ReadMore()) return 0;
    }
    int status = std::atoi(buf.c_str() + 9);
    std::string head = buf.substr(0, head_end);
    std::string lower = head;
    std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
    size_t body_start = head_end + 4;
    auto cl = lower.find("content-length:");
    if (cl != std::string::npos) {
      size_t len = std::strtoul(lower.c_str() + cl + 15, nullptr, 10);
      while (buf.size() < body_start + len) {
        if (!ReadMore()) return 0;
      }
      buf.erase(0, body_start + len);
      return status;
    }
    // chunked
    size_t pos = body_start;
    for (;;) {
      size_t eol;
      while ((eol = buf.find("\r\n", pos)) == std::string::npos) {
        if (!ReadMore()) return 0;
      }
      size_t n = std::strtoul(buf.c_str() + pos, nullptr, 16);
      size_t need = eol + 2 + n + 2;
      while (buf.size() < need) {
        if (!ReadMore()) return 0;
      }
      pos = need;
      if (n == 0) break;
    }
    buf.erase(0, pos);
    return status;
  }
};

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--host") o.host = v;
    else if (k == "--port") o.port = std::atoi(v.c_str());
    else if (k == "--cert") o.cert = v;
    else if (k == "--key") o.key = v;
    else if (k == "--token") o.token = v;
    else if (k == "--connections") o.connections = std::atoi(v.c_str());
    else if (k == "--seconds") o.seconds = std::atof(v.c_str());
    else if (k == "--method") o.method = v;
    else if (k == "--path") o.path = v;
    else if (k == "--body-file") {
      std::ifstream in(v);
      std::stringstream ss;
      ss << in.rdbuf();
      o.body = ss.str();
    } else if (k == "--content-type") o.content_type = v;
    else if (k == "--accept") o.accept = v;
    else if (k == "--label") o.label = v;
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (!o.cert.empty()) {
    SSL_CTX_use_certificate_chain_file(ctx, o.cert.c_str());
    SSL_CTX_use_PrivateKey_file(ctx, o.key.c_str(), SSL_FILETYPE_PEM);
  }
  std::mutex mu;
  std::vector<double> latencies;
  std::map<int, long> codes;
  std::atomic<long> errors{0};
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(o.seconds);
  std::vector<std::thread> threads;
  for (int c = 0; c < o.connections; ++c) {
    threads.emplace_back([&] {
      Conn conn;
      std::vector<double> mine;
      std::map<int, long> my_codes;
      if (!conn.Open(o, ctx)) {
        errors++;
        return;
      }
      while (std::chrono::steady_clock::now() < deadline) {
        std::string body = Expand(o.body);
        std::string path = Expand(o.path);
        std::string req = o.method + " " + path + " HTTP/1.1\r\nHost: " + o.host + "\r\nAccept: " + o.accept + "\r\n";
        if (!o.token.empty()) req += "Authorization: Bearer " + o.token + "\r\n";
        if (!body.empty() || o.method != "GET") {
          req += "Content-Type: " + o.content_type + "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
        }
        req += "\r\n" + body;
        auto t0 = std::chrono::steady_clock::now();
        if (SSL_write(conn.ssl, req.data(), static_cast<int>(req.size())) <= 0) {
          errors++;
          break;
        }
        int status = conn.ReadResponse();
        auto t1 = std::chrono::steady_clock::now();
        if (status == 0) {
          errors++;
          conn.Close();
          if (!conn.Open(o, ctx)) break;
          continue;
        }
        my_codes[status]++;
        mine.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
      }
      conn.Close();
      std::lock_guard lock(mu);
      latencies.insert(latencies.end(), mine.begin(), mine.end());
      for (auto& [k, v] : my_codes) codes[k] += v;
    });
  }
  for (auto& t : threads) t.join();
  std::sort(latencies.begin(), latencies.end());
  auto pct = [&](double p) {
    if (latencies.empty()) return 0.0;
    size_t i = std::min(latencies.size() - 1, static_cast<size_t>(p * static_cast<double>(latencies.size())));
    return latencies[i];
  };
  std::string code_text;
  for (auto& [k, v] : codes) code_text += std::to_string(k) + ":" + std::to_string(v) + " ";
  std::printf("%-28s conns=%-3d rps=%-9.0f p50=%-8.0fus p99=%-8.0fus requests=%zu errors=%ld codes=%s\n",
              o.label.empty() ? (o.method + " " + o.path).c_str() : o.label.c_str(), o.connections,
              static_cast<double>(latencies.size()) / o.seconds, pct(0.5), pct(0.99), latencies.size(), errors.load(),
              code_text.c_str());
  return 0;
}
