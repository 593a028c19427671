#include "storage/etcd3/grpc_errors.h"

#include <string>

namespace capstan::storage::etcd3 {
namespace {

bool Contains(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }

}  // namespace

Status FromGrpc(const grpc::Status& st, std::string_view what) {
  const std::string& msg = st.error_message();
  std::string text = "etcd " + std::string(what) + ": " + msg;
  switch (st.error_code()) {
    case grpc::StatusCode::OK:
      return Status();
    case grpc::StatusCode::OUT_OF_RANGE:
      if (Contains(msg, "has been compacted")) return Status::Storage(StorageCode::kCompacted, text);
      if (Contains(msg, "future revision")) return Status::Storage(StorageCode::kFutureRevision, text);
      return Status::Storage(StorageCode::kInvalidArgument, text);  // e.g. "too large lease TTL"
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      if (Contains(msg, "database space exceeded")) return Status::Storage(StorageCode::kQuotaExceeded, text);
      if (Contains(msg, "larger than max")) return Status::Storage(StorageCode::kTooLarge, text);
      return Status::Storage(StorageCode::kUnavailable, text);  // "too many requests"
    case grpc::StatusCode::INVALID_ARGUMENT:
      if (Contains(msg, "request is too large")) return Status::Storage(StorageCode::kTooLarge, text);
      return Status::Storage(StorageCode::kInvalidArgument, text);
    case grpc::StatusCode::NOT_FOUND:
      return Status::Storage(StorageCode::kKeyNotFound, text);  // "requested lease not found"
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::DEADLINE_EXCEEDED:
    case grpc::StatusCode::CANCELLED:
    case grpc::StatusCode::ABORTED:
      return Status::Storage(StorageCode::kUnavailable, text);
    case grpc::StatusCode::UNAUTHENTICATED:
    case grpc::StatusCode::PERMISSION_DENIED:
    case grpc::StatusCode::DATA_LOSS:
    default:
      return Status::Storage(StorageCode::kInternal, text);
  }
}

bool NeverSent(const grpc::Status& st) {
  if (st.error_code() != grpc::StatusCode::UNAVAILABLE) return false;
  const std::string& msg = st.error_message();
  return Contains(msg, "failed to connect to all addresses") || Contains(msg, "Connection refused") ||
         Contains(msg, "empty address list") || Contains(msg, "DNS resolution failed");
}

bool IsTransportFailure(const grpc::Status& st) {
  if (st.error_code() != grpc::StatusCode::UNAVAILABLE) return false;
  // etcd's own Unavailable errors ("etcdserver: no leader", "leader changed", "request timed out")
  // come from a live member that may recover; the rest are connection failures.
  return st.error_message().rfind("etcdserver:", 0) != 0;
}

}  // namespace capstan::storage::etcd3
