#include "e2e_util.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

namespace capstan::e2e {

namespace {
std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

CommandResult RunCommand(const std::vector<std::string>& argv, const std::string& input, std::chrono::seconds timeout) {
  CommandResult r;
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (pipe(in_pipe) || pipe(out_pipe) || pipe(err_pipe)) return r;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in_pipe[0], 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    close(in_pipe[1]);
    close(out_pipe[0]);
    close(err_pipe[0]);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (!input.empty()) {
    size_t off = 0;
    while (off < input.size()) {
      ssize_t n = write(in_pipe[1], input.data() + off, input.size() - off);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
  }
  close(in_pipe[1]);
  auto deadline = std::chrono::steady_clock::now() + timeout;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  char buf[65536];
  while (open_fds > 0) {
    int ms = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count());
    if (ms <= 0) {
      kill(pid, SIGKILL);
      r.err += "\n[timed out]";
      break;
    }
    if (poll(fds, 2, ms) <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      } else {
        (i == 0 ? r.out : r.err).append(buf, static_cast<size_t>(n));
      }
    }
  }
  for (auto& f : fds) {
    if (f.fd >= 0) close(f.fd);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string KubectlPath(const std::string& minor) {
  if (const char* k = std::getenv("CAPSTAN_KUBECTL")) return k;
  std::string sdk = "/usr/lib/google-cloud-sdk/bin/kubectl.1." + minor;
  if (access(sdk.c_str(), X_OK) == 0) return sdk;
  return "kubectl";
}

std::string MakeTempDir(const std::string& prefix) {
  std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  char* d = mkdtemp(buf.data());
  return d ? std::string(d) : std::string();
}

std::string Binary() {
  const char* bin = std::getenv("CAPSTAN_BINARY");
  return bin ? bin : "build/capstan";
}

bool Contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::optional<double> MetricSample(const std::string& text, const std::string& family,
                                   const std::vector<std::string>& labels) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(family + "{", 0) != 0 && line.rfind(family + " ", 0) != 0) continue;
    size_t close = line.rfind('}');
    std::string set = close == std::string::npos ? "" : line.substr(family.size(), close + 1 - family.size());
    bool all = true;
    for (const auto& l : labels) {
      all = all && (Contains(set, "{" + l + ",") || Contains(set, "," + l + ",") || Contains(set, "," + l + "}") ||
                    Contains(set, "{" + l + "}"));
    }
    if (all) return std::stod(line.substr(line.rfind(' ') + 1));
  }
  return std::nullopt;
}

