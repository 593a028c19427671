// Crash safety: a child process runs concurrent transactional writers against the embedded store and
// reports every acknowledged write through a pipe; the parent SIGKILLs it in the middle of the load,
// reopens the store and checks that every acknowledged write is there, that no transaction is half
// visible, and that the revisions have no holes.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "storage/embedded/embedded_backend.h"
#include "storage/embedded/test_dir.h"
#include "util/task.h"

namespace capstan::storage::embedded {
namespace {

constexpr int kWriters = 8;

std::string KeyA(int w) { return "/crash/w" + std::to_string(w) + "/a"; }
std::string KeyB(int w) { return "/crash/w" + std::to_string(w) + "/b"; }

// The child: writes forever; each writer puts the same sequence number into two keys in one txn.
[[noreturn]] void RunChild(const std::string& dir, int fd) {
  EmbeddedOptions o;
  o.dir = dir;
  o.quota_bytes = 256LL << 20;
  auto b = OpenEmbeddedBackend(o);
  if (!b.ok()) _exit(3);
  Backend& db = **b;
  std::mutex pipe_mu;
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (int64_t n = 1;; ++n) {
        TxnRequest t;
        t.success.push_back(RequestOp::Put(KeyA(w), std::to_string(n)));
        t.success.push_back(RequestOp::Put(KeyB(w), std::to_string(n)));
        auto r = SyncWait(db.Txn(std::move(t)));
        if (!r.ok()) _exit(4);
        char line[64];
        int len = snprintf(line, sizeof(line), "%d %lld %lld\n", w, static_cast<long long>(n),
                           static_cast<long long>(r->revision));
        std::lock_guard lock(pipe_mu);
        if (write(fd, line, len) != len) _exit(5);
      }
    });
  }
  for (auto& t : threads) t.join();
  _exit(0);
}

struct Ack {
  int64_t n;
  int64_t rev;
};

TEST(CrashTest, AcknowledgedWritesSurviveSigkill) {
  TestDir dir;
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(fds[0]);
    RunChild(dir.path(), fds[1]);
  }
  close(fds[1]);
  std::map<int, std::vector<Ack>> acks;
  std::string buf;
  size_t lines = 0;
  char chunk[4096];
  bool killed = false;
  for (;;) {
    ssize_t n = read(fds[0], chunk, sizeof(chunk));
    if (n <= 0) break;
    buf.append(chunk, static_cast<size_t>(n));
    size_t nl;
    while ((nl = buf.find('\n')) != std::string::npos) {
      std::istringstream line(buf.substr(0, nl));
      buf.erase(0, nl + 1);
      int w;
      Ack a;
      line >> w >> a.n >> a.rev;
      acks[w].push_back(a);
      ++lines;
    }
    // Kill mid-load once a good number of writes were acknowledged; keep reading what was sent.
    if (!killed && lines >= 2000) {
      kill(pid, SIGKILL);
      killed = true;
    }
  }
  close(fds[0]);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(killed) << "child exited early with status " << status;
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status;

  EmbeddedOptions o;
  o.dir = dir.path();
  o.quota_bytes = 256LL << 20;
  auto reopened = OpenEmbeddedBackend(o);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  Backend& db = **reopened;
  auto st = SyncWait(db.GetStatus());
  ASSERT_TRUE(st.ok());
  int64_t current = st->revision;

  // Every acknowledged write is present, and both keys of each txn agree (no half-visible txn).
  for (int w = 0; w < kWriters; ++w) {
    auto a = SyncWait(db.Get(KeyA(w)));
    auto b = SyncWait(db.Get(KeyB(w)));
    ASSERT_TRUE(a.ok() && b.ok());
    if (acks[w].empty()) continue;
    ASSERT_TRUE(*a && *b) << "writer " << w;
    EXPECT_EQ((*a)->value, (*b)->value) << "writer " << w;
    EXPECT_EQ((*a)->mod_revision, (*b)->mod_revision);
    EXPECT_GE(std::stoll((*a)->value), acks[w].back().n) << "writer " << w << " lost an acknowledged write";
    for (const Ack& ack : acks[w]) {
      auto at = SyncWait(db.Get(KeyA(w), ack.rev));
      ASSERT_TRUE(at.ok() && *at);
      EXPECT_EQ((*at)->value, std::to_string(ack.n));
      EXPECT_EQ((*at)->mod_revision, ack.rev);
    }
  }

  // Replaying history: every revision from 2 to the current one holds exactly one txn (two puts of
  // one writer with the same number), so the sequence has no holes.
  std::mutex mu;
  std::condition_variable cv;
  std::vector<WatchEvent> events;
  WatchRequest wr;
  wr.key = "/crash/";
  wr.range_end = PrefixEnd("/crash/");
  wr.start_revision = 2;
  auto h = db.Watch(wr, [&](WatchResponse r) {
    std::lock_guard lock(mu);
    events.insert(events.end(), r.events.begin(), r.events.end());
    cv.notify_all();
  });
  {
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30),
                            [&] { return events.size() >= static_cast<size_t>(2 * (current - 1)); }));
  }
  h.reset();
  ASSERT_EQ(events.size(), static_cast<size_t>(2 * (current - 1)));
  for (int64_t rev = 2; rev <= current; ++rev) {
    const WatchEvent& a = events[2 * (rev - 2)];
    const WatchEvent& b = events[2 * (rev - 2) + 1];
    ASSERT_EQ(a.kv.mod_revision, rev);
    ASSERT_EQ(b.kv.mod_revision, rev);
    EXPECT_EQ(a.kv.value, b.kv.value);
    EXPECT_EQ(a.kv.key.substr(0, a.kv.key.size() - 1), b.kv.key.substr(0, b.kv.key.size() - 1));
  }
  // The store keeps working after the crash.
  EXPECT_TRUE(SyncWait(db.Put("/after", "1")).ok());
}

}  // namespace
}  // namespace capstan::storage::embedded
