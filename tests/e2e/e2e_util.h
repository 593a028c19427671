// tests/e2e/e2e_util.h: starts the real build/capstan in a temp data dir on a free port and drives it
// with the real kubectl or a raw TLS client.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace capstan::e2e {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs argv[0] with the arguments, with stdin from `input`; waits at most `timeout`.
CommandResult RunCommand(const std::vector<std::string>& argv, const std::string& input = "",
                  std::chrono::seconds timeout = std::chrono::seconds(60));

// The kubectl the tests mean: kubectl 1.32 from the machine's SDK folder, else `kubectl` on PATH
// (CAPSTAN_KUBECTL overrides).
std::string KubectlPath(const std::string& minor = "32");

std::string MakeTempDir(const std::string& prefix);

// The binary under test: CAPSTAN_BINARY, else build/capstan.
std::string Binary();

// The Python the client tests run: a virtual environment in the build tree with the current
// `kubernetes` client from PyPI, made on first use. Sets *why and returns "" when it cannot be made
// (no python3-venv, PyPI unreachable): the caller skips.
std::string PythonClient(std::string* why);
// The folder with @kubernetes/client-node 1.x installed (npm, into the build tree on first use); the
// client tests run their .mjs scripts from it. Sets *why and returns "" when npm cannot install it.
std::string NodeClient(std::string* why);
// tests/e2e/<relative> in the source tree.
std::string SourcePath(const std::string& relative);
bool Contains(const std::string& s, const std::string& part);
// The value of the first sample of `family` in Prometheus text whose labels include every one of
// `labels` (each `name="value"`), or nullopt when there is none.
std::optional<double> MetricSample(const std::string& text, const std::string& family,
                                   const std::vector<std::string>& labels);

class ServerProcess {
 public:
  // Starts build/capstan (CAPSTAN_BINARY) with --data-dir <dir> --secure-port 0 and `extra` flags;
  // waits until admin.kubeconfig exists and /readyz answers 200.
  explicit ServerProcess(std::vector<std::string> extra = {}, std::string data_dir = "");
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  bool ok() const { return ok_; }
  const std::string& error() const { return error_; }
  int port() const { return port_; }
  const std::string& data_dir() const { return data_dir_; }
  std::string kubeconfig() const { return data_dir_ + "/admin.kubeconfig"; }
  std::string log() const;

  CommandResult Kubectl(const std::vector<std::string>& args, const std::string& input = "",
                        const std::string& minor = "32") const;

  // Waits until the service-account controller made `ns`'s default ServiceAccount: before that the
  // ServiceAccount admission plugin refuses pods, as kube's does.
  bool WaitForDefaultServiceAccount(const std::string& ns = "default",
                                    std::chrono::seconds limit = std::chrono::seconds(30)) const;

  // Sends SIGTERM (or another signal) and waits for the exit; returns the exit status (-1 on timeout).
  int Stop(int sig = 15, std::chrono::seconds timeout = std::chrono::seconds(30));
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  bool ok_ = false;
  std::string error_;
  int port_ = 0;
  std::string data_dir_;
  std::string log_path_;
  bool owns_dir_ = false;
};

// A raw HTTPS exchange with the server: connects, optionally presents a client cert/key (PEM files),
// writes `request` (possibly in pieces with pauses), and reads until the server closes or `timeout`.
struct RawResult {
  bool connected = false;
  std::string response;
};
RawResult RawHttps(int port, const std::vector<std::string>& pieces, const std::string& cert_file = "",
                   const std::string& key_file = "", std::chrono::milliseconds pause = std::chrono::milliseconds(0),
                   std::chrono::seconds timeout = std::chrono::seconds(10));
// Writes raw bytes on plain TCP (for "not TLS at all" tests); returns what came back before close.
std::string RawTcp(int port, const std::string& bytes);

int HttpStatusOf(const std::string& response);

// The first non-loopback IPv4 address of the machine ("" when none): what Endpoints, node and pod
// addresses may name (kube refuses loopback ones).
std::string LocalAddress();

// Polls f every 200 ms until it is true or `limit` passed; returns its last answer.
bool PollFor(const std::function<bool()>& f, std::chrono::seconds limit = std::chrono::seconds(30));

// The DER bytes of the first certificate in a PEM text ("" when none).
std::string CertDerOf(const std::string& pem);

}  // namespace capstan::e2e
