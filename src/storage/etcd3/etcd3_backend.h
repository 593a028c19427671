// storage/etcd3/etcd3_backend.h: storage::Backend on an etcd v3 cluster, over gRPC.
//
// OpenEtcd3Backend() checks the options (endpoints, TLS files) and returns at once: channels connect in
// the background and reconnect by themselves, so a backend made while etcd is down starts answering
// when etcd comes up; until then calls fail with kUnavailable (never hang past
// EtcdOptions::request_timeout). WaitForConnected() blocks until a member answers, for start-up code.
//
// Mapping to backend.h: Range, Txn, Compact, LeaseGrant/Revoke map to the RPCs of the same name;
// LeaseKeepAlive sends one request on a short keep-alive stream; Watch is etcd3_watch.h; GetStatus
// reads the revision with a linearizable range and the database size and version from
// Maintenance.Status; Check reads EtcdOptions::health_key as kube's probe does. etcd errors map as
// grpc_errors.h says. etcd does not report its compact revision directly: the backend keeps the
// highest it knows (its own compactions, watch cancellations) and confirms or finds it by reading at
// revisions (a binary search on kCompacted), so kCompacted errors carry it as backend.h promises.
//
// Keys are stored exactly as given (no prefix is added; see etcd3_options.h).
//
// Thread-safety: as backend.h. Destroying the backend cancels every call in flight (they fail with
// kUnavailable) and ends open watches with kUnavailable.
#pragma once

#include <chrono>
#include <memory>

#include "apimachinery/status.h"
#include "storage/backend.h"
#include "storage/etcd3/etcd3_options.h"

namespace capstan::storage::etcd3 {

class Etcd3Backend : public Backend {
 public:
  // Blocks until a member's connection is up and answers a read, or `timeout` passes (the last
  // error is returned then).
  virtual Status WaitForConnected(std::chrono::milliseconds timeout) = 0;
  // Reads EtcdOptions::health_key with this deadline (the health checks' probe).
  virtual Task<Status> Probe(std::chrono::milliseconds timeout) = 0;
  // The etcd version reported by the members ("" until known).
  virtual std::string ServerVersion() const = 0;
};

StatusOr<std::unique_ptr<Etcd3Backend>> OpenEtcd3Backend(EtcdOptions options);

}  // namespace capstan::storage::etcd3
