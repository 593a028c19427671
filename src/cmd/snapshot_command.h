// cmd/snapshot_command.h: `capstan snapshot save|restore|status`, etcdctl's snapshot commands for the
// embedded store (storage/embedded/snapshot.h does the work):
//
//   capstan snapshot save FILE [--data-dir DIR]       a consistent copy, with or without a server on DIR
//   capstan snapshot restore FILE --data-dir NEW      into a data dir that holds no store
//   capstan snapshot status FILE [--write-out=simple|table|json]
//
// --data-dir defaults to the server's (./capstan-data); the store is DIR/store. Output follows etcdctl
// 3.4/3.5: save prints "Snapshot saved at FILE"; status prints hash, revision, total keys and total
// size ("simple": comma-separated, "table", or "json" with etcdctl's field names hash, revision,
// totalKey, totalSize). Errors go to stderr as "Error: ..." with exit code 1 (2 for bad usage).
#pragma once

#include <string>
#include <vector>

namespace capstan::cmd {

// `args` are the words after "snapshot". Returns the process exit code.
int RunSnapshotCommand(const std::vector<std::string>& args);

}  // namespace capstan::cmd
