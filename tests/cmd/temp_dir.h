// tests/cmd/temp_dir.h: a private temporary folder per test, removed with everything in it.
#pragma once

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "cmd/pki.h"

namespace capstan::cmd::testing {

class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TEST_TMPDIR");
    std::string tmpl = std::string(base ? base : "/tmp") + "/capstan-cmd-XXXXXX";
    path_ = mkdtemp(tmpl.data()) ? tmpl : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline unsigned FileMode(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return 0xffffffffu;
  return st.st_mode & 07777;
}

inline std::string ReadOrEmpty(const std::string& path) {
  StatusOr<std::string> s = ReadFileToString(path);
  return s.ok() ? *s : std::string();
}

}  // namespace capstan::cmd::testing
