// storage/object_store.h: storage::ObjectStore, kube's storage.Interface: objects (JSON documents) by
// key, with resourceVersion semantics, optimistic concurrency, lists with selectors and paging, and
// watches.
//
// Two implementations share this interface: BackendObjectStore (over any storage::Backend) and
// Cacher (the watch cache, a decorator). Objects travel as boost::json::object with
// metadata.resourceVersion set from the store's revision; what is written to the Backend never
// carries a resourceVersion. Errors are Status values: storage conditions carry a StorageCode
// (kKeyNotFound, kKeyExists, kConflict, ...) that the registry turns into API errors; a few errors
// kube's storage already words for clients (bad continue tokens, too large resource versions, expired
// lists) are complete API Statuses. Thread-safe.
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apimachinery/fields.h"
#include "apimachinery/labels.h"
#include "apimachinery/status.h"
#include "util/task.h"

namespace capstan::storage {

using Object = boost::json::object;

struct Preconditions {
  std::optional<std::string> uid;
  std::optional<std::string> resource_version;
};

enum class ResourceVersionMatch { kUnset, kNotOlderThan, kExact };

struct GetOptions {
  std::string resource_version;  // "": the latest; else the result is at least this recent
  bool ignore_not_found = false;  // then a missing key yields an empty object
};

// Decides whether an object belongs in a result (label/field selectors). Null: everything.
using Predicate = std::function<bool(const Object&)>;

// The label and field selectors a Predicate was built from, for stores that filter without parsing
// the object: the watch cache keeps each object's labels and selectable fields and matches these on
// them. When given, it must select exactly what the Predicate selects.
struct Selection {
  apimachinery::LabelSelector labels;
  apimachinery::FieldSelector fields;
};

// An object serialized once, as JSON with metadata.resourceVersion in place; immutable, and shared by
// every response that carries it (the watch cache hands these out instead of parsed objects).
using SerializedObject = std::shared_ptr<const std::string>;

// Other encodings of a serialized object, each made once and then shared by everyone who asks for
// the same form: the watch cache keeps them with its objects, so an event sent to a thousand
// protobuf watchers is encoded once, not a thousand times. `form` names the encoding and everything
// it depends on (e.g. "protobuf apps/v1 Deployment"); `encode` makes it from the object's JSON and
// returns nullopt when it cannot (nothing is kept then). Thread-safe; the result is immutable.
class EncodingMemo {
 public:
  using Encode = std::function<std::optional<std::string>(std::string_view json)>;
  virtual ~EncodingMemo() = default;
  virtual SerializedObject Encoded(std::string_view form, const Encode& encode) const = 0;
};

struct ListOptions {
  std::string resource_version;
  ResourceVersionMatch match = ResourceVersionMatch::kUnset;
  Predicate predicate;
  bool predicate_empty = true;  // no selector at all (remainingItemCount is then exact)
  int64_t limit = 0;
  std::string continue_token;
  bool recursive = true;  // key is a prefix (a list) rather than one object
  std::shared_ptr<const Selection> selection;  // optional: the selectors behind `predicate`
  // The caller writes pre-serialized items as they are: a store may then fill
  // ListResult::serialized instead of items.
  bool accept_serialized = false;
};

struct ListResult {
  std::vector<Object> items;
  std::vector<SerializedObject> serialized;  // instead of items (only when accept_serialized)
  int64_t revision = 0;
  std::string continue_token;
  std::optional<int64_t> remaining_item_count;
};

struct WatchOptions {
  std::string resource_version;  // "" or "0": the current state as ADDED events, then changes
  Predicate predicate;
  bool recursive = true;
  bool progress_notify = false;  // periodic BOOKMARKs
  std::shared_ptr<const Selection> selection;  // optional: the selectors behind `predicate`
  bool accept_serialized = false;  // events may carry `serialized` instead of `object`
  // sendInitialEvents: true sends the state as ADDED events first (then, with progress_notify, a
  // BOOKMARK annotated k8s.io/initial-events-end); false only changes after the start. Unset: kube's
  // legacy rule ("" and "0" start with the state).
  std::optional<bool> send_initial_events;
  std::chrono::seconds timeout{0};  // > 0: the watch ends then; a bookmark goes out shortly before
};

struct ObjectEvent {
  enum class Type { kAdded, kModified, kDeleted, kBookmark, kError };
  Type type = Type::kAdded;
  Object object;   // for kDeleted: the last state, with the deletion's resourceVersion
  Status error;    // for kError
  int64_t revision = 0;
  // With accept_serialized, ADDED/MODIFIED/DELETED may carry the object's JSON here instead of in
  // `object` (which is then empty).
  SerializedObject serialized;
  std::shared_ptr<const EncodingMemo> encodings;  // with `serialized`, when the store keeps encodings
};

class ObjectWatch {
 public:
  virtual ~ObjectWatch() = default;
  // The next batch of events, in order. Empty: the watch has ended (its last event may be kError).
  virtual Task<std::vector<ObjectEvent>> Next() = 0;
  // Ends the watch; a pending Next() returns empty. Safe from any thread.
  virtual void Stop() = 0;
};

struct UpdateResult {
  Object object;
  int64_t ttl_seconds = 0;
};
// Computes the new object from the existing one (null when the key is missing and ignore_not_found).
using UpdateFunc = std::function<Task<StatusOr<UpdateResult>>(const Object* existing)>;
// Checks that the existing object may be deleted (e.g. admission); called with the latest state.
using ValidateDeleteFunc = std::function<Task<Status>(const Object& existing)>;

class ObjectStore {
 public:
  virtual ~ObjectStore() = default;

  virtual Task<StatusOr<Object>> Create(const std::string& key, Object obj, int64_t ttl_seconds) = 0;
  virtual Task<StatusOr<Object>> Get(const std::string& key, const GetOptions& opts) = 0;
  virtual Task<StatusOr<ListResult>> GetList(const std::string& key, const ListOptions& opts) = 0;
  // Reads, applies try_update, and writes with a compare on the read revision, retrying on conflict.
  // A result identical to the existing object is not written.
  virtual Task<StatusOr<Object>> GuaranteedUpdate(const std::string& key, const Preconditions& pre,
                                                  bool ignore_not_found, UpdateFunc try_update) = 0;
  virtual Task<StatusOr<Object>> Delete(const std::string& key, const Preconditions& pre,
                                        ValidateDeleteFunc validate) = 0;
  virtual StatusOr<std::unique_ptr<ObjectWatch>> Watch(const std::string& key, const WatchOptions& opts) = 0;
  // The store's current revision (for consistent reads and list resourceVersions).
  virtual Task<StatusOr<int64_t>> CurrentRevision() = 0;
};

// resourceVersion text → revision ("" → 0). Malformed: 400 "invalid resource version: ...".
StatusOr<int64_t> ParseResourceVersion(const std::string& rv);
// kube's 504 for a resourceVersion newer than the store has seen.
Status TooLargeResourceVersionStatus(int64_t requested, int64_t current);

}  // namespace capstan::storage
