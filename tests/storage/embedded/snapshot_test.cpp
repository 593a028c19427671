// storage/embedded/snapshot_file.h and snapshot.h: the container's checks, and save/restore/status of
// a store (closed here: the online case, with a server writing, is tests/e2e/snapshot_test.cpp,
// because LMDB must not open one environment twice in one process).
#include "storage/embedded/snapshot.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "storage/embedded/embedded_backend.h"
#include "storage/embedded/snapshot_file.h"
#include "test_dir.h"
#include "util/task.h"

namespace capstan::storage::embedded {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void Spit(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

TEST(SnapshotFileTest, RoundTripsAndRefusesDamage) {
  const std::string file = EncodeSnapshot({9, 4, 3}, "payload bytes");
  auto ok = ParseSnapshot(file);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->header.revision, 9);
  EXPECT_EQ(ok->header.compact_revision, 4);
  EXPECT_EQ(ok->header.total_keys, 3);
  EXPECT_EQ(ok->payload, "payload bytes");

  auto message = [](std::string_view bytes) {
    auto p = ParseSnapshot(bytes);
    EXPECT_FALSE(p.ok());
    return p.ok() ? std::string() : p.status().message();
  };
  EXPECT_EQ(message(file.substr(0, file.size() - 5)),
            "invalid snapshot: the file is truncated: it holds 8 of the 13 data bytes its header announces");
  EXPECT_EQ(message(file.substr(0, 20)), "invalid snapshot: the file is truncated: 20 bytes, shorter than an empty snapshot");
  EXPECT_EQ(message(file + "xx"), "invalid snapshot: 2 unexpected bytes after the data (the file is damaged)");
  std::string flipped = file;
  flipped[kSnapshotHeaderBytes + 3] ^= 0x01;
  EXPECT_EQ(message(flipped), "invalid snapshot: the SHA-256 checksum does not match: the file is corrupted");
  EXPECT_EQ(message("SQLite format 3"), "invalid snapshot: not a Capstan snapshot file (it does not start with \"capstan-snapshot\")");
  EXPECT_EQ(message(""), "invalid snapshot: not a Capstan snapshot file (it does not start with \"capstan-snapshot\")");
}

class SnapshotTest : public ::testing::Test {
 protected:
  // A store with `n` keys, closed again.
  void MakeStore(const std::string& dir, int n) {
    EmbeddedOptions o;
    o.dir = dir;
    auto b = OpenEmbeddedBackend(o);
    ASSERT_TRUE(b.ok()) << b.status().message();
    for (int i = 0; i < n; ++i) {
      ASSERT_TRUE(SyncWait((*b)->Put("/registry/configmaps/default/c" + std::to_string(i), "value " + std::to_string(i))).ok());
    }
    ASSERT_TRUE(SyncWait((*b)->Delete("/registry/configmaps/default/c0")).ok());
  }
  TestDir tmp_;
};

TEST_F(SnapshotTest, SaveStatusRestoreGiveTheSameStoreAtTheSameRevision) {
  ASSERT_NO_FATAL_FAILURE(MakeStore(tmp_.sub("a/store"), 20));
  auto saved = SaveSnapshot(tmp_.sub("a/store"), tmp_.sub("s.snap"));
  ASSERT_TRUE(saved.ok()) << saved.status().message();
  EXPECT_EQ(saved->revision, 22);  // 1 (empty) + 20 puts + 1 delete
  EXPECT_EQ(saved->total_keys, 19);
  EXPECT_FALSE(fs::exists(tmp_.sub("s.snap.partial")));
  EXPECT_FALSE(fs::exists(tmp_.sub("s.snap.partial.d")));
  auto status = ReadSnapshotStatus(tmp_.sub("s.snap"));
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->revision, saved->revision);
  EXPECT_EQ(status->total_keys, 19);
  EXPECT_EQ(status->hash, saved->hash);
  EXPECT_GT(status->total_size, 0);

