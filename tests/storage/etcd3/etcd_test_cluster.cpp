#include "storage/etcd3/etcd_test_cluster.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace capstan::testing {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs argv; returns its exit code, with stdout (and stderr) in *out. Bounded by `timeout`.
int RunProcess(const std::vector<std::string>& argv, std::string* out, std::chrono::seconds timeout) {
  char tmpl[] = "/tmp/capstan-etcd-run-XXXXXX";
  int fd = mkstemp(tmpl);
  if (fd < 0) return -1;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fd, 1);
  posix_spawn_file_actions_adddup2(&fa, fd, 2);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fd);
  int code = -1;
  if (rc == 0) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      int status = 0;
      pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid) {
        code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        break;
      }
      if (std::chrono::steady_clock::now() > deadline) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  if (out) *out = ReadFile(tmpl);
  unlink(tmpl);
  return code;
}

std::string FromEnv(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

}  // namespace

int FreeLoopbackPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0) {
    socklen_t len = sizeof(a);
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    port = ntohs(a.sin_port);
  }
  close(fd);
  return port;
}

std::unique_ptr<EtcdCluster> EtcdCluster::Start(EtcdClusterOptions options, std::string* error) {
  std::unique_ptr<EtcdCluster> c(new EtcdCluster());
  c->options_ = std::move(options);
  c->etcd_ = FromEnv("CAPSTAN_ETCD", "/usr/bin/etcd");
  c->etcdctl_ = FromEnv("CAPSTAN_ETCDCTL", "/usr/bin/etcdctl");
  if (access(c->etcd_.c_str(), X_OK) != 0) {
    *error = "etcd not found at " + c->etcd_ + " (Debian package etcd-server)";
    return nullptr;
  }
  std::filesystem::create_directories(c->options_.dir);
  const std::string scheme = c->options_.tls ? "https" : "http";
  for (int i = 0; i < c->options_.members; ++i) {
    Member m;
    m.name = "m" + std::to_string(i);
    int port = i < static_cast<int>(c->options_.client_ports.size()) ? c->options_.client_ports[i] : FreeLoopbackPort();
    m.client_url = scheme + "://127.0.0.1:" + std::to_string(port);
    m.peer_url = "http://127.0.0.1:" + std::to_string(FreeLoopbackPort());
    m.data_dir = c->options_.dir + "/" + m.name;
    m.log_file = c->options_.dir + "/" + m.name + ".log";
    if (!c->initial_cluster_.empty()) c->initial_cluster_ += ",";
    c->initial_cluster_ += m.name + "=" + m.peer_url;
    c->members_.push_back(std::move(m));
  }
  for (auto& m : c->members_) {
    if (!c->Spawn(m, false, error)) return nullptr;
  }
  for (auto& m : c->members_) {
    if (!c->WaitHealthy(m, c->options_.start_timeout, error)) return nullptr;
  }
  return c;
}

EtcdCluster::~EtcdCluster() {
  for (int i = 0; i < size(); ++i) {
    if (members_[i].pid > 0) {
      kill(members_[i].pid, SIGCONT);
      Kill(i, SIGKILL);
    }
  }
}

std::vector<std::string> EtcdCluster::Args(const Member& m, bool existing) const {
  std::vector<std::string> a = {etcd_,
                                "--name=" + m.name,
                                "--data-dir=" + m.data_dir,
                                "--listen-client-urls=" + m.client_url,
                                "--advertise-client-urls=" + m.client_url,
                                "--listen-peer-urls=" + m.peer_url,
                                "--initial-advertise-peer-urls=" + m.peer_url,
                                "--initial-cluster=" + initial_cluster_,
                                "--initial-cluster-state=" + std::string(existing ? "existing" : "new"),
                                "--initial-cluster-token=capstan-test",
                                "--heartbeat-interval=50",
                                "--election-timeout=500",
                                "--logger=zap",
                                "--log-outputs=" + m.log_file};
  if (options_.tls) {
    a.push_back("--cert-file=" + options_.tls_files.cert_file);
    a.push_back("--key-file=" + options_.tls_files.key_file);
    a.push_back("--trusted-ca-file=" + options_.tls_files.ca_file);
    a.push_back("--client-cert-auth=true");
  }
  a.insert(a.end(), options_.extra_flags.begin(), options_.extra_flags.end());
  return a;
}

bool EtcdCluster::Spawn(Member& m, bool existing, std::string* error) {
  std::vector<std::string> argv = Args(m, existing);
  std::vector<char*> args;
  for (auto& s : argv) args.push_back(s.data());
  args.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  std::string out = m.log_file + ".stderr";
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, out.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  int rc = posix_spawn(&m.pid, etcd_.c_str(), &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    m.pid = -1;
    *error = "cannot start " + etcd_;
    return false;
  }
  return true;
}

bool EtcdCluster::WaitHealthy(const Member& m, std::chrono::seconds timeout, std::string* error) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string out;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (m.pid > 0 && waitpid(m.pid, &status, WNOHANG) == m.pid) {
      *error = "etcd member " + m.name + " exited: " + ReadFile(m.log_file).substr(0, 4000);
      return false;
    }
    std::vector<std::string> argv = {etcdctl_, "--endpoints=" + m.client_url, "--command-timeout=2s", "endpoint",
                                     "health"};
    if (options_.tls) {
      argv.push_back("--cacert=" + options_.tls_files.ca_file);
      argv.push_back("--cert=" + options_.tls_files.cert_file);
      argv.push_back("--key=" + options_.tls_files.key_file);
    }
    if (RunProcess(argv, &out, std::chrono::seconds(10)) == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  *error = "etcd member " + m.name + " did not become healthy: " + out + "\n" + ReadFile(m.log_file).substr(0, 4000);
  return false;
}

