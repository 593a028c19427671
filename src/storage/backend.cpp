#include "storage/backend.h"

namespace capstan::storage {

std::string PrefixEnd(const std::string& prefix) {
  std::string end = prefix;
  while (!end.empty()) {
    unsigned char c = static_cast<unsigned char>(end.back());
    if (c < 0xff) {
      end.back() = static_cast<char>(c + 1);
      return end;
    }
    end.pop_back();
  }
  // Every byte was 0xff (or the prefix was empty): the range runs to the end of the keyspace.
  return std::string(1, '\0');
}

Task<StatusOr<TxnResponse>> Backend::Put(std::string key, std::string value, int64_t lease) {
  TxnRequest req;
  req.success.push_back(RequestOp::Put(std::move(key), std::move(value), lease));
  co_return co_await Txn(std::move(req));
}

Task<StatusOr<TxnResponse>> Backend::Delete(std::string key) {
  TxnRequest req;
  req.success.push_back(RequestOp::Delete(std::move(key)));
  co_return co_await Txn(std::move(req));
}

Task<StatusOr<std::optional<KeyValue>>> Backend::Get(std::string key, int64_t revision) {
  RangeRequest req;
  req.key = std::move(key);
  req.revision = revision;
  auto resp = co_await Range(std::move(req));
  if (!resp.ok()) co_return resp.TakeStatus();
  if (resp->kvs.empty()) co_return std::optional<KeyValue>();
  co_return std::optional<KeyValue>(std::move(resp->kvs.front()));
}

}  // namespace capstan::storage