  auto restored = RestoreSnapshot(tmp_.sub("s.snap"), tmp_.sub("b/store"));
  ASSERT_TRUE(restored.ok()) << restored.status().message();
  EXPECT_EQ(restored->revision, 22);
  EmbeddedOptions o;
  o.dir = tmp_.sub("b/store");
  auto b = OpenEmbeddedBackend(o);
  ASSERT_TRUE(b.ok()) << b.status().message();
  auto kv = SyncWait((*b)->Get("/registry/configmaps/default/c7"));
  ASSERT_TRUE(kv.ok() && kv->has_value());
  EXPECT_EQ((*kv)->value, "value 7");
  EXPECT_EQ((*kv)->mod_revision, 9);  // revisions are the snapshot's
  EXPECT_FALSE(SyncWait((*b)->Get("/registry/configmaps/default/c0"))->has_value());
  auto st = SyncWait((*b)->GetStatus());
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->revision, 22);
}

TEST_F(SnapshotTest, RestoreRefusesADirWithAStoreOrInUse) {
  ASSERT_NO_FATAL_FAILURE(MakeStore(tmp_.sub("a/store"), 3));
  ASSERT_TRUE(SaveSnapshot(tmp_.sub("a/store"), tmp_.sub("s.snap")).ok());
  auto into_existing = RestoreSnapshot(tmp_.sub("s.snap"), tmp_.sub("a/store"));
  ASSERT_FALSE(into_existing.ok());
  EXPECT_NE(into_existing.status().message().find("already holds a store"), std::string::npos);
  // A server (here: an open backend) on an empty data dir holds its LOCK.
  EmbeddedOptions o;
  o.dir = tmp_.sub("busy/store");
  {
    auto b = OpenEmbeddedBackend(o);
    ASSERT_TRUE(b.ok());
    fs::remove(tmp_.sub("busy/store/data.mdb"));  // as if it had not written its file yet
    auto busy = RestoreSnapshot(tmp_.sub("s.snap"), tmp_.sub("busy/store"));
    ASSERT_FALSE(busy.ok());
    EXPECT_NE(busy.status().message().find("a server has it open"), std::string::npos) << busy.status().message();
  }
}

TEST_F(SnapshotTest, DamagedSnapshotsAreRefusedAndLeaveNothingBehind) {
  ASSERT_NO_FATAL_FAILURE(MakeStore(tmp_.sub("a/store"), 5));
  ASSERT_TRUE(SaveSnapshot(tmp_.sub("a/store"), tmp_.sub("s.snap")).ok());
  const std::string good = Slurp(tmp_.sub("s.snap"));
  std::string corrupted = good;
  corrupted[corrupted.size() / 2] ^= 0x40;
  for (const auto& [name, bytes] : std::vector<std::pair<std::string, std::string>>{
           {"truncated", good.substr(0, good.size() - 100)}, {"corrupted", corrupted}, {"empty", ""}}) {
    Spit(tmp_.sub(name), bytes);
    auto r = RestoreSnapshot(tmp_.sub(name), tmp_.sub("new-" + name + "/store"));
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_EQ(r.status().message().rfind("invalid snapshot: ", 0), 0u) << r.status().message();
    EXPECT_FALSE(fs::exists(tmp_.sub("new-" + name))) << name;
    EXPECT_FALSE(ReadSnapshotStatus(tmp_.sub(name)).ok()) << name;
  }
  // A payload that passes the checksum but is no store: refused when opened, and removed again.
  Spit(tmp_.sub("foreign"), EncodeSnapshot({5, 0, 1}, std::string(8192, 'x')));
  auto r = RestoreSnapshot(tmp_.sub("foreign"), tmp_.sub("new-foreign/store"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("does not open"), std::string::npos) << r.status().message();
  EXPECT_FALSE(fs::exists(tmp_.sub("new-foreign")));
}

TEST_F(SnapshotTest, SaveWithoutAStoreIsAClearError) {
  auto r = SaveSnapshot(tmp_.sub("nothing/store"), tmp_.sub("s.snap"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no embedded store in"), std::string::npos);
  EXPECT_FALSE(fs::exists(tmp_.sub("s.snap")));
}

}  // namespace
}  // namespace capstan::storage::embedded
