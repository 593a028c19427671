// storage/embedded/lmdb_env.h: the LMDB environment of one data dir, and small RAII helpers.
//
// LmdbEnv::Open locks the data dir (flock on <dir>/LOCK, so a second process, or a second open in this
// one, fails with a clear error), opens <dir>/data.mdb with MDB_NOTLS (read transactions are not tied
// to threads) and opens the store's named tables: "meta", "history", "values" and "leases". A file that is not
// LMDB, an LMDB file of another program, or a Capstan store of another format is refused with a
// Status naming the file, never a crash.
//
// Thread-safety: the environment is shared by every thread; a write txn belongs to the writer
// thread; a ReadTxn belongs to one caller at a time.
#pragma once

#include <lmdb.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "apimachinery/status.h"

namespace capstan::storage::embedded {

inline constexpr std::string_view kFormatName = "capstan-embedded-mvcc";
inline constexpr int64_t kFormatVersion = 1;

// Meta table keys.
inline constexpr std::string_view kMetaFormat = "format";            // kFormatName
inline constexpr std::string_view kMetaFormatVersion = "format_version";  // fixed64
inline constexpr std::string_view kMetaRevision = "revision";  // fixed64: a floor, written by compactions
inline constexpr std::string_view kMetaCompactRevision = "compact_revision";  // fixed64
inline constexpr std::string_view kMetaLeaseSeq = "lease_seq";      // fixed64: last lease id handed out

Status LmdbError(int rc, std::string_view what);

inline MDB_val ToVal(std::string_view s) { return MDB_val{s.size(), const_cast<char*>(s.data())}; }
inline std::string_view FromVal(const MDB_val& v) { return {static_cast<const char*>(v.mv_data), v.mv_size}; }

class LmdbEnv {
 public:
  // map_size: the most bytes the data file may grow to.
  static StatusOr<std::unique_ptr<LmdbEnv>> Open(const std::string& dir, int64_t map_size);
  ~LmdbEnv();
  LmdbEnv(const LmdbEnv&) = delete;
  LmdbEnv& operator=(const LmdbEnv&) = delete;

  MDB_env* env() const { return env_; }
  MDB_dbi meta() const { return meta_; }
  MDB_dbi history() const { return history_; }
  MDB_dbi values() const { return values_; }
  MDB_dbi leases() const { return leases_; }
  const std::string& path() const { return path_; }
  int64_t page_size() const { return page_size_; }

  // Bytes of the data file that hold pages (the high-water mark), from the last committed txn.
  int64_t FileBytes() const;
  // Pages on LMDB's free list, as seen by `txn` (LMDB reuses them before growing the file).
  StatusOr<int64_t> FreePages(MDB_txn* txn) const;

 private:
  LmdbEnv() = default;
  Status Init(const std::string& dir, int64_t map_size);

  std::string path_;
  int lock_fd_ = -1;
  MDB_env* env_ = nullptr;
  MDB_dbi meta_ = 0, history_ = 0, values_ = 0, leases_ = 0;
  int64_t page_size_ = 4096;
};

// A read-only snapshot; aborted when destroyed.
class ReadTxn {
 public:
  ReadTxn() = default;
  ~ReadTxn() { Reset(); }
  ReadTxn(const ReadTxn&) = delete;
  ReadTxn& operator=(const ReadTxn&) = delete;
  Status Begin(MDB_env* env);
  MDB_txn* get() const { return txn_; }
  void Reset() {
    if (txn_) mdb_txn_abort(txn_);
    txn_ = nullptr;
  }

 private:
  MDB_txn* txn_ = nullptr;
};

// A cursor closed when destroyed (read txns only; write-txn cursors close with the txn).
class Cursor {
 public:
  Cursor() = default;
  ~Cursor() {
    if (c_) mdb_cursor_close(c_);
  }
  Cursor(const Cursor&) = delete;
  Cursor& operator=(const Cursor&) = delete;
  Status Open(MDB_txn* txn, MDB_dbi dbi);
  MDB_cursor* get() const { return c_; }

 private:
  MDB_cursor* c_ = nullptr;
};

}  // namespace capstan::storage::embedded
