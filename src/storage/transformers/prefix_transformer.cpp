#include "storage/transformers/prefix_transformer.h"

#include <algorithm>

#include "util/strings.h"

namespace capstan::storage::transformers {
namespace {

class EncryptCheck : public Transformer {
 public:
  StatusOr<std::string> ToStorage(std::string_view data, std::string_view) const override { return std::string(data); }
  StatusOr<std::string> FromStorage(std::string_view stored, std::string_view, bool* stale) const override {
    if (stale) *stale = false;
    if (StartsWith(stored, "k8s:enc:")) {
      return Status(500, "InternalError", "identity transformer tried to read encrypted data");
    }
    return std::string(stored);
  }
};

}  // namespace

std::shared_ptr<const Transformer> EncryptCheckIdentity() {
  static const std::shared_ptr<const Transformer> kIdentity = std::make_shared<EncryptCheck>();
  return kIdentity;
}

namespace {

// A provider's own list of keys (aescbc, aesgcm, secretbox), whose prefixes follow the provider's.
const PrefixTransformers* KeysOf(const PrefixEntry& e) {
  return dynamic_cast<const PrefixTransformers*>(e.transformer.get());
}

}  // namespace

std::string PrefixTransformers::WriteLabel() const {
  const PrefixEntry& first = entries_.front();
  if (const auto* keys = KeysOf(first)) return first.prefix + keys->WriteLabel();
  return first.prefix;
}

std::string PrefixTransformers::ReadLabel(std::string_view stored) const {
  for (const PrefixEntry& e : entries_) {
    if (!StartsWith(stored, e.prefix)) continue;
    if (e.prefix.empty()) {
      if (StartsWith(stored, "k8s:enc:")) continue;  // identity refuses it; the next provider reads it
      return "identity";
    }
    if (const auto* keys = KeysOf(e)) {
      std::string key = keys->ReadLabel(stored.substr(e.prefix.size()));
      if (key != "unknown") return e.prefix + key;
      continue;
    }
    return e.prefix;
  }
  return "unknown";
}

bool PrefixTransformers::UsesPlugin(std::string_view key) const {
  return std::any_of(entries_.begin(), entries_.end(), [&](const PrefixEntry& e) { return e.transformer->UsesPlugin(key); });
}

bool PrefixTransformers::MayBlock(std::string_view key, Direction d, std::string_view stored) const {
  // A write uses the first provider; a read the providers whose prefix the value has.
  if (d == Direction::kToStorage) return entries_.front().transformer->MayBlock(key, d, stored);
  return std::any_of(entries_.begin(), entries_.end(), [&](const PrefixEntry& e) {
    return StartsWith(stored, e.prefix) && e.transformer->MayBlock(key, d, stored.substr(e.prefix.size()));
  });
}

StatusOr<std::string> PrefixTransformers::ToStorage(std::string_view data, std::string_view key) const {
  const PrefixEntry& first = entries_.front();
  auto out = first.transformer->ToStorage(data, key);
  if (!out.ok()) return out;
  if (first.prefix.empty()) return out;
  std::string prefixed;
  prefixed.reserve(first.prefix.size() + out->size());
  prefixed += first.prefix;
  prefixed += *out;
  return prefixed;
}

StatusOr<std::string> PrefixTransformers::FromStorage(std::string_view stored, std::string_view key,
                                                      bool* stale) const {
  std::vector<std::string> errors;
  for (size_t i = 0; i < entries_.size(); ++i) {
    const PrefixEntry& e = entries_[i];
    if (!StartsWith(stored, e.prefix)) continue;
    bool inner_stale = false;
    auto out = e.transformer->FromStorage(stored.substr(e.prefix.size()), key, &inner_stale);
    if (!out.ok()) {
      // An identity entry that refuses encrypted data lets the providers after it try.
      if (!e.prefix.empty()) errors.push_back(out.status().message());
      continue;
    }
    if (stale) *stale = inner_stale || i != 0;
    return out;
  }
  if (stale) *stale = false;
  if (errors.size() == 1) return Status(500, "InternalError", errors[0]);
  if (!errors.empty()) return Status(500, "InternalError", "[" + Join(errors, ", ") + "]");
  return Status(500, "InternalError", no_match_);
}

}  // namespace capstan::storage::transformers
