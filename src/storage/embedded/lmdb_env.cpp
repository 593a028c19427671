#include "storage/embedded/lmdb_env.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "storage/embedded/record.h"

namespace capstan::storage::embedded {

Status LmdbError(int rc, std::string_view what) {
  StorageCode code = StorageCode::kInternal;
  if (rc == MDB_MAP_FULL) code = StorageCode::kQuotaExceeded;
  return Status::Storage(code, "embedded store: " + std::string(what) + ": " + mdb_strerror(rc));
}

Status ReadTxn::Begin(MDB_env* env) {
  Reset();
  int rc = mdb_txn_begin(env, nullptr, MDB_RDONLY, &txn_);
  if (rc != 0) {
    txn_ = nullptr;
    return LmdbError(rc, "begin read transaction");
  }
  return Status::Ok();
}

Status Cursor::Open(MDB_txn* txn, MDB_dbi dbi) {
  int rc = mdb_cursor_open(txn, dbi, &c_);
  if (rc != 0) {
    c_ = nullptr;
    return LmdbError(rc, "open cursor");
  }
  return Status::Ok();
}

StatusOr<std::unique_ptr<LmdbEnv>> LmdbEnv::Open(const std::string& dir, int64_t map_size) {
  std::unique_ptr<LmdbEnv> env(new LmdbEnv());
  Status s = env->Init(dir, map_size);
  if (!s.ok()) return s;
  return env;
}

LmdbEnv::~LmdbEnv() {
  if (env_) mdb_env_close(env_);
  if (lock_fd_ >= 0) close(lock_fd_);  // releases the flock
}

namespace {

Status StartError(const std::string& path, std::string msg) {
  return Status::Storage(StorageCode::kInternal, "embedded store " + path + ": " + std::move(msg));
}

// Opens a named table inside `txn`; NOTFOUND and INCOMPATIBLE are reported through rc.
int OpenTable(MDB_txn* txn, const char* name, unsigned flags, MDB_dbi* dbi) { return mdb_dbi_open(txn, name, flags, dbi); }

}  // namespace

Status LmdbEnv::Init(const std::string& dir, int64_t map_size) {
  path_ = dir;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return StartError(dir, "cannot create the data dir: " + ec.message());
  if (!std::filesystem::is_directory(dir, ec)) return StartError(dir, "the data dir is not a directory");

  std::string lock_path = dir + "/LOCK";
  lock_fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock_fd_ < 0) return StartError(dir, "cannot open " + lock_path + ": " + std::strerror(errno));
  if (flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    if (err == EWOULDBLOCK) {
      return Status::Storage(StorageCode::kUnavailable,
                             "embedded store " + dir + ": the data dir is in use by another store (" + lock_path +
                                 " is locked); stop the other server or use another --data-dir");
    }
    return StartError(dir, "cannot lock " + lock_path + ": " + std::strerror(err));
  }

