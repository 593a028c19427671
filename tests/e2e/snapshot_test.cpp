// End-to-end: `capstan snapshot save|restore|status` on the embedded store while a server writes.
//  - save during a write load: the snapshot is one revision R; restored into a new data dir and served,
//    it holds every write acknowledged before the save began and every acknowledged write at or below
//    R, and nothing above R (writes went on during the save, so some are above it);
//  - status prints etcdctl's fields; restore into a data dir a server runs on, or one with a store, is
//    refused; a corrupted or truncated snapshot is refused with a clear message and leaves nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "e2e_util.h"
#include "etcd_e2e_helpers.h"

namespace capstan::e2e {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using namespace etcd_e2e;

std::string Binary() {
  const char* bin = std::getenv("CAPSTAN_BINARY");
  return bin ? bin : "build/capstan";
}

CommandResult Snapshot(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {Binary(), "snapshot"};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, "", std::chrono::seconds(120));
}

int64_t RvOf(const json::object& o) {
  return std::stoll(std::string(o.at("metadata").at("resourceVersion").as_string()));
}

class SnapshotE2E : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir("capstan-snapshot-e2e"); }
  void TearDown() override {
    restored_.reset();
    server_.reset();
    fs::remove_all(dir_);
  }
  std::string dir_;
  std::unique_ptr<ServerProcess> server_;
  std::unique_ptr<ServerProcess> restored_;
};

