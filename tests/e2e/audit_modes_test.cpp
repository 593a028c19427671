// End-to-end audit backend modes and log options (issue 26) with the real build/capstan: in blocking
// mode (the log backend's default) every request's events reach a slow log target (a FIFO the test
// reads slowly) under concurrent curl and kubectl writers, where batch mode with a small buffer drops
// some; blocking-strict fails requests whose RequestReceived event cannot be written (/dev/full) with
// kube's 500; --audit-log-format=legacy writes kube's one-line text; --audit-log-compress gzips
// rotated files; --audit-log-truncate-* trims oversized events with kube's annotation; kube's
// validation texts stop the server.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "e2e_util.h"

namespace capstan::e2e {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;

// Metadata for configmap writes (both stages), nothing else.
constexpr char kCreatePolicy[] = R"(apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Metadata
  verbs: [create]
  resources: [{group: "", resources: [configmaps]}]
)";

// RequestResponse for configmap creates, ResponseComplete only.
constexpr char kBodiesPolicy[] = R"(apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: RequestResponse
  verbs: [create]
  resources: [{group: "", resources: [configmaps]}]
)";

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<json::object> JsonEvents(const std::string& text) {
  std::vector<json::object> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    boost::system::error_code ec;
    json::value v = json::parse(line, ec);
    if (!ec && v.is_object() && v.as_object().contains("auditID")) out.push_back(v.as_object());
  }
  return out;
}

std::string Str(const json::object& o, const char* key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : "";
}

// Events of configmap creates, per stage.
std::map<std::string, int> CreateEventsByStage(const std::vector<json::object>& events) {
  std::map<std::string, int> out;
  for (const auto& e : events) {
    if (Str(e, "verb") == "create") ++out[Str(e, "stage")];
  }
  return out;
}

std::string WritePolicy(const std::string& dir, const std::string& text = kCreatePolicy) {
  std::string path = dir + "/policy.yaml";
  std::ofstream(path) << text;
  return path;
}

// curl with the admin certificate: `count` POSTs of a generateName configmap in one process (one
// connection); the number answered 201.
int CurlCreates(const ServerProcess& s, const std::string& prefix, int count) {
  std::string pki = s.data_dir() + "/pki/";
  std::string url = "https://127.0.0.1:" + std::to_string(s.port()) + "/api/v1/namespaces/default/configmaps";
  std::vector<std::string> argv = {"curl", "-sS", "--cacert", pki + "ca.crt", "--cert", pki + "admin.crt", "--key",
                                   pki + "admin.key", "-H", "Content-Type: application/json", "--data-binary",
                                   R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":")" + prefix +
                                       R"(-"},"data":{"k":"v"}})",
                                   "-o", "/dev/null", "-w", "%{http_code}\n"};
  for (int i = 0; i < count; ++i) argv.push_back(url);
  auto r = RunCommand(argv, "", std::chrono::seconds(300));
  int created = 0;
  std::istringstream in(r.out);
  std::string code;
  while (in >> code) created += code == "201";
  return created;
}

double Metric(const ServerProcess& s, const std::string& sample) {
  std::string pki = s.data_dir() + "/pki/";
  auto r = RunCommand({"curl", "-sS", "--cacert", pki + "ca.crt", "--cert", pki + "admin.crt", "--key",
                       pki + "admin.key", "https://127.0.0.1:" + std::to_string(s.port()) + "/metrics"});
  size_t at = r.out.find("\n" + sample + " ");
  if (at == std::string::npos) return 0;
  return std::stod(r.out.substr(at + sample.size() + 2));
}

