#include "storage/embedded/snapshot.h"

#include <fcntl.h>
#include <lmdb.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "storage/embedded/mvcc_store.h"
#include "storage/embedded/snapshot_file.h"

namespace capstan::storage::embedded {

namespace fs = std::filesystem;

namespace {

Status Failed(std::string msg) { return Status(500, "InternalError", std::move(msg)); }

Status Errno(const std::string& what, const std::string& path) {
  return Failed(what + " " + path + ": " + std::strerror(errno));
}

StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(404, "NotFound", "cannot open " + path + ": " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Failed("cannot read " + path);
  return ss.str();
}

// Writes `data` to `path` and syncs it (the rename that follows publishes whole contents only).
Status WriteSynced(const std::string& path, std::string_view data) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Errno("cannot create", path);
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Status st = Errno("cannot write", path);
      ::close(fd);
      return st;
    }
    off += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    Status st = Errno("cannot sync", path);
    ::close(fd);
    return st;
  }
  ::close(fd);
  return Status::Ok();
}

void SyncDir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

// LMDB's compacting copy of the environment in `dir` into `out_fd`, in one read transaction. The
// environment is opened read-only beside a server that may have it open (LMDB's reader table in
// lock.mdb is shared between processes), without the data dir's LOCK, which the server holds.
Status CopyEnvironment(const std::string& dir, int out_fd) {
  MDB_env* env = nullptr;
  int rc = mdb_env_create(&env);
  if (rc != 0) return Failed(std::string("lmdb: create environment: ") + mdb_strerror(rc));
  mdb_env_set_maxdbs(env, 8);
  mdb_env_set_maxreaders(env, 1024);
  rc = mdb_env_open(env, dir.c_str(), MDB_RDONLY | MDB_NOTLS, 0600);
  if (rc == 0) rc = mdb_env_copyfd2(env, out_fd, MDB_CP_COMPACT);
  mdb_env_close(env);
  if (rc != 0) return Failed("cannot copy the store in " + dir + ": " + mdb_strerror(rc));
  return Status::Ok();
}

struct StoreFacts {
  int64_t revision = 0;
  int64_t compact_revision = 0;
  int64_t keys = 0;
};

// Opens the store in `dir` (which must not be in use) and reads its revision and live key count.
StatusOr<StoreFacts> ReadStoreFacts(const std::string& dir) {
  MvccOptions mo;
  mo.dir = dir;
  auto store = MvccStore::Open(mo);
  if (!store.ok()) return store.TakeStatus();
  StoreFacts f;
  f.revision = (*store)->revision();
  f.compact_revision = (*store)->compact_revision();
  RangeRequest all;
  all.key = std::string(1, '\0');
  all.range_end = std::string(1, '\0');
  all.count_only = true;
  auto count = (*store)->Range(all);
  if (!count.ok()) return count.TakeStatus();
  f.keys = count->count;
  return f;
}

}  // namespace

StatusOr<SnapshotStatus> SaveSnapshot(const std::string& store_dir, const std::string& file) {
  std::error_code ec;
  if (!fs::is_regular_file(store_dir + "/data.mdb", ec)) {
    return Status(404, "NotFound", "no embedded store in " + store_dir + " (" + store_dir + "/data.mdb does not exist)");
  }
  return SaveSnapshotWith([&](int fd) { return CopyEnvironment(store_dir, fd); }, file);
}