  std::string data_path = dir + "/data.mdb";
  struct stat st;
  if (::stat(data_path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    return StartError(dir, data_path + " is not a regular file");
  }

  int rc = mdb_env_create(&env_);
  if (rc != 0) return LmdbError(rc, "create environment");
  mdb_env_set_maxdbs(env_, 8);
  mdb_env_set_maxreaders(env_, 1024);
  rc = mdb_env_set_mapsize(env_, static_cast<size_t>(map_size));
  if (rc != 0) return LmdbError(rc, "set map size");
  rc = mdb_env_open(env_, dir.c_str(), MDB_NOTLS, 0600);
  if (rc != 0) {
    if (rc == MDB_INVALID) return StartError(dir, data_path + " is not an LMDB file or its header is corrupt");
    if (rc == MDB_VERSION_MISMATCH) return StartError(dir, data_path + " was written by an incompatible LMDB version");
    return StartError(dir, std::string("cannot open ") + data_path + ": " + mdb_strerror(rc));
  }
  int dead = 0;
  mdb_reader_check(env_, &dead);
  MDB_stat est;
  if (mdb_env_stat(env_, &est) == 0) page_size_ = est.ms_psize;

  MDB_txn* txn = nullptr;
  rc = mdb_txn_begin(env_, nullptr, 0, &txn);
  if (rc != 0) return StartError(dir, std::string("cannot begin a transaction: ") + mdb_strerror(rc));
  auto fail = [&](std::string msg) {
    mdb_txn_abort(txn);
    return StartError(dir, std::move(msg));
  };

  rc = OpenTable(txn, "meta", 0, &meta_);
  if (rc == MDB_NOTFOUND) {
    // No meta table: a new store only if the file holds nothing else.
    MDB_dbi main_dbi;
    MDB_stat ms;
    if (mdb_dbi_open(txn, nullptr, 0, &main_dbi) != 0 || mdb_stat(txn, main_dbi, &ms) != 0) {
      return fail(data_path + " cannot be read");
    }
    if (ms.ms_entries != 0) return fail(data_path + " belongs to another program: it has no Capstan meta table");
    if ((rc = OpenTable(txn, "meta", MDB_CREATE, &meta_)) != 0 ||
        (rc = OpenTable(txn, "history", MDB_CREATE, &history_)) != 0 ||
        (rc = OpenTable(txn, "values", MDB_CREATE, &values_)) != 0 ||
        (rc = OpenTable(txn, "leases", MDB_CREATE, &leases_)) != 0) {
      return fail(std::string("cannot create tables: ") + mdb_strerror(rc));
    }
    std::string version = EncodeFixed64(kFormatVersion);
    MDB_val k1 = ToVal(kMetaFormat), v1 = ToVal(kFormatName);
    MDB_val k2 = ToVal(kMetaFormatVersion), v2 = ToVal(version);
    if ((rc = mdb_put(txn, meta_, &k1, &v1, 0)) != 0 || (rc = mdb_put(txn, meta_, &k2, &v2, 0)) != 0) {
      return fail(std::string("cannot write the format marker: ") + mdb_strerror(rc));
    }
  } else if (rc != 0) {
    return fail(data_path + " belongs to another program (" + mdb_strerror(rc) + ")");
  } else {
    MDB_val k = ToVal(kMetaFormat), v;
    if (mdb_get(txn, meta_, &k, &v) != 0 || FromVal(v) != kFormatName) {
      return fail(data_path + " belongs to another program: its meta table has no Capstan format marker");
    }
    MDB_val kv = ToVal(kMetaFormatVersion), vv;
    if (mdb_get(txn, meta_, &kv, &vv) != 0) return fail(data_path + " has no format version");
    auto version = DecodeFixed64(FromVal(vv));
    if (!version.ok()) return fail(data_path + " has a corrupt format version");
    if (*version != kFormatVersion) {
      return fail(data_path + " has format version " + std::to_string(*version) + "; this Capstan reads version " +
                  std::to_string(kFormatVersion));
    }
    if ((rc = OpenTable(txn, "history", 0, &history_)) != 0 || (rc = OpenTable(txn, "values", 0, &values_)) != 0 ||
        (rc = OpenTable(txn, "leases", 0, &leases_)) != 0) {
      return fail(data_path + " is missing a table (" + mdb_strerror(rc) + ")");
    }
  }
  rc = mdb_txn_commit(txn);
  if (rc != 0) return StartError(dir, std::string("cannot commit the open transaction: ") + mdb_strerror(rc));
  return Status::Ok();
}

int64_t LmdbEnv::FileBytes() const {
  MDB_envinfo info;
  if (mdb_env_info(env_, &info) != 0) return 0;
  return static_cast<int64_t>(info.me_last_pgno + 1) * page_size_;
}

StatusOr<int64_t> LmdbEnv::FreePages(MDB_txn* txn) const {
  MDB_cursor* c = nullptr;
  int rc = mdb_cursor_open(txn, 0 /* LMDB's free-page table */, &c);
  if (rc != 0) return LmdbError(rc, "open free list");
  int64_t pages = 0;
  MDB_val k, v;
  for (rc = mdb_cursor_get(c, &k, &v, MDB_FIRST); rc == 0; rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
    // Each value is a list of page numbers whose first word is the count.
    if (v.mv_size >= sizeof(size_t)) {
      size_t n;
      std::memcpy(&n, v.mv_data, sizeof(n));
      pages += static_cast<int64_t>(n);
    }
  }
  mdb_cursor_close(c);
  if (rc != MDB_NOTFOUND) return LmdbError(rc, "read free list");
  return pages;
}

}  // namespace capstan::storage::embedded
