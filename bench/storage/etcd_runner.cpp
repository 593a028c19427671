#include "etcd_runner.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <regex>
#include <thread>
#include <vector>

#include "util/strings.h"

extern char** environ;

namespace capstan::bench {
namespace {

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  int port = ntohs(a.sin_port);
  close(fd);
  return port;
}

std::string Run(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

std::string B64(const std::string& s) { return Base64Encode(s); }

}  // namespace

std::string EtcdRunner::Start(const std::string& etcd_path, const std::string& dir) {
  dir_ = dir;
  client_port_ = FreePort();
  int peer_port = FreePort();
  std::string client = "http://127.0.0.1:" + std::to_string(client_port_);
  std::string peer = "http://127.0.0.1:" + std::to_string(peer_port);
  std::vector<std::string> args = {etcd_path,
                                   "--name=bench",
                                   "--data-dir=" + dir + "/etcd",
                                   "--listen-client-urls=" + client,
                                   "--advertise-client-urls=" + client,
                                   "--listen-peer-urls=" + peer,
                                   "--initial-advertise-peer-urls=" + peer,
                                   "--initial-cluster=bench=" + peer,
                                   "--log-outputs=" + dir + "/etcd.log",
                                   "--logger=zap"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  std::string log = dir + "/etcd.stderr";
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  int rc = posix_spawn(&pid_, etcd_path.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return "cannot start " + etcd_path;
  for (int i = 0; i < 200; ++i) {
    std::string health = Run("curl -s -m 1 " + client + "/health 2>/dev/null");
    if (health.find("\"health\":\"true\"") != std::string::npos) return "";
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return "etcd did not become healthy (see " + log + ")";
}

EtcdRunner::~EtcdRunner() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    int status;
    waitpid(pid_, &status, 0);
  }
}

std::optional<WrkResult> EtcdRunner::PutThroughput(const std::string& wrk_path, int connections, int seconds,
                                                   size_t value_size) {
  std::string script = dir_ + "/put.lua";
  {
    std::ofstream f(script);
    f << "local keys = {}\n";
    for (int i = 0; i < 1000; ++i) f << "keys[" << i << "] = \"" << B64("/bench/etcd/" + std::to_string(i)) << "\"\n";
    f << "local value = \"" << B64(std::string(value_size, 'v')) << "\"\n"
      << "local n = 0\n"
      << "request = function()\n"
      << "  n = n + 1\n"
      << "  local body = '{\"key\":\"' .. keys[n % 1000] .. '\",\"value\":\"' .. value .. '\"}'\n"
      << "  return wrk.format(\"POST\", \"/v3/kv/put\", {[\"Content-Type\"] = \"application/json\"}, body)\n"
      << "end\n";
  }
  int threads = connections < 2 ? 1 : 2;
  std::string cmd = wrk_path + " -t" + std::to_string(threads) + " -c" + std::to_string(connections) + " -d" +
                    std::to_string(seconds) + "s -s " + script + " http://127.0.0.1:" + std::to_string(client_port_) +
                    "/v3/kv/put 2>&1";
  WrkResult r;
  r.raw = Run(cmd);
  std::smatch m;
  if (!std::regex_search(r.raw, m, std::regex("Requests/sec:\\s+([0-9.]+)"))) return std::nullopt;
  r.requests_per_second = std::stod(m[1]);
  if (std::regex_search(r.raw, m, std::regex("Non-2xx or 3xx responses:\\s+([0-9]+)"))) r.non_2xx = std::stol(m[1]);
  if (std::regex_search(r.raw, m, std::regex("Socket errors:.*"))) r.socket_errors = 1;
  return r;
}

}  // namespace capstan::bench
