// storage/cacher/cached_object.h: what the watch cache keeps per object version and per change.
//
// A CachedObject is one version of one object as the cache serves it: its storage key, its JSON with
// metadata.resourceVersion already in place (written once, then shared by every LIST response and
// every watcher that carries it), its revision, and its labels and selectable fields packed into one
// small string so that label and field selectors are matched without parsing the JSON. Nothing else
// is kept: the parsed object is not, so a cached object costs little more than its JSON.
//
// A CachedEvent is one change of one object: the version after it (for a deletion, the last state
// stamped with the deletion's revision), the version before it, and, when labels or fields changed,
// the previous version stamped with the event's revision (what a watcher whose selector the object
// leaves receives as DELETED).
//
// Both are immutable once built and are shared across threads through shared_ptr<const ...>.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "apimachinery/fields.h"
#include "apimachinery/json_write.h"
#include "storage/object_store.h"

namespace capstan::storage {

// An object's selectable fields (kube's GetAttrs; the registry passes its strategy's).
using FieldsFunc = std::function<apimachinery::FieldSet(const Object&)>;

class CachedObject;
using CachedObjectPtr = std::shared_ptr<const CachedObject>;

class CachedObject : public EncodingMemo {
 public:
  // Builds the cached form of `obj` at `revision` (a resourceVersion already in obj is replaced).
  // `rest_offset` is where the part after the resource prefix starts in key ("<ns>/<name>" or
  // "<name>"). A null `fields` means metadata.name and metadata.namespace only.
  static CachedObjectPtr Make(std::string key, size_t rest_offset, Object obj, int64_t revision,
                              const FieldsFunc& fields, const apimachinery::JsonWriteOptions& write);

  // The same object at another revision: only metadata.resourceVersion differs.
  CachedObjectPtr AtRevision(int64_t revision) const;

  const std::string& key() const { return key_; }
  const std::string& json() const { return json_; }
  int64_t revision() const { return revision_; }
  // The JSON as a shared string that keeps this object alive (no copy).
  SerializedObject Serialized(const CachedObjectPtr& self) const { return SerializedObject(self, &self->json_); }
  // Parses the JSON (for callers that need the object itself).
  Object Parse() const;
  // EncodingMemo: other encodings of this version, kept with it (a short list, one per form asked for).
  SerializedObject Encoded(std::string_view form, const Encode& encode) const override;

  // From the key: the object's name and namespace ("" for cluster-scoped objects).
  std::string_view name() const;
  std::string_view namespace_() const;

  std::optional<std::string_view> Label(std::string_view key) const;
  // A selectable field's value; "" when the object has no such field (as kube reads it).
  std::string_view Field(std::string_view field) const;
  bool Matches(const Selection& sel) const;
  // Same labels and selectable fields (so no selector can tell the two versions apart).
  bool SameAttributes(const CachedObject& o) const { return attrs_ == o.attrs_; }

  // Heap bytes this version holds (its strings and itself), for the cache's memory figures.
  size_t MemoryBytes() const;

  // Use Make.
  CachedObject() = default;

 private:
  std::string key_;
  std::string json_;
  // Labels, then the selectable fields not implied by the key, each as varint-length-prefixed
  // strings: [n] ([klen] k [vlen] v)* [m] ([flen] f [vlen] v)*.
  std::string attrs_;
  int64_t revision_ = 0;
  uint32_t rv_offset_ = 0;  // where the resourceVersion digits are in json_ (rv_len_ 0: unknown)
  uint16_t rv_len_ = 0;
  uint16_t rest_offset_ = 0;
  bool sort_keys_ = false;
  struct EncodedForm {
    std::string form;
    SerializedObject bytes;
    std::shared_ptr<const EncodedForm> next;
  };
  mutable std::shared_ptr<const EncodedForm> encoded_;  // read and published with std::atomic_* only
};

struct CachedEvent;
using CachedEventPtr = std::shared_ptr<const CachedEvent>;

struct CachedEvent {
  enum class Type { kAdded, kModified, kDeleted };
  Type type = Type::kAdded;
  int64_t revision = 0;
  CachedObjectPtr object;            // after the change; for kDeleted the last state at `revision`
  CachedObjectPtr prev;              // before the change (null for kAdded)
  CachedObjectPtr prev_at_revision;  // prev at `revision`, when labels or fields changed (kModified)
};

// Builds the event for a change from `prev` (null: none) to `next` (null: deleted at `revision`).
CachedEventPtr MakeCachedEvent(CachedObjectPtr prev, CachedObjectPtr next, int64_t revision);

}  // namespace capstan::storage
