// End-to-end: the watch cache under real clients. 1040 concurrent changes (creates, updates, deletes)
// to the configmaps of one namespace while `kubectl get -w` and an @kubernetes/client-node Informer
// follow them; both must end equal to a fresh list. The informer's package is installed with npm into
// the build tree on first run (the test is skipped when npm cannot reach its registry).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "e2e_util.h"

namespace capstan::e2e {
namespace {

namespace json = boost::json;
using State = std::map<std::string, std::string>;  // name -> "rv|data.v"

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Starts a command in the background with stdout to `out`; returns its pid.
pid_t Spawn(const std::vector<std::string>& argv, const std::string& out) {
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    FILE* f = fopen(out.c_str(), "w");
    if (f) dup2(fileno(f), 1);
    std::string err = out + ".err";
    FILE* e = fopen(err.c_str(), "w");
    if (e) dup2(fileno(e), 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  return pid;
}

void Kill(pid_t pid) {
  if (pid <= 0) return;
  kill(-pid, SIGTERM);
  kill(pid, SIGTERM);
  int st = 0;
  waitpid(pid, &st, 0);
}

State FromList(const std::string& list_json) {
  State s;
  auto v = json::parse(list_json);
  for (const auto& item : v.at("items").as_array()) {
    const auto& md = item.at("metadata").as_object();
    std::string data;
    if (const auto* d = item.as_object().if_contains("data"); d && d->as_object().contains("v")) {
      data = std::string(d->as_object().at("v").as_string());
    }
    s[std::string(md.at("name").as_string())] = std::string(md.at("resourceVersion").as_string()) + "|" + data;
  }
  return s;
}

// Replays `kubectl get -w --output-watch-events -o json` output (concatenated JSON documents).
State FromWatchOutput(const std::string& text) {
  State s;
  json::stream_parser p;
  size_t pos = 0;
  while (pos < text.size()) {
    boost::system::error_code ec;
    size_t n = p.write_some(text.data() + pos, text.size() - pos, ec);
    pos += n;
    if (ec) break;
    if (!p.done()) break;
    json::value v = p.release();
    p.reset();
    const auto& o = v.as_object();
    std::string type(o.at("type").as_string());
    const auto& obj = o.at("object").as_object();
    const auto& md = obj.at("metadata").as_object();
    std::string name(md.at("name").as_string());
    if (type == "DELETED") {
      s.erase(name);
      continue;
    }
    std::string data;
    if (const auto* d = obj.if_contains("data"); d && d->as_object().contains("v")) data = std::string(d->as_object().at("v").as_string());
    s[name] = std::string(md.at("resourceVersion").as_string()) + "|" + data;
  }
  return s;
}

class WatchCacheE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<ServerProcess>();
    ASSERT_TRUE(server_->ok()) << server_->error();
  }
  std::string Raw(const std::string& method, const std::string& path, const std::string& body,
                  const std::string& type = "application/json") {
    std::string req = method + " " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n";
    if (!body.empty()) req += "Content-Type: " + type + "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
    req += "\r\n" + body;
    return RawHttps(server_->port(), {req}, server_->data_dir() + "/pki/admin.crt", server_->data_dir() + "/pki/admin.key")
        .response;
  }
  std::unique_ptr<ServerProcess> server_;
};

TEST_F(WatchCacheE2E, KubectlWatchAndAClientNodeInformerReconcileConcurrentChanges) {
  const char* binary = std::getenv("CAPSTAN_BINARY");
  const char* source = std::getenv("CAPSTAN_SOURCE_DIR");
  ASSERT_TRUE(binary && source);
  // The informer's package, installed once into the build tree.
  std::string why;
  std::string node_dir = NodeClient(&why);
  if (node_dir.empty()) GTEST_SKIP() << why;
  std::filesystem::copy_file(std::string(source) + "/tests/e2e/watch_cache/informer.mjs", node_dir + "/informer.mjs",
                             std::filesystem::copy_options::overwrite_existing);

  ASSERT_EQ(server_->Kubectl({"create", "namespace", "wc"}, "", "31").exit_code, 0);
  std::string dir = server_->data_dir();
  pid_t kubectl = Spawn({KubectlPath("32"), "--kubeconfig", server_->kubeconfig(), "get", "configmaps", "-n", "wc", "-w",
                         "--output-watch-events", "-o", "json"},
                        dir + "/watch.out");
  pid_t informer = Spawn({"node", node_dir + "/informer.mjs", server_->kubeconfig(), "wc", dir + "/informer.json"},
                         dir + "/informer.out");
  // Both are following (the informer has written its first, empty state; kubectl has listed).
  for (int i = 0; i < 300 && !std::filesystem::exists(dir + "/informer.json"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(std::filesystem::exists(dir + "/informer.json")) << ReadFile(dir + "/informer.out.err");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));

  // 8 writers, 25 names each: create, 4 updates; every 5th name is then deleted: 1040 changes.
  auto t0 = std::chrono::steady_clock::now();
  std::atomic<int> failures{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < 8; ++w) {
    writers.emplace_back([&, w] {
      for (int n = 0; n < 25; ++n) {
        std::string name = "cm-" + std::to_string(w) + "-" + std::to_string(n);
        std::string path = "/api/v1/namespaces/wc/configmaps";
        auto r = Raw("POST", path, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name +
                                       R"("},"data":{"v":"0"}})");
        if (HttpStatusOf(r) != 201) ++failures;
        for (int u = 1; u <= 4; ++u) {
          auto p = Raw("PATCH", path + "/" + name, R"({"data":{"v":")" + std::to_string(u) + R"("}})",
                       "application/merge-patch+json");
          if (HttpStatusOf(p) != 200) ++failures;
        }
        if (n % 5 == 0 && HttpStatusOf(Raw("DELETE", path + "/" + name, "")) != 200) ++failures;
      }
    });
  }
  for (auto& t : writers) t.join();
  auto writes = std::chrono::steady_clock::now() - t0;
  EXPECT_EQ(failures.load(), 0);

  auto list = server_->Kubectl({"get", "configmaps", "-n", "wc", "-o", "json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  State want = FromList(list.out);
  want.erase("kube-root-ca.crt");
  ASSERT_EQ(want.size(), 160u);
  State kubectl_state, informer_state;
  for (int i = 0; i < 300; ++i) {
    kubectl_state = FromWatchOutput(ReadFile(dir + "/watch.out"));
    kubectl_state.erase("kube-root-ca.crt");
    std::string inf = ReadFile(dir + "/informer.json");
    informer_state.clear();
    if (!inf.empty()) {
      // The parsed document must outlive the loop: a range-for over `json::parse(inf).as_object()` would
      // iterate a reference into a temporary destroyed before the first iteration.
      json::value doc = json::parse(inf);
      for (const auto& [k, v] : doc.as_object()) informer_state[std::string(k)] = std::string(v.as_string());
    }
    informer_state.erase("kube-root-ca.crt");
    if (kubectl_state == want && informer_state == want) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  auto settled = std::chrono::steady_clock::now() - t0;
  Kill(kubectl);
  Kill(informer);
  EXPECT_EQ(kubectl_state, want) << ReadFile(dir + "/watch.out.err");
  EXPECT_EQ(informer_state, want) << ReadFile(dir + "/informer.out.err");
  std::cout << "1040 changes written in " << std::chrono::duration_cast<std::chrono::milliseconds>(writes).count()
            << " ms; kubectl and the informer equal to a fresh list after "
            << std::chrono::duration_cast<std::chrono::milliseconds>(settled).count() << " ms\n";
}

}  // namespace
}  // namespace capstan::e2e
