// tests/e2e/etcd_e2e_helpers.h: what the etcd end-to-end tests (etcd_test.cpp, replicas_test.cpp)
// share: raw HTTPS requests with the admin certificate of a server's data dir, the JSON body of a
// response (chunked or not), and a background command whose output goes to a file (kubectl get -w).
// Header-only; used by one test thread at a time.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>
#include <string>
#include <vector>

#include <filesystem>
#include <memory>

#include <gtest/gtest.h>

#include "e2e_util.h"
#include "storage/etcd3/etcd_test_cluster.h"

namespace capstan::e2e::etcd_e2e {

inline std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
}

// One request to the server on `port` authenticated with the admin certificate under `data_dir`.
inline std::string Raw(int port, const std::string& data_dir, const std::string& method, const std::string& path,
                       const std::string& body = "", const std::string& type = "application/json",
                       std::chrono::seconds timeout = std::chrono::seconds(20)) {
  std::string req = method + " " + path + " HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nConnection: close\r\n";
  if (!body.empty()) req += "Content-Type: " + type + "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  req += "\r\n" + body;
  return RawHttps(port, {req}, data_dir + "/pki/admin.crt", data_dir + "/pki/admin.key", std::chrono::milliseconds(0),
                  timeout)
      .response;
}

// The body of an HTTP/1.1 response, de-chunked when it is chunked.
inline std::string BodyOf(const std::string& response) {
  auto p = response.find("\r\n\r\n");
  if (p == std::string::npos) return "";
  std::string head = response.substr(0, p);
  std::string rest = response.substr(p + 4);
  for (auto& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (head.find("transfer-encoding: chunked") == std::string::npos) return rest;
  std::string out;
  size_t i = 0;
  while (i < rest.size()) {
    auto eol = rest.find("\r\n", i);
    if (eol == std::string::npos) break;
    size_t n = std::strtoul(rest.substr(i, eol - i).c_str(), nullptr, 16);
    if (n == 0) break;
    out += rest.substr(eol + 2, n);
    i = eol + 2 + n + 2;
  }
  return out;
}

// The JSON body as an object ({} when it is not JSON).
inline boost::json::object JsonOf(const std::string& response) {
  boost::system::error_code ec;
  auto v = boost::json::parse(BodyOf(response), ec);
  if (ec || !v.is_object()) return {};
  return v.as_object();
}

inline std::string StringAt(const boost::json::object& o, std::initializer_list<const char*> path) {
  const boost::json::value* v = nullptr;
  const boost::json::object* cur = &o;
  for (const char* k : path) {
    if (!cur) return "";
    v = cur->if_contains(k);
    if (!v) return "";
    cur = v->if_object();
  }
  return v && v->is_string() ? std::string(v->as_string()) : "";
}

// A command in the background (own process group) with stdout to `out` and stderr to `out`.err.
class Background {
 public:
  Background(const std::vector<std::string>& argv, const std::string& out) {
    pid_ = fork();
    if (pid_ == 0) {
      setpgid(0, 0);
      if (FILE* f = fopen(out.c_str(), "w")) dup2(fileno(f), 1);
      if (FILE* e = fopen((out + ".err").c_str(), "w")) dup2(fileno(e), 2);
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execvp(args[0], args.data());
      _exit(127);
    }
  }
  ~Background() { Stop(); }
  Background(const Background&) = delete;
  Background& operator=(const Background&) = delete;
  void Stop() {
    if (pid_ <= 0) return;
    kill(-pid_, SIGTERM);
    kill(pid_, SIGTERM);
    int st = 0;
    waitpid(pid_, &st, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
};

// kubectl until it succeeds (a CRD's resources are served once its controller has run), at most
// `tries` times 100 ms; the last result.
inline CommandResult KubectlUntilOk(const ServerProcess& s, const std::vector<std::string>& args,
                                    const std::string& input = "", int tries = 100) {
  CommandResult r;
  for (int i = 0; i < tries; ++i) {
    r = s.Kubectl(args, input);
    if (r.exit_code == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return r;
}

// A test with a one-member etcd of its own (started in SetUp, under dir_) and a Capstan server slot;
// TearDown stops the server, then etcd, and removes dir_.
class EtcdTest : public ::testing::Test {
 protected:
  explicit EtcdTest(std::string dir_prefix) : dir_prefix_(std::move(dir_prefix)) {}
  void SetUp() override {
    dir_ = MakeTempDir(dir_prefix_);
    capstan::testing::EtcdClusterOptions eo;
    eo.dir = dir_ + "/etcd";
    std::string err;
    etcd_ = capstan::testing::EtcdCluster::Start(eo, &err);
    ASSERT_TRUE(etcd_) << err;
  }
  void TearDown() override {
    server_.reset();
    etcd_.reset();
    std::filesystem::remove_all(dir_);
  }

  std::string dir_prefix_;
  std::string dir_;
  std::unique_ptr<capstan::testing::EtcdCluster> etcd_;
  std::unique_ptr<ServerProcess> server_;
};

}  // namespace capstan::e2e::etcd_e2e
