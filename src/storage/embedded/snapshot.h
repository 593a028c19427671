// storage/embedded/snapshot.h: backups of the embedded store, as etcdctl's snapshot commands do for
// etcd (`capstan snapshot save|restore|status`, cmd/snapshot_command.h).
//
// Save copies the store in `store_dir` (a data dir's store/ folder) with LMDB's compacting copy,
// which reads in one read transaction: the copy is the store at one revision even while a server
// writes to it (the server's writer is never blocked; the copy's reader slot only keeps the pages it
// reads from being reused until it ends). A server need not run. The copy is wrapped in the
// checksummed container of snapshot_file.h, written to FILE.partial and renamed into place, so FILE is
// never a half-written snapshot.
//
// Restore checks the whole file first (truncated or corrupted snapshots are refused and nothing is
// written), refuses a store_dir that already holds a store or that a server has open, writes the
// data file, opens it to check that it is a store at the snapshot's revision, and removes everything
// it made if any step fails. Revisions (resourceVersions) are the snapshot's.
//
// Thread-safety: plain functions; each call works on its own files.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "apimachinery/status.h"

namespace capstan::storage::embedded {

// etcdctl snapshot status's fields.
struct SnapshotStatus {
  uint32_t hash = 0;        // CRC-32C of the store copy
  int64_t revision = 0;     // the store revision the snapshot holds
  int64_t total_keys = 0;   // keys live at that revision
  int64_t total_size = 0;   // bytes of the store copy
};

StatusOr<SnapshotStatus> SaveSnapshot(const std::string& store_dir, const std::string& file);
// The same from the store a server in this process has open (LMDB allows one environment per file
// and process): `copy` writes the store's compacting copy to a file descriptor.
StatusOr<SnapshotStatus> SaveSnapshotWith(const std::function<Status(int fd)>& copy, const std::string& file);
StatusOr<SnapshotStatus> ReadSnapshotStatus(const std::string& file);
StatusOr<SnapshotStatus> RestoreSnapshot(const std::string& file, const std::string& store_dir);

}  // namespace capstan::storage::embedded
