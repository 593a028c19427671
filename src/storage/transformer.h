// storage/transformer.h: value transformers between the object bytes and what the Backend stores
// (encryption at rest). The storage key is authenticated data, so a value cannot be moved to another
// key. Thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "apimachinery/status.h"

namespace capstan::storage {

class Transformer {
 public:
  virtual ~Transformer() = default;
  virtual StatusOr<std::string> ToStorage(std::string_view data, std::string_view key) const = 0;
  // `stale` is set when the value was written with a key or provider that is no longer the first one
  // (it should be rewritten).
  virtual StatusOr<std::string> FromStorage(std::string_view stored, std::string_view key, bool* stale) const = 0;
  // Whether transforming a value under `key` that way may wait on another process (a KMS plugin whose
  // DEK is not cached): the store then transforms off the I/O thread (util/blocking_pool.h). `stored`:
  // the value to read (kFromStorage); empty for a write.
  enum class Direction { kToStorage, kFromStorage };
  virtual bool MayBlock(std::string_view key, Direction d, std::string_view stored) const { return false; }
  // Whether any value under `key` may be transformed by a provider that calls another process: the
  // store's batches (a list page, a watch response) then transform on the blocking pool in one hop,
  // without asking MayBlock of each value.
  virtual bool UsesPlugin(std::string_view key) const { return false; }
};

class IdentityTransformer : public Transformer {
 public:
  StatusOr<std::string> ToStorage(std::string_view data, std::string_view) const override { return std::string(data); }
  StatusOr<std::string> FromStorage(std::string_view stored, std::string_view, bool* stale) const override {
    if (stale) *stale = false;
    return std::string(stored);
  }
};

}  // namespace capstan::storage
