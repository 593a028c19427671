// storage/transformers/prefix_transformer.h: kube's prefixTransformers: an ordered list of
// (prefix, transformer) pairs. Writing uses the first entry and prepends its prefix; reading tries
// every entry whose prefix the stored value starts with, in order, and reports `stale` when the one
// that worked is not the first (the value should be rewritten with the current key). An entry that
// fails does not stop the search (two providers may share a prefix while a key is rotated); when none
// works the errors are reported together, and when no prefix matches, `no_match`.
//
// The identity provider is an entry with an empty prefix whose transformer refuses values that start
// with "k8s:enc:" (kube's encrypt-check identity), so encrypted data is never served as plain text.
//
// Errors are Status(500, "InternalError", reason) with kube's reason text; the caller adds context.
// Thread-safe (immutable after construction).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "storage/transformer.h"

namespace capstan::storage::transformers {

struct PrefixEntry {
  std::string prefix;
  std::shared_ptr<const Transformer> transformer;
};

class PrefixTransformers : public Transformer {
 public:
  PrefixTransformers(std::vector<PrefixEntry> entries, std::string no_match)
      : entries_(std::move(entries)), no_match_(std::move(no_match)) {}
  StatusOr<std::string> ToStorage(std::string_view data, std::string_view key) const override;
  StatusOr<std::string> FromStorage(std::string_view stored, std::string_view key, bool* stale) const override;
  bool MayBlock(std::string_view key, Direction d, std::string_view stored) const override;
  bool UsesPlugin(std::string_view key) const override;

  // kube's transformer_prefix label (transformation_metrics.h) of a write: the first provider's whole
  // prefix ("" for identity, as kube's); and of a read of `stored`: the whole prefix of the first
  // provider it matches, "identity" for a plain value, "unknown" when none matches.
  std::string WriteLabel() const;
  std::string ReadLabel(std::string_view stored) const;

 private:
  std::vector<PrefixEntry> entries_;
  std::string no_match_;
};

// kube's identity provider: values as they are; reading a "k8s:enc:" value fails with
// "identity transformer tried to read encrypted data".
std::shared_ptr<const Transformer> EncryptCheckIdentity();

}  // namespace capstan::storage::transformers
