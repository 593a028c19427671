// storage/etcd3/proto_convert.h: storage::Backend's request and response structs ↔ etcd's protobuf
// messages. Pure functions, thread-safe.
#pragma once

#include "storage/backend.h"
#include "storage/etcd3/proto/etcd_rpc.pb.h"

namespace capstan::storage::etcd3 {

KeyValue FromProto(const mvccpb::KeyValue& kv);
etcdserverpb::RangeRequest ToProto(const RangeRequest& req);
RangeResponse FromProto(const etcdserverpb::RangeResponse& resp, int64_t header_revision);
etcdserverpb::TxnRequest ToProto(const TxnRequest& req);
TxnResponse FromProto(const etcdserverpb::TxnResponse& resp);
WatchEvent FromProto(const mvccpb::Event& ev);

}  // namespace capstan::storage::etcd3
