// storage/etcd3/grpc_errors.h: etcd's gRPC errors → Capstan's storage Status codes (backend.h).
//
// etcd reports its errors as a gRPC code plus a fixed message ("etcdserver: mvcc: required revision
// has been compacted"); the message decides the StorageCode where the code alone is ambiguous
// (OutOfRange is both "compacted" and "future revision"). Transport failures and timeouts are
// kUnavailable. Pure functions, thread-safe.
#pragma once

#include <grpcpp/support/status.h>

#include <string_view>

#include "apimachinery/status.h"

namespace capstan::storage::etcd3 {

// The Status for a failed call. `what` names the operation for the message ("range", "txn", ...).
Status FromGrpc(const grpc::Status& st, std::string_view what);

// The request never reached a server (no connection could be made): safe to send again elsewhere,
// even for a write.
bool NeverSent(const grpc::Status& st);

// The connection or the member failed (worth trying another member for an idempotent request).
bool IsTransportFailure(const grpc::Status& st);

}  // namespace capstan::storage::etcd3
