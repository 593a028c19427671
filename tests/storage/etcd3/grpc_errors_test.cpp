#include "storage/etcd3/grpc_errors.h"

#include <gtest/gtest.h>

namespace capstan::storage::etcd3 {
namespace {

using grpc::StatusCode;

StorageCode CodeOf(StatusCode c, const std::string& msg) { return FromGrpc(grpc::Status(c, msg), "op").storage_code(); }

TEST(GrpcErrors, EtcdServerErrorsMapToStorageCodes) {
  EXPECT_EQ(CodeOf(StatusCode::OUT_OF_RANGE, "etcdserver: mvcc: required revision has been compacted"),
            StorageCode::kCompacted);
  EXPECT_EQ(CodeOf(StatusCode::OUT_OF_RANGE, "etcdserver: mvcc: required revision is a future revision"),
            StorageCode::kFutureRevision);
  EXPECT_EQ(CodeOf(StatusCode::RESOURCE_EXHAUSTED, "etcdserver: mvcc: database space exceeded"),
            StorageCode::kQuotaExceeded);
  EXPECT_EQ(CodeOf(StatusCode::INVALID_ARGUMENT, "etcdserver: request is too large"), StorageCode::kTooLarge);
  EXPECT_EQ(CodeOf(StatusCode::RESOURCE_EXHAUSTED, "grpc: received message larger than max (3000000 vs. 2097152)"),
            StorageCode::kTooLarge);
  EXPECT_EQ(CodeOf(StatusCode::INVALID_ARGUMENT, "etcdserver: key is not provided"), StorageCode::kInvalidArgument);
  EXPECT_EQ(CodeOf(StatusCode::INVALID_ARGUMENT, "etcdserver: duplicate key given in txn request"),
            StorageCode::kInvalidArgument);
  EXPECT_EQ(CodeOf(StatusCode::NOT_FOUND, "etcdserver: requested lease not found"), StorageCode::kKeyNotFound);
  EXPECT_EQ(CodeOf(StatusCode::UNAVAILABLE, "etcdserver: no leader"), StorageCode::kUnavailable);
  EXPECT_EQ(CodeOf(StatusCode::UNAVAILABLE, "failed to connect to all addresses"), StorageCode::kUnavailable);
  EXPECT_EQ(CodeOf(StatusCode::DEADLINE_EXCEEDED, "Deadline Exceeded"), StorageCode::kUnavailable);
  EXPECT_EQ(CodeOf(StatusCode::RESOURCE_EXHAUSTED, "etcdserver: too many requests"), StorageCode::kUnavailable);
  EXPECT_EQ(CodeOf(StatusCode::DATA_LOSS, "etcdserver: corrupt cluster"), StorageCode::kInternal);
  EXPECT_EQ(CodeOf(StatusCode::PERMISSION_DENIED, "etcdserver: permission denied"), StorageCode::kInternal);
}

TEST(GrpcErrors, MessageNamesTheOperationAndKeepsEtcdsText) {
  Status st = FromGrpc(grpc::Status(StatusCode::UNAVAILABLE, "etcdserver: no leader"), "txn");
  EXPECT_EQ(st.message(), "etcd txn: etcdserver: no leader");
  EXPECT_TRUE(FromGrpc(grpc::Status::OK, "txn").ok());
}

TEST(GrpcErrors, OnlyConnectFailuresCountAsNeverSent) {
  EXPECT_TRUE(NeverSent(grpc::Status(StatusCode::UNAVAILABLE,
                                     "failed to connect to all addresses; last error: UNKNOWN: Connection refused")));
  EXPECT_FALSE(NeverSent(grpc::Status(StatusCode::UNAVAILABLE, "Socket closed")));
  EXPECT_FALSE(NeverSent(grpc::Status(StatusCode::UNAVAILABLE, "etcdserver: request timed out")));
  EXPECT_FALSE(NeverSent(grpc::Status(StatusCode::DEADLINE_EXCEEDED, "failed to connect to all addresses")));
  EXPECT_TRUE(IsTransportFailure(grpc::Status(StatusCode::UNAVAILABLE, "Socket closed")));
  EXPECT_FALSE(IsTransportFailure(grpc::Status(StatusCode::UNAVAILABLE, "etcdserver: no leader")));
}

}  // namespace
}  // namespace capstan::storage::etcd3
