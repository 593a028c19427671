// tests/storage/transformers/kms/plugin_process.h: test_kms_plugin run as a child process on a unix
// socket, for the KMS v1 and v2 envelope tests; killed (and its socket removed) by Stop or the
// destructor.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace capstan::storage::kms {

class Plugin {
 public:
  Plugin(std::string socket, std::string key_file, std::string log, std::string v1_version = "v1beta1")
      : socket_(socket) {
    pid_ = fork();
    if (pid_ == 0) {
      execl(TEST_KMS_PLUGIN, TEST_KMS_PLUGIN, socket.c_str(), key_file.c_str(), "--log", log.c_str(), "--v1-version",
            v1_version.c_str(), nullptr);
      _exit(127);
    }
    for (int i = 0; i < 500 && !std::filesystem::exists(socket_); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  ~Plugin() { Stop(); }
  void Stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
    std::filesystem::remove(socket_);
  }

 private:
  std::string socket_;
  pid_t pid_ = -1;
};

// The calls the plugin logged whose line starts with `prefix` ("Status", "Decrypt k1", "V1Encrypt").
inline int CallCount(const std::string& log_file, const std::string& prefix) {
  std::ifstream in(log_file);
  int n = 0;
  for (std::string l; std::getline(in, l);) n += l.rfind(prefix, 0) == 0;
  return n;
}

}  // namespace capstan::storage::kms