// Reads a FIFO slowly (1 KiB every 10 ms, about 100 KB/s) until told to stop and the writer has gone.
class SlowFifoReader {
 public:
  explicit SlowFifoReader(std::string path) : path_(std::move(path)) {
    ::mkfifo(path_.c_str(), 0600);
    fd_ = ::open(path_.c_str(), O_RDONLY | O_NONBLOCK);  // a reader exists, so the server's open succeeds
    thread_ = std::thread([this] { Run(); });
  }
  ~SlowFifoReader() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    if (fd_ >= 0) ::close(fd_);
  }
  // Stops once the writer closed the FIFO; what was read.
  std::string Finish() {
    stop_ = true;
    thread_.join();
    std::lock_guard lock(mu_);
    return data_;
  }

 private:
  void Run() {
    char buf[1024];
    while (true) {
      pollfd p{fd_, POLLIN, 0};
      ::poll(&p, 1, 10);
      ssize_t n = ::read(fd_, buf, sizeof buf);
      if (n > 0) {
        std::lock_guard lock(mu_);
        data_.append(buf, static_cast<size_t>(n));
      } else if (n == 0 && stop_) {
        break;  // no writer left and nothing buffered
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  std::string path_;
  int fd_ = -1;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::string data_;
  std::thread thread_;
};

struct WriterCounts {
  int created = 0;
  int attempted = 0;
};

// Four curl writers (50 creates each) and a kubectl writer, at once.
WriterCounts ConcurrentCreates(const ServerProcess& s) {
  std::atomic<int> created{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w) {
    writers.emplace_back([&s, &created, w] { created += CurlCreates(s, "curl" + std::to_string(w), 50); });
  }
  writers.emplace_back([&s, &created] {
    for (int i = 0; i < 5; ++i) {
      auto r = s.Kubectl({"create", "configmap", "kubectl-" + std::to_string(i), "--from-literal=a=b"});
      if (r.exit_code == 0) ++created;
    }
  });
  for (auto& t : writers) t.join();
  return {created.load(), 205};
}

TEST(AuditModesE2eTest, BlockingIsTheDefaultAndLosesNoEventToASlowFifo) {
  std::string dir = MakeTempDir("capstan-audit-blocking");
  SlowFifoReader reader(dir + "/audit.fifo");
  // The batch options do not apply in blocking mode (as kube): a 5-event buffer changes nothing.
  ServerProcess server({"--audit-policy-file=" + WritePolicy(dir), "--audit-log-path=" + dir + "/audit.fifo",
                        "--audit-log-batch-buffer-size=5"});
  ASSERT_TRUE(server.ok()) << server.error();
  WriterCounts n = ConcurrentCreates(server);
  EXPECT_EQ(n.created, n.attempted);
  EXPECT_EQ(Metric(server, "apiserver_audit_error_total{plugin=\"buffered\"}"), 0);
  ASSERT_EQ(server.Stop(), 0);
  auto by_stage = CreateEventsByStage(JsonEvents(reader.Finish()));
  EXPECT_EQ(by_stage["RequestReceived"], n.created);
  EXPECT_EQ(by_stage["ResponseComplete"], n.created);
}

// The same load in batch mode with a 5-event buffer: the slow FIFO makes the buffer overflow, so
// events are missing and counted (what the blocking test would see if blocking were not blocking).
TEST(AuditModesE2eTest, BatchModeWithASmallBufferDropsEventsAndCountsThem) {
  std::string dir = MakeTempDir("capstan-audit-batch");
  SlowFifoReader reader(dir + "/audit.fifo");
  ServerProcess server({"--audit-policy-file=" + WritePolicy(dir), "--audit-log-path=" + dir + "/audit.fifo",
                        "--audit-log-mode=batch", "--audit-log-batch-buffer-size=5"});
  ASSERT_TRUE(server.ok()) << server.error();
  WriterCounts n = ConcurrentCreates(server);
  EXPECT_EQ(n.created, n.attempted);
  double dropped = Metric(server, "apiserver_audit_error_total{plugin=\"buffered\"}");
  EXPECT_GT(dropped, 0);
  ASSERT_EQ(server.Stop(), 0);
  auto by_stage = CreateEventsByStage(JsonEvents(reader.Finish()));
  EXPECT_LT(by_stage["RequestReceived"] + by_stage["ResponseComplete"], 2 * n.created);
}

TEST(AuditModesE2eTest, BlockingStrictFailsRequestsWhoseEventCannotBeWritten) {
  std::string dir = MakeTempDir("capstan-audit-strict");
  ServerProcess server({"--audit-policy-file=" + WritePolicy(dir), "--audit-log-path=/dev/full",
                        "--audit-log-mode=blocking-strict"});
  ASSERT_TRUE(server.ok()) << server.error();
  auto r = server.Kubectl({"create", "configmap", "never", "--from-literal=a=b"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("Internal Server Error: \\\"/api/v1/namespaces/default/configmaps?fieldManager=kubectl-create"
                       "&amp;fieldValidation=Strict\\\": failed to store audit event"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(CurlCreates(server, "strict", 3), 0);
  auto get = server.Kubectl({"get", "configmap", "never"});  // gets are not audited: they work
  EXPECT_NE(get.err.find("NotFound"), std::string::npos) << get.err;
  EXPECT_EQ(Metric(server, "apiserver_audit_requests_rejected_total"), 4);
  EXPECT_GE(Metric(server, "apiserver_audit_error_total{plugin=\"log\"}"), 4);

  // blocking (the default) counts the failure and serves the request.
  ServerProcess lenient({"--audit-policy-file=" + WritePolicy(dir), "--audit-log-path=/dev/full"});
  ASSERT_TRUE(lenient.ok()) << lenient.error();
  EXPECT_EQ(lenient.Kubectl({"create", "configmap", "served", "--from-literal=a=b"}).exit_code, 0);
  EXPECT_EQ(Metric(lenient, "apiserver_audit_requests_rejected_total"), 0);
  EXPECT_GE(Metric(lenient, "apiserver_audit_error_total{plugin=\"log\"}"), 2);
}

TEST(AuditModesE2eTest, LegacyFormatIsKubesOneLineText) {
  std::string dir = MakeTempDir("capstan-audit-legacy");
  std::string log = dir + "/audit.log";
  ServerProcess server(
      {"--audit-policy-file=" + WritePolicy(dir), "--audit-log-path=" + log, "--audit-log-format=legacy"});
  ASSERT_TRUE(server.ok()) << server.error();
  ASSERT_EQ(server.Kubectl({"create", "configmap", "legacy", "--from-literal=a=b"}).exit_code, 0);
  ASSERT_EQ(server.Stop(), 0);
  std::istringstream in(ReadAll(log));
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  ASSERT_EQ(lines.size(), 2u) << ReadAll(log);
  for (const auto& l : lines) {
    // 2026-12-02T04:15:52.123456789Z AUDIT: id="<uuid>" stage=...
    EXPECT_EQ(l.find(" AUDIT: id=\""), l.find(' ')) << l;
    EXPECT_EQ(l.back(), '"') << l;
    EXPECT_NE(l.find("\" ip=\"127.0.0.1\" method=\"create\" user=\"kubernetes-admin\" "
                     "groups=\"\\\"system:masters\\\",\\\"system:authenticated\\\"\" as=\"<self>\" "
                     "asgroups=\"<lookup>\" user-agent=\"kubectl"),
              std::string::npos)
        << l;
    EXPECT_NE(l.find("\" namespace=\"default\" uri=\"/api/v1/namespaces/default/configmaps?fieldManager=kubectl-create"
                     "&fieldValidation=Strict\" response=\""),
              std::string::npos)
        << l;
  }
  EXPECT_NE(lines[0].find("stage=\"RequestReceived\""), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("response=\"<deferred>\""), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("stage=\"ResponseComplete\""), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find("response=\"201\""), std::string::npos) << lines[1];
}

TEST(AuditModesE2eTest, CompressGzipsRotatedFiles) {
  std::string dir = MakeTempDir("capstan-audit-gzip");
  std::string log = dir + "/logs/audit.log";
  ServerProcess server({"--audit-policy-file=" + WritePolicy(dir, kBodiesPolicy),
                        "--audit-log-path=" + log, "--audit-log-maxsize=1", "--audit-log-compress"});
  ASSERT_TRUE(server.ok()) << server.error();
  std::string big(300 * 1024, 'z');
  std::ofstream(dir + "/big.txt") << big;
  for (int i = 0; i < 6; ++i) {  // ~600 KiB per event (request and response objects): several rotations
    auto r = server.Kubectl({"create", "configmap", "big-" + std::to_string(i), "--from-file=big=" + dir + "/big.txt"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  ASSERT_EQ(server.Stop(), 0);
  std::vector<std::string> gz;
  for (int wait = 0; wait < 100; ++wait) {  // the mill compresses after rotating, on its own thread
    gz.clear();
    bool plain_backup = false;
    for (const auto& e : fs::directory_iterator(dir + "/logs")) {
      std::string name = e.path().filename().string();
      if (name.size() > 3 && name.substr(name.size() - 3) == ".gz") gz.push_back(e.path().string());
      if (name != "audit.log" && name.substr(name.size() - 4) == ".log") plain_backup = true;
    }
    if (!gz.empty() && !plain_backup) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_GE(gz.size(), 2u);
  int events = static_cast<int>(JsonEvents(ReadAll(log)).size());
  for (const auto& f : gz) {
    EXPECT_NE(f.find("/logs/audit-"), std::string::npos) << f;
    auto z = RunCommand({"zcat", f});
    ASSERT_EQ(z.exit_code, 0) << z.err;
    auto in_file = JsonEvents(z.out);
    EXPECT_FALSE(in_file.empty()) << f;
    for (const auto& e : in_file) EXPECT_EQ(Str(e, "verb"), "create");
    events += static_cast<int>(in_file.size());
  }
  EXPECT_EQ(events, 6);  // one ResponseComplete per create, none lost to rotation or compression
}

TEST(AuditModesE2eTest, TruncationDropsTheObjectsOfOversizedEventsAndSaysSo) {
  std::string dir = MakeTempDir("capstan-audit-truncate");
  std::string log = dir + "/audit.log";
  ServerProcess server({"--audit-policy-file=" + WritePolicy(dir, kBodiesPolicy),
                        "--audit-log-path=" + log, "--audit-log-truncate-enabled",
                        "--audit-log-truncate-max-event-size=20000", "--audit-log-truncate-max-batch-size=40000"});
  ASSERT_TRUE(server.ok()) << server.error();
  std::ofstream(dir + "/big.txt") << std::string(30 * 1024, 'q');
  ASSERT_EQ(server.Kubectl({"create", "configmap", "small", "--from-literal=a=b"}).exit_code, 0);
  ASSERT_EQ(server.Kubectl({"create", "configmap", "large", "--from-file=big=" + dir + "/big.txt"}).exit_code, 0);
  ASSERT_EQ(server.Stop(), 0);
  auto events = JsonEvents(ReadAll(log));
  ASSERT_EQ(events.size(), 2u) << ReadAll(log);
  for (const auto& e : events) {
    const auto& ref = e.at("objectRef").as_object();
    bool large = Str(ref, "name") == "large";
    EXPECT_EQ(e.contains("requestObject"), !large) << Str(ref, "name");
    EXPECT_EQ(e.contains("responseObject"), !large) << Str(ref, "name");
    const json::value* an = e.if_contains("annotations");
    bool truncated = an && an->as_object().contains("audit.k8s.io/truncated");
    EXPECT_EQ(truncated, large);
    if (truncated) EXPECT_EQ(an->as_object().at("audit.k8s.io/truncated").as_string(), "true");
  }
}

TEST(AuditModesE2eTest, InvalidOptionsStopTheServerWithKubesMessages) {
  std::string dir = MakeTempDir("capstan-audit-invalid");
  std::string policy = WritePolicy(dir);
  struct Case {
    std::vector<std::string> flags;
    std::string message;
  } cases[] = {
      {{"--audit-log-mode=fast"}, R"(invalid audit log mode fast, allowed modes are "batch,blocking,blocking-strict")"},
      {{"--audit-log-format=xml"}, R"(invalid audit log format xml, allowed formats are "legacy,json")"},
      {{"--audit-log-mode=batch", "--audit-log-batch-buffer-size=0"},
       "invalid audit batch log buffer size 0, must be a positive number"},
      {{"--audit-log-truncate-max-event-size=100", "--audit-log-truncate-max-batch-size=10"},
       "invalid audit truncate log max batch size 10, must be greater than max event size (100)"},
      {{"--audit-log-version=audit.k8s.io/v1beta1"}, R"(invalid group version, allowed versions are ["audit.k8s.io/v1"])"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> flags = {"--audit-policy-file=" + policy, "--audit-log-path=" + dir + "/a.log"};
    flags.insert(flags.end(), c.flags.begin(), c.flags.end());
    ServerProcess server(flags);
    EXPECT_FALSE(server.ok()) << c.message;
    EXPECT_NE(server.log().find(c.message), std::string::npos) << server.log();
  }
}

}  // namespace
}  // namespace capstan::e2e
