// storage/embedded/snapshot_file.h: the file `capstan snapshot save` writes and `restore` and
// `status` read: a consistent copy of the embedded store in one checksummed container
// (docs/storage-format.md, "Snapshot files").
//
//   magic        "capstan-snapshot\n" (17 bytes)
//   header       5 fields, 8-byte big-endian each: format version (1), revision, compact revision,
//                total keys (live at the revision), payload size
//   payload      the store's data.mdb, compacted by LMDB's copy (one read transaction)
//   checksum     SHA-256 of everything before it (32 bytes)
//
// ParseSnapshot checks everything before handing out the payload: a short, long, foreign or damaged
// file is an error whose message says which, and nothing is trusted from a file that fails. Pure
// functions over bytes; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "apimachinery/status.h"

namespace capstan::storage::embedded {

inline constexpr std::string_view kSnapshotMagic = "capstan-snapshot\n";
inline constexpr int64_t kSnapshotFormatVersion = 1;
inline constexpr size_t kSnapshotHeaderBytes = 17 + 5 * 8;
inline constexpr size_t kSnapshotChecksumBytes = 32;

struct SnapshotHeader {
  int64_t revision = 0;
  int64_t compact_revision = 0;
  int64_t total_keys = 0;
};

struct ParsedSnapshot {
  SnapshotHeader header;
  std::string_view payload;  // views the parsed bytes
  uint32_t hash = 0;         // CRC-32C of the payload (etcdctl's "hash" column)
};

// The whole file for a payload.
std::string EncodeSnapshot(const SnapshotHeader& header, std::string_view payload);
// A 400 BadRequest naming what is wrong for anything that is not a whole, intact snapshot.
StatusOr<ParsedSnapshot> ParseSnapshot(std::string_view bytes);

}  // namespace capstan::storage::embedded