StatusOr<SnapshotStatus> SaveSnapshotWith(const std::function<Status(int fd)>& copy_to, const std::string& file) {
  std::error_code ec;
  const std::string partial = file + ".partial";
  const std::string work = file + ".partial.d";
  fs::remove_all(work, ec);
  auto cleanup = [&] {
    std::error_code ignored;
    fs::remove_all(work, ignored);
    fs::remove(partial, ignored);
  };
  fs::create_directories(work, ec);
  if (ec) return Failed("cannot create " + work + ": " + ec.message());
  const std::string copy = work + "/data.mdb";
  int fd = ::open(copy.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    Status st = Errno("cannot create", copy);
    cleanup();
    return st;
  }
  Status copied = copy_to(fd);
  if (copied.ok() && ::fsync(fd) != 0) copied = Errno("cannot sync", copy);
  ::close(fd);
  if (!copied.ok()) {
    cleanup();
    return copied;
  }
  // The payload is the copy as LMDB wrote it; its facts come from opening it afterwards.
  auto payload = ReadWholeFile(copy);
  if (!payload.ok()) {
    cleanup();
    return payload.TakeStatus();
  }
  auto facts = ReadStoreFacts(work);
  if (!facts.ok()) {
    cleanup();
    return facts.TakeStatus();
  }
  SnapshotHeader h{facts->revision, facts->compact_revision, facts->keys};
  std::string bytes = EncodeSnapshot(h, *payload);
  Status written = WriteSynced(partial, bytes);
  if (written.ok() && std::rename(partial.c_str(), file.c_str()) != 0) written = Errno("cannot rename to", file);
  if (!written.ok()) {
    cleanup();
    return written;
  }
  SyncDir(fs::absolute(file, ec).parent_path().string());
  cleanup();
  auto parsed = ParseSnapshot(bytes);
  if (!parsed.ok()) return parsed.TakeStatus();
  return SnapshotStatus{parsed->hash, h.revision, h.total_keys, static_cast<int64_t>(parsed->payload.size())};
}

StatusOr<SnapshotStatus> ReadSnapshotStatus(const std::string& file) {
  auto bytes = ReadWholeFile(file);
  if (!bytes.ok()) return bytes.TakeStatus();
  auto parsed = ParseSnapshot(*bytes);
  if (!parsed.ok()) return parsed.TakeStatus();
  return SnapshotStatus{parsed->hash, parsed->header.revision, parsed->header.total_keys,
                        static_cast<int64_t>(parsed->payload.size())};
}

StatusOr<SnapshotStatus> RestoreSnapshot(const std::string& file, const std::string& store_dir) {
  auto bytes = ReadWholeFile(file);
  if (!bytes.ok()) return bytes.TakeStatus();
  auto parsed = ParseSnapshot(*bytes);
  if (!parsed.ok()) return parsed.TakeStatus();

  std::error_code ec;
  const std::string data = store_dir + "/data.mdb";
  if (fs::exists(data, ec)) {
    return Status(409, "AlreadyExists", "refusing to restore into " + store_dir + ": it already holds a store (" + data +
                                            "); restore into a new data dir");
  }
  // Directories this restore creates, removed again if it fails (innermost last).
  std::vector<fs::path> created;
  for (fs::path p = fs::absolute(store_dir, ec); !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
    created.insert(created.begin(), p);
    if (p == p.parent_path()) break;
  }
  fs::create_directories(store_dir, ec);
  if (ec) return Failed("cannot create " + store_dir + ": " + ec.message());
  const std::string partial = data + ".partial";
  auto undo = [&] {
    std::error_code ignored;
    for (const char* name : {"/data.mdb", "/data.mdb.partial", "/lock.mdb", "/LOCK"}) fs::remove(store_dir + name, ignored);
    for (auto it = created.rbegin(); it != created.rend(); ++it) fs::remove(*it, ignored);
  };

  // Hold the data dir's LOCK while writing, so a server cannot open the store half written (and a
  // running server, which holds it, makes the restore fail).
  const std::string lock_path = store_dir + "/LOCK";
  int lock_fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock_fd < 0) {
    Status st = Errno("cannot open", lock_path);
    undo();
    return st;
  }
  if (flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(lock_fd);
    return Status(409, "Conflict", "refusing to restore into " + store_dir + ": a server has it open (" + lock_path +
                                       " is locked)");
  }
  Status written = WriteSynced(partial, parsed->payload);
  if (written.ok() && std::rename(partial.c_str(), data.c_str()) != 0) written = Errno("cannot rename to", data);
  if (written.ok()) SyncDir(store_dir);
  ::close(lock_fd);  // releases the flock: the check below opens the store itself
  if (!written.ok()) {
    undo();
    return written;
  }
  auto facts = ReadStoreFacts(store_dir);
  if (!facts.ok() || facts->revision != parsed->header.revision) {
    undo();
    if (!facts.ok()) return Status(400, "BadRequest", "invalid snapshot: the store in it does not open: " + facts.status().message());
    return Status(400, "BadRequest", "invalid snapshot: its store is at revision " + std::to_string(facts->revision) +
                                         ", its header says " + std::to_string(parsed->header.revision));
  }
  return SnapshotStatus{parsed->hash, facts->revision, facts->keys, static_cast<int64_t>(parsed->payload.size())};
}

}  // namespace capstan::storage::embedded
