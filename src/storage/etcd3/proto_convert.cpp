#include "storage/etcd3/proto_convert.h"

namespace capstan::storage::etcd3 {
namespace {

using PbCompare = etcdserverpb::Compare;

PbCompare::CompareTarget TargetOf(Compare::Target t) {
  switch (t) {
    case Compare::Target::kVersion:
      return PbCompare::VERSION;
    case Compare::Target::kCreateRevision:
      return PbCompare::CREATE;
    case Compare::Target::kModRevision:
      return PbCompare::MOD;
    case Compare::Target::kValue:
      return PbCompare::VALUE;
    case Compare::Target::kLease:
      return PbCompare::LEASE;
  }
  return PbCompare::MOD;
}

PbCompare::CompareResult ResultOf(Compare::Result r) {
  switch (r) {
    case Compare::Result::kEqual:
      return PbCompare::EQUAL;
    case Compare::Result::kGreater:
      return PbCompare::GREATER;
    case Compare::Result::kLess:
      return PbCompare::LESS;
    case Compare::Result::kNotEqual:
      return PbCompare::NOT_EQUAL;
  }
  return PbCompare::EQUAL;
}

void AddOp(const RequestOp& op, etcdserverpb::RequestOp* out) {
  switch (op.type) {
    case RequestOp::Type::kRange:
      *out->mutable_request_range() = ToProto(op.range);
      break;
    case RequestOp::Type::kPut: {
      auto* p = out->mutable_request_put();
      p->set_key(op.put.key);
      p->set_value(op.put.value);
      p->set_lease(op.put.lease);
      p->set_prev_kv(op.put.prev_kv);
      break;
    }
    case RequestOp::Type::kDeleteRange: {
      auto* d = out->mutable_request_delete_range();
      d->set_key(op.delete_range.key);
      d->set_range_end(op.delete_range.range_end);
      d->set_prev_kv(op.delete_range.prev_kv);
      break;
    }
  }
}

}  // namespace

KeyValue FromProto(const mvccpb::KeyValue& kv) {
  KeyValue out;
  out.key = kv.key();
  out.value = kv.value();
  out.create_revision = kv.create_revision();
  out.mod_revision = kv.mod_revision();
  out.version = kv.version();
  out.lease = kv.lease();
  return out;
}

etcdserverpb::RangeRequest ToProto(const RangeRequest& req) {
  etcdserverpb::RangeRequest r;
  r.set_key(req.key);
  r.set_range_end(req.range_end);
  r.set_revision(req.revision);
  r.set_limit(req.limit);
  r.set_keys_only(req.keys_only);
  r.set_count_only(req.count_only);
  return r;
}

RangeResponse FromProto(const etcdserverpb::RangeResponse& resp, int64_t header_revision) {
  RangeResponse out;
  out.kvs.reserve(resp.kvs_size());
  for (const auto& kv : resp.kvs()) out.kvs.push_back(FromProto(kv));
  out.count = resp.count();
  out.more = resp.more();
  out.revision = header_revision;
  return out;
}

etcdserverpb::TxnRequest ToProto(const TxnRequest& req) {
  etcdserverpb::TxnRequest t;
  for (const auto& c : req.compare) {
    auto* pc = t.add_compare();
    pc->set_key(c.key);
    pc->set_target(TargetOf(c.target));
    pc->set_result(ResultOf(c.result));
    switch (c.target) {
      case Compare::Target::kVersion:
        pc->set_version(c.number);
        break;
      case Compare::Target::kCreateRevision:
        pc->set_create_revision(c.number);
        break;
      case Compare::Target::kModRevision:
        pc->set_mod_revision(c.number);
        break;
      case Compare::Target::kValue:
        pc->set_value(c.value);
        break;
      case Compare::Target::kLease:
        pc->set_lease(c.number);
        break;
    }
  }
  for (const auto& op : req.success) AddOp(op, t.add_success());
  for (const auto& op : req.failure) AddOp(op, t.add_failure());
  return t;
}

TxnResponse FromProto(const etcdserverpb::TxnResponse& resp) {
  TxnResponse out;
  out.succeeded = resp.succeeded();
  out.revision = resp.header().revision();
  out.responses.reserve(resp.responses_size());
  for (const auto& r : resp.responses()) {
    ResponseOp op;
    switch (r.response_case()) {
      case etcdserverpb::ResponseOp::kResponseRange:
        op.type = RequestOp::Type::kRange;
        op.range = FromProto(r.response_range(), out.revision);
        break;
      case etcdserverpb::ResponseOp::kResponsePut:
        op.type = RequestOp::Type::kPut;
        if (r.response_put().has_prev_kv()) op.put.prev_kv = FromProto(r.response_put().prev_kv());
        break;
      case etcdserverpb::ResponseOp::kResponseDeleteRange:
        op.type = RequestOp::Type::kDeleteRange;
        op.delete_range.deleted = r.response_delete_range().deleted();
        for (const auto& kv : r.response_delete_range().prev_kvs()) {
          op.delete_range.prev_kvs.push_back(FromProto(kv));
        }
        break;
      default:
        break;
    }
    out.responses.push_back(std::move(op));
  }
  return out;
}

WatchEvent FromProto(const mvccpb::Event& ev) {
  WatchEvent out;
  out.type = ev.type() == mvccpb::Event::DELETE ? WatchEvent::Type::kDelete : WatchEvent::Type::kPut;
  out.kv = FromProto(ev.kv());
  if (ev.has_prev_kv()) out.prev_kv = FromProto(ev.prev_kv());
  return out;
}

}  // namespace capstan::storage::etcd3
