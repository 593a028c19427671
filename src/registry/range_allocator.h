// registry/range_allocator.h: a set of allocated offsets [0, size) kept in storage, so that every
// server process on one store (replicas, restarts) sees the same allocations: kube's
// allocator/storage.Etcd. The set is one core/v1 RangeAllocation object under `key`
// ({"range": "<text>", "data": "<base64 bitmap>"}, bit i of the big-endian integer = offset i, as
// kube writes it), and every change is a compare-and-swap on that object, so two allocators never
// hand out the same offset.
//
// The object is created on first use from `in_use` (what the objects holding offsets say is taken,
// e.g. the stored Services' ClusterIPs), and rebuilt that way when its range text differs from this
// allocator's (the flag changed). On first use per process, offsets that `in_use` reports but the
// bitmap lacks are added (never removed: an allocation whose object is not stored yet would look like
// a leak), using the store revision `in_use` was read at to avoid resurrecting a concurrent release.
//
// Automatic choices start at a random offset of the dynamic band [dynamic_offset, size) and fall back
// to the static band, as kube's allocators do. Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "apimachinery/status.h"
#include "storage/object_store.h"
#include "util/task.h"

namespace capstan::registry {

class RangeAllocator {
 public:
  struct InUse {
    std::vector<int64_t> offsets;
    int64_t revision = 0;  // the store revision the answer is current at
  };
  using InUseFunc = std::function<Task<StatusOr<InUse>>()>;

  RangeAllocator(storage::ObjectStore& store, std::string key, std::string range_text, int64_t size,
                 int64_t dynamic_offset, InUseFunc in_use);
  RangeAllocator(const RangeAllocator&) = delete;
  RangeAllocator& operator=(const RangeAllocator&) = delete;

  struct Request {
    std::vector<int64_t> specific;  // offsets that must be free (all or nothing)
    int count = 0;                  // and this many more, chosen by the allocator
    bool dry_run = false;           // decide, write nothing
  };
  struct Result {
    std::vector<int64_t> chosen;    // the `count` offsets picked
    int conflict_index = -1;        // >= 0: specific[conflict_index] is taken; nothing was allocated
    bool full = false;              // not enough free offsets; nothing was allocated
  };
  // Allocates `specific` and `count` more in one compare-and-swap.
  Task<StatusOr<Result>> Allocate(Request r);
  // Frees offsets (ones already free are ignored).
  Task<Status> Release(std::vector<int64_t> offsets);
  // The allocated offsets, sorted (initializes the object if missing).
  Task<StatusOr<std::vector<int64_t>>> Allocated();

  int64_t size() const { return size_; }
  const std::string& key() const { return key_; }

  // The bitmap encoding, exposed for tests: kube's big.Int bytes (big-endian, no leading zeros).
  static std::string EncodeBitmap(const std::vector<bool>& bits);
  static std::vector<bool> DecodeBitmap(std::string_view bytes, int64_t size);

 private:
  Task<Status> RepairOnce();
  storage::Object MakeObject(const std::vector<bool>& bits) const;
  // The bitmap in `obj` when it belongs to this range; nullopt otherwise.
  std::optional<std::vector<bool>> BitsOf(const storage::Object* obj) const;
  Task<StatusOr<std::vector<bool>>> Initial();

  storage::ObjectStore& store_;
  const std::string key_;
  const std::string range_text_;
  const int64_t size_;
  const int64_t dynamic_offset_;
  InUseFunc in_use_;
  std::atomic<bool> repaired_{false};
};

}  // namespace capstan::registry