TEST_F(SnapshotE2E, SaveDuringWritesRestoresEveryAcknowledgedWriteUpToItsRevision) {
  const std::string a = dir_ + "/a";
  fs::create_directories(a);
  server_ = std::make_unique<ServerProcess>(std::vector<std::string>{}, a);
  ASSERT_TRUE(server_->ok()) << server_->error();

  struct Ack {
    std::string name;
    int64_t rv;
  };
  std::mutex mu;
  std::vector<Ack> acked;  // guarded by mu
  std::atomic<bool> stop{false};
  auto writer = [&](int id) {
    for (int i = 0; !stop; ++i) {
      const std::string name = "w" + std::to_string(id) + "-" + std::to_string(i);
      auto r = Raw(server_->port(), a, "POST", "/api/v1/namespaces/default/configmaps",
                   R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name + R"("},"data":{"k":")" +
                       std::string(1024, 'v') + R"("}})");
      if (HttpStatusOf(r) != 201) continue;
      std::lock_guard l(mu);
      acked.push_back({name, RvOf(JsonOf(r))});
    }
  };
  std::thread w1(writer, 1), w2(writer, 2);
  auto count = [&] {
    std::lock_guard l(mu);
    return acked.size();
  };
  for (int i = 0; i < 300 && count() < 100; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::vector<Ack> before;
  {
    std::lock_guard l(mu);
    before = acked;
  }
  const std::string file = dir_ + "/s.snap";
  auto t0 = std::chrono::steady_clock::now();
  auto saved = Snapshot({"save", file, "--data-dir", a});
  double save_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // Writes go on after the save, so some are above its revision.
  size_t at_save = count();
  for (int i = 0; i < 200 && count() < at_save + 20; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  stop = true;
  w1.join();
  w2.join();
  ASSERT_EQ(saved.exit_code, 0) << saved.err;
  EXPECT_EQ(saved.out, "Snapshot saved at " + file + "\n");

  auto status = Snapshot({"status", file, "--write-out=json"});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  auto st = json::parse(status.out).as_object();
  const int64_t rev = st.at("revision").as_int64();
  EXPECT_GT(st.at("totalKey").as_int64(), static_cast<int64_t>(before.size()));
  EXPECT_GT(st.at("totalSize").as_int64(), 100 * 1024);
  EXPECT_TRUE(st.at("hash").is_number());
  auto simple = Snapshot({"status", file});
  EXPECT_NE(simple.out.find(", " + std::to_string(rev) + ", "), std::string::npos) << simple.out;

  // A data dir a server runs on is refused, and so is one that holds a store.
  auto busy = Snapshot({"restore", file, "--data-dir", a});
  EXPECT_NE(busy.exit_code, 0);
  EXPECT_NE(busy.err.find("already holds a store"), std::string::npos) << busy.err;

  const std::string b = dir_ + "/b";
  t0 = std::chrono::steady_clock::now();
  auto restored = Snapshot({"restore", file, "--data-dir", b});
  double restore_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(restored.exit_code, 0) << restored.err;
  std::printf("[ snapshot ] %zu writes acknowledged before the save, %zu in all; snapshot at revision %lld, %lld keys, "
              "%lld bytes; save %.3fs, restore %.3fs\n",
              before.size(), acked.size(), static_cast<long long>(rev), static_cast<long long>(st.at("totalKey").as_int64()),
              static_cast<long long>(st.at("totalSize").as_int64()), save_s, restore_s);

  restored_ = std::make_unique<ServerProcess>(std::vector<std::string>{}, b);
  ASSERT_TRUE(restored_->ok()) << restored_->error() << restored_->log();
  auto list = JsonOf(Raw(restored_->port(), b, "GET", "/api/v1/namespaces/default/configmaps"));
  std::map<std::string, int64_t> present;
  for (const auto& item : list.at("items").as_array()) {
    present[std::string(item.at("metadata").at("name").as_string())] = RvOf(item.as_object());
  }
  for (const Ack& w : before) EXPECT_TRUE(present.count(w.name)) << w.name << " was acknowledged before the save";
  int above = 0;
  for (const Ack& w : acked) {
    if (w.rv <= rev) {
      EXPECT_TRUE(present.count(w.name)) << w.name << " at " << w.rv << " <= " << rev;
      if (present.count(w.name)) EXPECT_EQ(present[w.name], w.rv) << "resourceVersions are the snapshot's";
    } else {
      ++above;
      EXPECT_FALSE(present.count(w.name)) << w.name << " at " << w.rv << " > " << rev;
    }
  }
  EXPECT_GT(above, 0) << "the writes went on during and after the save";
}

// --snapshot-interval: a serving server saves snapshots on its own, keeps the newest
// --snapshot-retention of them in --snapshot-dir (0700), and what it saved restores with `capstan
// snapshot restore` and serves the objects written before it.
TEST_F(SnapshotE2E, ScheduledSnapshotsAreTakenPrunedAndRestore) {
  const std::string a = dir_ + "/a", snaps = dir_ + "/snaps";
  fs::create_directories(snaps);
  std::ofstream(snaps + "/notes.txt") << "left alone\n";  // not a snapshot: never pruned
  server_ = std::make_unique<ServerProcess>(
      std::vector<std::string>{"--snapshot-interval=300ms", "--snapshot-retention=2", "--snapshot-dir=" + snaps}, a);
  ASSERT_TRUE(server_->ok()) << server_->error() << server_->log();
  ASSERT_EQ(server_->Kubectl({"create", "configmap", "before-snapshot", "--from-literal=k=v"}).exit_code, 0);
  const size_t created_at = server_->log().size();
  auto ours = [&] {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(snaps, ec)) {
      std::string n = e.path().filename().string();
      if (n.rfind("capstan-snapshot-", 0) == 0) names.push_back(n);
    }
    std::sort(names.begin(), names.end());
    return names;
  };
  // Wait for two saves logged after the create (the second began after it) and a removal: more
  // snapshots than are kept.
  auto saves_after = [&] {
    std::string log = server_->log();
    int n = 0;
    for (size_t p = log.find("snapshot saved", created_at); p != std::string::npos; p = log.find("snapshot saved", p + 1)) ++n;
    return n;
  };
  for (int i = 0; i < 200 && (saves_after() < 2 || server_->log().find("snapshot removed") == std::string::npos); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_GE(saves_after(), 2) << server_->log();
  ASSERT_NE(server_->log().find("snapshot removed"), std::string::npos) << server_->log();
  auto names = ours();
  EXPECT_LE(names.size(), 2u);
  ASSERT_FALSE(names.empty());
  EXPECT_TRUE(fs::exists(snaps + "/notes.txt"));
  EXPECT_EQ(fs::status(snaps).permissions() & fs::perms::all, fs::perms::owner_all);
  const std::string newest = snaps + "/" + names.back();
  ASSERT_EQ(Snapshot({"status", newest, "--write-out=json"}).exit_code, 0);
  server_.reset();
  const std::string b = dir_ + "/b";
  auto restored = Snapshot({"restore", newest, "--data-dir", b});
  ASSERT_EQ(restored.exit_code, 0) << restored.err;
  restored_ = std::make_unique<ServerProcess>(std::vector<std::string>{}, b);
  ASSERT_TRUE(restored_->ok()) << restored_->error() << restored_->log();
  EXPECT_EQ(restored_->Kubectl({"get", "configmap", "before-snapshot", "-o", "jsonpath={.data.k}"}).out, "v");
}

TEST_F(SnapshotE2E, ScheduledSnapshotsNeedTheEmbeddedStore) {
  server_ = std::make_unique<ServerProcess>(
      std::vector<std::string>{"--snapshot-interval=1m", "--etcd-servers=http://127.0.0.1:1"}, dir_ + "/a");
  EXPECT_FALSE(server_->ok());
  EXPECT_NE(server_->log().find("--snapshot-interval schedules snapshots of the embedded store"), std::string::npos)
      << server_->log();
}

TEST_F(SnapshotE2E, CorruptedAndTruncatedSnapshotsAreRefusedAndLeaveNothing) {
  const std::string a = dir_ + "/a";
  fs::create_directories(a);
  server_ = std::make_unique<ServerProcess>(std::vector<std::string>{}, a);
  ASSERT_TRUE(server_->ok()) << server_->error();
  ASSERT_EQ(server_->Kubectl({"create", "configmap", "c", "--from-literal=a=b"}).exit_code, 0);
  const std::string file = dir_ + "/s.snap";
  ASSERT_EQ(Snapshot({"save", file, "--data-dir", a}).exit_code, 0);
  std::string bytes = ReadFile(file);
  ASSERT_GT(bytes.size(), 1000u);
  std::string corrupted = bytes;
  corrupted[bytes.size() / 3] ^= 0x20;
  WriteFile(dir_ + "/corrupted.snap", corrupted);
  WriteFile(dir_ + "/truncated.snap", bytes.substr(0, bytes.size() / 2));
  for (const char* name : {"corrupted", "truncated"}) {
    const std::string path = dir_ + "/" + name + ".snap";
    auto r = Snapshot({"restore", path, "--data-dir", dir_ + "/new-" + name});
    EXPECT_NE(r.exit_code, 0) << name;
    EXPECT_EQ(r.err.rfind("Error: invalid snapshot: ", 0), 0u) << r.err;
    EXPECT_FALSE(fs::exists(dir_ + "/new-" + name)) << name;
    auto s = Snapshot({"status", path});
    EXPECT_NE(s.exit_code, 0);
    std::printf("[ snapshot ] %s: %s", name, r.err.c_str());
  }
  EXPECT_NE(Snapshot({"restore", dir_ + "/corrupted.snap", "--data-dir", dir_ + "/new"}).err.find("checksum"),
            std::string::npos);
  EXPECT_NE(Snapshot({"restore", dir_ + "/truncated.snap", "--data-dir", dir_ + "/new"}).err.find("truncated"),
            std::string::npos);
}

// kube's apiserver_storage_size_bytes reports the store's size (the data dir's data.mdb here).
TEST_F(SnapshotE2E, StorageSizeIsInMetrics) {
  const std::string a = dir_ + "/a";
  fs::create_directories(a);
  server_ = std::make_unique<ServerProcess>(std::vector<std::string>{}, a);
  ASSERT_TRUE(server_->ok()) << server_->error();
  const std::string sample = "apiserver_storage_size_bytes{storage_cluster_id=\"etcd-0\"} ";
  // The size is read every second: it follows the file as the server writes at start.
  double bytes = -1, file = 0;
  std::string metrics;
  for (int i = 0; i < 100; ++i) {
    metrics = server_->Kubectl({"get", "--raw", "/metrics"}).out;
    file = static_cast<double>(fs::file_size(a + "/store/data.mdb"));
    if (auto at = metrics.find(sample); at != std::string::npos) {
      bytes = std::stod(metrics.substr(at + sample.size()));
      if (bytes >= file / 2 && bytes <= file * 2) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_NE(metrics.find(sample), std::string::npos) << metrics.substr(0, 2000);
  EXPECT_NE(metrics.find("# HELP apiserver_storage_size_bytes [STABLE] Size of the storage database file physically "
                         "allocated in bytes.\n# TYPE apiserver_storage_size_bytes gauge\n"),
            std::string::npos);
  EXPECT_GE(bytes, file / 2) << file;
  EXPECT_LE(bytes, file * 2) << file;
}

}  // namespace
}  // namespace capstan::e2e
