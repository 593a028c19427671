#include "audit/log_backend.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "util/clock.h"

namespace capstan::audit {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/capstan-audit-XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::vector<std::string> Files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

EventPtr MakeEvent(const std::string& id) {
  auto e = std::make_shared<Event>();
  e->level = Level::kMetadata;
  e->audit_id = id;
  e->stage = Stage::kResponseComplete;
  e->verb = "get";
  return e;
}

TEST(LogBackendTest, WritesOneJsonLinePerEventWithMode0600) {
  TempDir dir;
  LogOptions opts;
  opts.path = dir.path() + "/audit.log";
  AuditMetrics* no_metrics = nullptr;
  auto backend = MakeLogBackend(opts, no_metrics);
  ASSERT_TRUE(backend.ok()) << backend.status().message();
  (*backend)->ProcessEvents({MakeEvent("a"), MakeEvent("b")});
  (*backend)->Shutdown();
  std::ifstream in(opts.path);
  std::string l1, l2, l3;
  std::getline(in, l1);
  std::getline(in, l2);
  EXPECT_FALSE(std::getline(in, l3));
  EXPECT_NE(l1.find("\"auditID\":\"a\""), std::string::npos) << l1;
  EXPECT_NE(l2.find("\"auditID\":\"b\""), std::string::npos) << l2;
  struct stat st {};
  ASSERT_EQ(::stat(opts.path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600);
}

TEST(LogBackendTest, RotatesAtMaxSizeAndKeepsMaxBackups) {
  TempDir dir;
  FakeClock clock;
  LogOptions opts;
  opts.path = dir.path() + "/audit.log";
  opts.max_size_mb = 1;
  opts.max_backups = 2;
  auto sink = LogFileSink::Open(opts, clock);
  ASSERT_TRUE(sink.ok());
  std::string chunk(600 * 1024, 'x');
  chunk.back() = '\n';
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE((*sink)->WriteBytes(chunk).ok());
    clock.Advance(std::chrono::seconds(1));
  }
  // 5 chunks of 600 KiB in 1 MiB files: one chunk per file, four rotations, two backups kept.
  auto files = Files(dir.path());
  ASSERT_EQ(files.size(), 3u) << ::testing::PrintToString(files);
  EXPECT_EQ(files[2], "audit.log");
  EXPECT_EQ(files[0], "audit-2023-11-14T22-13-23.000.log");
  EXPECT_EQ(files[1], "audit-2023-11-14T22-13-24.000.log");
  EXPECT_EQ(fs::file_size(opts.path), chunk.size());
}

TEST(LogBackendTest, MaxAgeRemovesOldBackups) {
  TempDir dir;
  FakeClock clock;
  LogOptions opts;
  opts.path = dir.path() + "/audit.log";
  opts.max_size_mb = 1;
  opts.max_age_days = 1;
  auto sink = LogFileSink::Open(opts, clock);
  ASSERT_TRUE(sink.ok());
  std::string chunk(700 * 1024, 'x');
  ASSERT_TRUE((*sink)->WriteBytes(chunk).ok());
  ASSERT_TRUE((*sink)->WriteBytes(chunk).ok());  // rotation 1 at day 0
  clock.Advance(std::chrono::hours(50));
  ASSERT_TRUE((*sink)->WriteBytes(chunk).ok());  // rotation 2 at day 2: the first backup is too old
  auto files = Files(dir.path());
  ASSERT_EQ(files.size(), 2u) << ::testing::PrintToString(files);
  EXPECT_EQ(files[0], "audit-2023-11-17T00-13-20.000.log");
}

class FailingSink : public EventSink {
 public:
  Status Write(const std::vector<EventPtr>&) override { return Status(500, "InternalError", "disk on fire"); }
};

class BlockingSink : public EventSink {
 public:
  Status Write(const std::vector<EventPtr>& batch) override {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return released; });
    written += batch.size();
    return Status();
  }
  void Release() {
    std::lock_guard lock(mu);
    released = true;
    cv.notify_all();
  }
  std::mutex mu;
  std::condition_variable cv;
  bool released = false;
  size_t written = 0;
};

TEST(BufferedBackendTest, FullBufferDropsAndCountsWithoutBlocking) {
  MetricsRegistry reg;
  AuditMetrics metrics(reg);
  auto sink = std::make_unique<BlockingSink>();
  BlockingSink* s = sink.get();
  BufferedBackend b("log", std::move(sink), BufferedOptions{3, 1, std::chrono::milliseconds(0)}, &metrics);
  // The writer thread holds at most one event in the blocked sink; 3 wait in the buffer; the rest drop.
  for (int i = 0; i < 10; ++i) b.ProcessEvents({MakeEvent(std::to_string(i))});
  uint64_t dropped = b.dropped();
  EXPECT_GE(dropped, 6u);
  EXPECT_LE(dropped, 7u);
  EXPECT_EQ(metrics.errors.Find({"log"})->Value(), static_cast<double>(dropped));
  s->Release();
  b.Shutdown();
  EXPECT_EQ(s->written + dropped, 10u);
}

TEST(BufferedBackendTest, SinkErrorsAreCountedAsDropped) {
  MetricsRegistry reg;
  AuditMetrics metrics(reg);
  BufferedBackend b("webhook", std::make_unique<FailingSink>(), BufferedOptions{100, 10, std::chrono::milliseconds(1)},
                    &metrics);
  b.ProcessEvents({MakeEvent("a"), MakeEvent("b")});
  b.Flush();
  EXPECT_EQ(b.dropped(), 2u);
  EXPECT_EQ(metrics.errors.Find({"webhook"})->Value(), 2.0);
}

}  // namespace
}  // namespace capstan::audit
