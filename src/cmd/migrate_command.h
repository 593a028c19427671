// cmd/migrate_command.h: `capstan migrate`, moving a cluster's data between the embedded store and
// etcd while no server runs on either (storage/backend_copy.h does the copy):
//
//   capstan migrate --from-data-dir DIR --to-etcd URLS [--etcd-cafile F --etcd-certfile F --etcd-keyfile F]
//   capstan migrate --from-etcd URLS --to-data-dir NEW [the same TLS flags]
//
// Every key under --etcd-prefix (default /registry) is copied with its value as it is; the target
// must hold none (a data dir with a store, or an etcd with keys under the prefix, is refused).
// Opening DIR takes its lock, so a server running on it makes the command fail. resourceVersions are
// the target's revisions, as after an etcd restore (clients relist on 410). Prints what was copied;
// errors go to stderr as "Error: ..." with exit code 1 (2 for bad usage).
#pragma once

#include <string>
#include <vector>

namespace capstan::cmd {

// `args` are the words after "migrate". Returns the process exit code.
int RunMigrateCommand(const std::vector<std::string>& args);

}  // namespace capstan::cmd