ServerProcess::ServerProcess(std::vector<std::string> extra, std::string data_dir) {
  std::string binary = Binary();
  if (data_dir.empty()) {
    data_dir_ = MakeTempDir("capstan-e2e");
    owns_dir_ = true;
  } else {
    data_dir_ = data_dir;
  }
  log_path_ = data_dir_ + ".log";
  std::filesystem::remove(data_dir_ + "/admin.kubeconfig");
  std::vector<std::string> argv = {binary, "--data-dir", data_dir_, "--secure-port", "0"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  pid_ = fork();
  if (pid_ == 0) {
    int fd = open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  std::regex server_re("server: https://[^:]+:(\\d+)");
  while (std::chrono::steady_clock::now() < deadline) {
    int status;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      error_ = "capstan exited during start-up: " + ReadFile(log_path_);
      pid_ = -1;
      return;
    }
    std::string kc = ReadFile(kubeconfig());
    std::smatch m;
    if (std::regex_search(kc, m, server_re)) {
      port_ = std::stoi(m[1]);
      const std::string probe = "GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
      RawResult r = RawHttps(port_, {probe});
      // Anonymous requests may not be allowed on /readyz (an AuthenticationConfiguration's
      // anonymous conditions): then ask as the admin.
      const std::string pki = data_dir_ + "/pki/";
      if (HttpStatusOf(r.response) == 401 && std::filesystem::exists(pki + "admin.crt")) {
        r = RawHttps(port_, {probe}, pki + "admin.crt", pki + "admin.key");
      }
      if (HttpStatusOf(r.response) == 200) {
        ok_ = true;
        return;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  error_ = "capstan did not become ready: " + ReadFile(log_path_);
}

ServerProcess::~ServerProcess() {
  if (pid_ > 0) Stop(SIGKILL, std::chrono::seconds(5));
  if (owns_dir_) {
    std::error_code ec;
    std::filesystem::remove_all(data_dir_, ec);
    std::filesystem::remove(log_path_, ec);
  }
}

std::string ServerProcess::log() const { return ReadFile(log_path_); }

bool ServerProcess::WaitForDefaultServiceAccount(const std::string& ns, std::chrono::seconds limit) const {
  return PollFor([&] { return Kubectl({"get", "serviceaccount", "default", "-n", ns}).exit_code == 0; }, limit);
}

CommandResult ServerProcess::Kubectl(const std::vector<std::string>& args, const std::string& input,
                                     const std::string& minor) const {
  std::vector<std::string> argv = {KubectlPath(minor), "--kubeconfig", kubeconfig()};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, input);
}

int ServerProcess::Stop(int sig, std::chrono::seconds timeout) {
  if (pid_ <= 0) return -1;
  kill(pid_, sig);
  auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, &status, 0);
  pid_ = -1;
  return -1;
}

namespace {
int Connect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}
}  // namespace

RawResult RawHttps(int port, const std::vector<std::string>& pieces, const std::string& cert_file,
                   const std::string& key_file, std::chrono::milliseconds pause, std::chrono::seconds timeout) {
  RawResult r;
  signal(SIGPIPE, SIG_IGN);  // the server may close while we still write (431, 413)
  int fd = Connect(port);
  if (fd < 0) return r;
  timeval tv{static_cast<time_t>(timeout.count()), 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (!cert_file.empty()) {
    SSL_CTX_use_certificate_chain_file(ctx, cert_file.c_str());
    SSL_CTX_use_PrivateKey_file(ctx, key_file.c_str(), SSL_FILETYPE_PEM);
  }
  SSL* ssl = SSL_new(ctx);
  SSL_set_fd(ssl, fd);
  if (SSL_connect(ssl) == 1) {
    r.connected = true;
    for (size_t i = 0; i < pieces.size(); ++i) {
      if (i > 0 && pause.count() > 0) std::this_thread::sleep_for(pause);
      SSL_write(ssl, pieces[i].data(), static_cast<int>(pieces[i].size()));
    }
    char buf[16384];
    for (;;) {
      int n = SSL_read(ssl, buf, sizeof buf);
      if (n <= 0) break;
      r.response.append(buf, static_cast<size_t>(n));
    }
  }
  SSL_free(ssl);
  SSL_CTX_free(ctx);
  close(fd);
  return r;
}

std::string RawTcp(int port, const std::string& bytes) {
  signal(SIGPIPE, SIG_IGN);
  int fd = Connect(port);
  if (fd < 0) return "";
  timeval tv{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  (void)!write(fd, bytes.data(), bytes.size());
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return out;
}

int HttpStatusOf(const std::string& response) {
  if (response.size() < 12 || response.compare(0, 9, "HTTP/1.1 ") != 0) return 0;
  return std::atoi(response.substr(9, 3).c_str());
}

std::string LocalAddress() {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return "";
  std::string out;
  for (ifaddrs* a = list; a && out.empty(); a = a->ifa_next) {
    if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET) continue;
    char buf[INET_ADDRSTRLEN];
    auto* in = reinterpret_cast<sockaddr_in*>(a->ifa_addr);
    if (!inet_ntop(AF_INET, &in->sin_addr, buf, sizeof buf)) continue;
    std::string ip = buf;
    if (!ip.starts_with("127.")) out = ip;
  }
  freeifaddrs(list);
  return out;
}

bool PollFor(const std::function<bool()>& f, std::chrono::seconds limit) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (f()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return f();
}

std::string CertDerOf(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509* x = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (!x) return "";
  int len = i2d_X509(x, nullptr);
  std::string der(static_cast<size_t>(len), '\0');
  unsigned char* p = reinterpret_cast<unsigned char*>(der.data());
  i2d_X509(x, &p);
  X509_free(x);
  return der;
}

std::string SourcePath(const std::string& relative) {
  const char* source = std::getenv("CAPSTAN_SOURCE_DIR");
  return std::string(source ? source : ".") + "/tests/e2e/" + relative;
}

namespace {
// Tests run in parallel: one installs a client, the others wait for it (held until destroyed).
class InstallLock {
 public:
  explicit InstallLock(const std::string& dir) {
    std::filesystem::create_directories(std::filesystem::path(dir).parent_path());
    fd_ = ::open((dir + ".lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    if (fd_ >= 0) ::flock(fd_, LOCK_EX);
  }
  ~InstallLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  InstallLock(const InstallLock&) = delete;
  InstallLock& operator=(const InstallLock&) = delete;

 private:
  int fd_ = -1;
};
}  // namespace

std::string NodeClient(std::string* why) {
  std::string dir = std::filesystem::path(Binary()).parent_path().string() + "/e2e-node";
  InstallLock lock(dir);
  std::filesystem::create_directories(dir);
  if (std::filesystem::exists(dir + "/node_modules/@kubernetes/client-node")) return dir;
  auto npm = RunCommand({"npm", "install", "--prefix", dir, "--no-audit", "--no-fund", "@kubernetes/client-node@1"}, "",
                        std::chrono::seconds(180));
  if (npm.exit_code != 0) {
    *why = "npm install @kubernetes/client-node@1 failed: " + npm.err;
    return "";
  }
  return dir;
}

std::string PythonClient(std::string* why) {
  std::string venv = std::filesystem::path(Binary()).parent_path().string() + "/e2e-python";
  std::string python = venv + "/bin/python3";
  InstallLock lock(venv);
  if (std::filesystem::exists(venv + "/.kubernetes-installed")) return python;
  auto made = RunCommand({"python3", "-m", "venv", venv}, "", std::chrono::seconds(120));
  if (made.exit_code != 0) {
    *why = "python3 -m venv failed: " + made.err;
    return "";
  }
  auto pip = RunCommand({venv + "/bin/pip", "install", "-q", "--disable-pip-version-check", "kubernetes"}, "",
                        std::chrono::seconds(300));
  if (pip.exit_code != 0) {
    *why = "pip install kubernetes failed: " + pip.err;
    return "";
  }
  std::ofstream(venv + "/.kubernetes-installed") << "\n";
  return python;
}

}  // namespace capstan::e2e
