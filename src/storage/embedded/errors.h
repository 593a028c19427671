// storage/embedded/errors.h: the Status values the embedded store returns, with etcd's messages so
// that logs and clients read the same on either backend. Thread-safety: pure functions.
#pragma once

#include <string>

#include "apimachinery/status.h"

namespace capstan::storage::embedded {

inline Status EmptyKey() { return Status::Storage(StorageCode::kInvalidArgument, "etcdserver: key is not provided"); }
inline Status DuplicateKey() {
  return Status::Storage(StorageCode::kInvalidArgument, "etcdserver: duplicate key given in txn request");
}
inline Status FutureRevision() {
  return Status::Storage(StorageCode::kFutureRevision, "mvcc: required revision is a future revision");
}
inline Status Compacted(int64_t compact_revision) {
  return Status::Storage(StorageCode::kCompacted, "mvcc: required revision has been compacted", compact_revision);
}
inline Status QuotaExceeded() {
  return Status::Storage(StorageCode::kQuotaExceeded, "etcdserver: mvcc: database space exceeded");
}
inline Status RequestTooLarge() { return Status::Storage(StorageCode::kTooLarge, "etcdserver: request is too large"); }
inline Status StoreClosed() { return Status::Storage(StorageCode::kUnavailable, "embedded store: closed"); }
inline Status CorruptAt(const std::string& path, const std::string& where, const Status& cause) {
  return Status::Storage(StorageCode::kInternal,
                         "embedded store " + path + ": data file is corrupt (" + where + "): " + cause.message());
}

}  // namespace capstan::storage::embedded
