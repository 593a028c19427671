// storage/embedded/embedded_backend.h: the embedded MVCC store, Capstan's default storage::Backend.
//
// OpenEmbeddedBackend opens (or creates) a store in a data dir: LMDB holds a revision-keyed history
// and the leases; an in-memory key index is rebuilt from history at open. Writes go through one
// writer thread that commits concurrent transactions together (group commit, one durable sync per
// batch); reads run on the calling thread on short LMDB snapshots; watches are fanned out by the
// watch hub. A ticker thread expires leases, compacts history every compaction_interval (keeping
// compaction_retention of it), and sends due watch progress notifications. docs/storage-format.md
// describes the files.
//
// The data dir is locked while open: a second open fails with kUnavailable. A file that is not a
// Capstan store, or a corrupt one, fails the open with kInternal and a message naming the file.
//
// Thread-safety: the returned Backend is safe from any thread (see storage/backend.h). Destroying it
// stops the threads; queued writes fail with kUnavailable and open watches end with kUnavailable.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "apimachinery/status.h"
#include "storage/backend.h"
#include "storage/embedded/snapshot.h"
#include "util/clock.h"
#include "util/metrics.h"

namespace capstan::storage::embedded {

struct EmbeddedOptions {
  std::string dir;
  int64_t quota_bytes = 2LL << 30;  // --storage-quota-bytes, etcd's --quota-backend-bytes default
  std::chrono::seconds compaction_interval{300};   // 0: no automatic compaction
  std::chrono::seconds compaction_retention{300};  // history kept by automatic compaction
  MetricsRegistry* metrics = nullptr;
  const Clock* clock = &RealClock::Get();

  // Tuning, mostly for tests and benchmarks.
  int64_t max_request_bytes = 1572864 + 2048;
  size_t watch_ring_events = 10000;
  size_t watch_max_pending_events = 10000;
  int watch_dispatch_threads = 2;
  std::chrono::seconds watch_progress_interval{600};
  std::chrono::milliseconds tick{100};  // lease expiry and compaction check period
  bool verify_checksums_on_open = true;
};

StatusOr<std::unique_ptr<Backend>> OpenEmbeddedBackend(EmbeddedOptions options);

// A snapshot (snapshot.h) of the store `backend` serves, taken while it serves; `backend` must be
// one OpenEmbeddedBackend made (else a 400).
StatusOr<SnapshotStatus> SaveBackendSnapshot(Backend& backend, const std::string& file);

}  // namespace capstan::storage::embedded

namespace capstan::storage {
using embedded::EmbeddedOptions;
using embedded::OpenEmbeddedBackend;
}  // namespace capstan::storage
