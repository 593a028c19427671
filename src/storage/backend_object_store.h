// storage/backend_object_store.h: kube's storage.Interface over a storage::Backend (what kube's etcd3
// store does over etcd): values under keys in kube's storage format (storage_codec.h, then the
// transformer), resourceVersion = mod_revision, CAS writes, paged
// lists, watches translated into ADDED/MODIFIED/DELETED with selector transitions, TTLs as leases.
// Thread-safe; the Backend and Transformer outlive it.
#pragma once

#include <mutex>

#include "storage/backend.h"
#include "storage/object_store.h"
#include "storage/storage_codec.h"
#include "storage/transformer.h"
#include "util/blocking_pool.h"

namespace capstan::storage {

class BackendObjectStore : public ObjectStore {
 public:
  // `codec` null: every value is JSON. The Backend, Transformer and codec outlive the store.
  explicit BackendObjectStore(Backend& backend, const Transformer* transformer = nullptr,
                              const StorageCodec* codec = nullptr);
  // --lease-reuse-duration-seconds (kube's default 60); set before the first write.
  void set_lease_reuse_duration_seconds(int64_t s) { lease_reuse_seconds_ = s; }

  Task<StatusOr<Object>> Create(const std::string& key, Object obj, int64_t ttl_seconds) override;
  Task<StatusOr<Object>> Get(const std::string& key, const GetOptions& opts) override;
  Task<StatusOr<ListResult>> GetList(const std::string& key, const ListOptions& opts) override;
  Task<StatusOr<Object>> GuaranteedUpdate(const std::string& key, const Preconditions& pre, bool ignore_not_found,
                                          UpdateFunc try_update) override;
  Task<StatusOr<Object>> Delete(const std::string& key, const Preconditions& pre, ValidateDeleteFunc validate) override;
  StatusOr<std::unique_ptr<ObjectWatch>> Watch(const std::string& key, const WatchOptions& opts) override;
  Task<StatusOr<int64_t>> CurrentRevision() override;

  // Encodes an object for storage (without resourceVersion) and back (with it). Exposed for the cacher.
  StatusOr<std::string> Encode(Object obj, const std::string& key) const;
  StatusOr<Object> Decode(std::string_view stored, const std::string& key, int64_t revision) const;

  // Whether reading `stored` under `key`, or writing under `key`, may call a KMS plugin.
  bool ReadMayBlock(std::string_view key, std::string_view stored) const {
    return transformer_->MayBlock(key, Transformer::Direction::kFromStorage, stored);
  }
  bool WriteMayBlock(std::string_view key) const {
    return transformer_->MayBlock(key, Transformer::Direction::kToStorage, {});
  }
  // Whether a batch of values under `key` (a list page, a watch response) is transformed off the I/O thread.
  bool BatchMayBlock(std::string_view key) const { return transformer_->UsesPlugin(key); }
  // Runs `step` (transformations) on the blocking pool when `may_block`, else right here.
  template <class F>
  static Task<std::invoke_result_t<F&>> Transforming(bool may_block, F step) {
    if (!may_block) co_return step();
    co_return co_await RunBlocking(std::move(step));
  }

 private:
  // The codec's bytes of an object (resourceVersion removed), before the transformer.
  StatusOr<std::string> EncodePlain(Object& obj, const std::string& key) const;
  // Decode, also giving the codec's bytes (after the transformer) and whether they are stale.
  StatusOr<Object> DecodeKeepingPlain(std::string_view stored, const std::string& key, int64_t revision,
                                      std::string* plain, bool* stale) const;

  Task<StatusOr<int64_t>> LeaseFor(int64_t ttl_seconds);

  Backend& backend_;
  const Transformer* transformer_;
  IdentityTransformer identity_;
  StorageCodec json_codec_{StorageMediaType::kJson, nullptr};
  const StorageCodec* codec_;
  std::mutex lease_mu_;
  int64_t lease_reuse_seconds_ = 60;
  int64_t lease_id_ = 0;                                  // GUARDED_BY(lease_mu_)
  int64_t lease_objects_ = 0;                             // GUARDED_BY(lease_mu_)
  std::chrono::steady_clock::time_point lease_expires_;  // GUARDED_BY(lease_mu_)
};

// Sets metadata.resourceVersion.
void SetResourceVersion(Object& obj, int64_t revision);

}  // namespace capstan::storage