std::vector<std::string> EtcdCluster::ClientUrls() const {
  std::vector<std::string> out;
  for (const auto& m : members_) out.push_back(m.client_url);
  return out;
}

std::string EtcdCluster::Endpoints() const {
  std::string out;
  for (const auto& m : members_) out += (out.empty() ? "" : ",") + m.client_url;
  return out;
}

void EtcdCluster::Kill(int i, int sig) {
  Member& m = members_[i];
  if (m.pid <= 0) return;
  kill(m.pid, sig);
  int status = 0;
  waitpid(m.pid, &status, 0);
  m.pid = -1;
}

bool EtcdCluster::Restart(int i, std::string* error) {
  Member& m = members_[i];
  if (m.pid > 0) Kill(i, SIGKILL);
  if (!Spawn(m, true, error)) return false;
  return WaitHealthy(m, options_.start_timeout, error);
}

namespace {

// True when every thread of `pid` is in the stopped state ('T' in /proc/<pid>/task/*/stat).
bool AllThreadsStopped(pid_t pid) {
  std::error_code ec;
  const std::filesystem::path dir = "/proc/" + std::to_string(pid) + "/task";
  bool any = false;
  for (const auto& t : std::filesystem::directory_iterator(dir, ec)) {
    std::ifstream in(t.path() / "stat");
    std::string line;
    if (!std::getline(in, line)) continue;  // the thread went away
    auto paren = line.rfind(')');
    if (paren == std::string::npos || paren + 2 >= line.size()) return false;
    char state = line[paren + 2];
    if (state != 'T' && state != 't') return false;
    any = true;
  }
  return !ec && any;
}

}  // namespace

void EtcdCluster::Pause(int i) {
  if (members_[i].pid <= 0) return;
  kill(members_[i].pid, SIGSTOP);
  // kill() only queues the stop: threads that are running finish what they do first, and on a loaded
  // machine that can be a whole request. Return once every thread has stopped.
  for (int n = 0; n < 2000 && !AllThreadsStopped(members_[i].pid); ++n) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

void EtcdCluster::Resume(int i) {
  if (members_[i].pid > 0) kill(members_[i].pid, SIGCONT);
}

std::string EtcdCluster::Etcdctl(const std::vector<std::string>& args, bool* ok) const {
  std::string endpoints;
  for (const auto& m : members_) {
    if (m.pid > 0) endpoints += (endpoints.empty() ? "" : ",") + m.client_url;
  }
  std::vector<std::string> argv = {etcdctl_, "--endpoints=" + endpoints, "--command-timeout=10s"};
  if (options_.tls) {
    argv.push_back("--cacert=" + options_.tls_files.ca_file);
    argv.push_back("--cert=" + options_.tls_files.cert_file);
    argv.push_back("--key=" + options_.tls_files.key_file);
  }
  argv.insert(argv.end(), args.begin(), args.end());
  std::string out;
  int rc = RunProcess(argv, &out, std::chrono::seconds(30));
  if (ok) *ok = rc == 0;
  return rc == 0 ? out : "";
}

std::string EtcdCluster::Log(int i) const { return ReadFile(members_[i].log_file); }

bool MakeEtcdTestPki(const std::string& dir, EtcdTlsFiles* server, std::string* client_cert, std::string* client_key,
                     std::string* error) {
  std::filesystem::create_directories(dir);
  const std::string openssl = "/usr/bin/openssl";
  auto run = [&](std::vector<std::string> argv) {
    std::string out;
    argv.insert(argv.begin(), openssl);
    if (RunProcess(argv, &out, std::chrono::seconds(30)) != 0) {
      *error = "openssl " + argv[1] + " failed: " + out;
      return false;
    }
    return true;
  };
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir + "/" + name) << text;
    return dir + "/" + name;
  };
  std::string server_ext = write("server.ext",
                                 "subjectAltName=IP:127.0.0.1,DNS:localhost\n"
                                 "extendedKeyUsage=serverAuth,clientAuth\n");
  std::string client_ext = write("client.ext", "extendedKeyUsage=clientAuth\n");
  const std::string d = dir + "/";
  if (!run({"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
            "-subj", "/CN=capstan-etcd-test-ca", "-keyout", d + "ca.key", "-out", d + "ca.crt"})) {
    return false;
  }
  for (const std::string name : {"server", "client"}) {
    if (!run({"req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj",
              "/CN=capstan-etcd-test-" + name, "-keyout", d + name + ".key", "-out", d + name + ".csr"})) {
      return false;
    }
    if (!run({"x509", "-req", "-in", d + name + ".csr", "-CA", d + "ca.crt", "-CAkey", d + "ca.key",
              "-CAcreateserial", "-days", "2", "-extfile", name == "server" ? server_ext : client_ext, "-out",
              d + name + ".crt"})) {
      return false;
    }
  }
  server->ca_file = d + "ca.crt";
  server->cert_file = d + "server.crt";
  server->key_file = d + "server.key";
  *client_cert = d + "client.crt";
  *client_key = d + "client.key";
  return true;
}

}  // namespace capstan::testing
