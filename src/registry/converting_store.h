// registry/converting_store.h: serves a resource in one API version while its objects are stored in
// another (kube's version conversion at the REST storage boundary): HorizontalPodAutoscalers served as
// autoscaling/v1 over the autoscaling/v2 store, custom resource versions, events.k8s.io/v1 over core
// Events.
//
// A ConvertingStore wraps the REST storage of the storage version and a VersionConverter. Objects go
// in through ToStorage (create bodies, the result of an update's or a patch's transform) and come out
// through FromStorage (get, list items, watch events, write results, deleted objects); an update's
// transform sees the current object in the served version, so PUT bodies and PATCH documents apply to
// what the client reads. Bookmarks carry the served apiVersion; Status objects pass through. Lists need
// nothing more: the endpoints name them after this storage's ResourceInfo (kind + "List" of the served
// version). Server-side printing uses the wrapped storage's columns on the converted-back object.
//
// WrapConverting picks the decorator that exposes exactly the wrapped storage's capabilities: the full
// ConvertingStore for a resource's Store, ConvertingSubresource (get/update/patch) for status-like
// subresources. A verb the wrapped storage lacks answers 405 MethodNotSupported.
//
// Thread-safety: immutable after construction; safe to call from any thread as the wrapped storage is.
#pragma once

#include <functional>
#include <memory>
#include <optional>

#include "registry/rest.h"

namespace capstan::registry {

// Converts whole objects (apiVersion and kind included) between the served and the storage version.
// Conversions may be asynchronous (a CRD conversion webhook). Implementations are thread-safe.
class VersionConverter {
 public:
  virtual ~VersionConverter() = default;
  // An object of the served version → the storage version.
  virtual Task<StatusOr<Object>> ToStorage(Object obj) const = 0;
  // A stored object → the served version.
  virtual Task<StatusOr<Object>> FromStorage(Object obj) const = 0;
  // For server-side printing, which cannot wait: the storage-version form of a served object when it
  // can be had at once; nullopt: the wrapped storage prints the served object as it is.
  virtual std::optional<Object> ToStorageNow(const Object& obj) const { return std::nullopt; }
  // The items of a list → the served version; one by one unless a converter does better (a CRD
  // conversion webhook converts a list in one call).
  virtual Task<StatusOr<std::vector<Object>>> FromStorageList(std::vector<Object> items) const;
};

// A converter from two synchronous functions (built-in kinds: pure JSON rewrites).
using ConvertFn = std::function<StatusOr<Object>(Object)>;
std::shared_ptr<const VersionConverter> MakeFunctionConverter(ConvertFn to_storage, ConvertFn from_storage);

// The decorator of a full resource storage (a Store): every verb, each converting.
class ConvertingStore : public Patcher,
                        public Lister,
                        public Watcher,
                        public Creater,
                        public GracefulDeleter,
                        public CollectionDeleter,
                        public TableConvertor,
                        public StorageVersionProvider {
 public:
  // `info` is the served resource (its version, kind and list kind); `inner` the storage of the
  // storage version.
  ConvertingStore(ResourceInfo info, std::shared_ptr<Storage> inner, std::shared_ptr<const VersionConverter> conv);

  const ResourceInfo& Info() const override { return info_; }
  Task<StatusOr<Object>> Get(const Context& ctx, const std::string& name, const GetOptions& opts) override;
  Task<StatusOr<ObjectList>> List(const Context& ctx, const ListOptions& opts) override;
  Task<StatusOr<std::unique_ptr<WatchStream>>> Watch(const Context& ctx, const ListOptions& opts) override;
  Task<StatusOr<Object>> Create(const Context& ctx, Object obj, const CreateOptions& opts) override;
  Task<StatusOr<UpdateOutcome>> Update(const Context& ctx, const std::string& name, ObjectTransform transform,
                                       const UpdateOptions& opts) override;
  Task<StatusOr<DeleteOutcome>> Delete(const Context& ctx, const std::string& name, const DeleteOptions& opts) override;
  Task<StatusOr<ObjectList>> DeleteCollection(const Context& ctx, const DeleteOptions& dopts,
                                              const ListOptions& lopts) override;
  std::vector<TableColumn> TableColumns() const override;
  boost::json::array TableCells(const Object& obj) const override;
  // The wrapped storage's: objects are stored in its version.
  std::optional<apimachinery::GroupVersionKind> StorageVersion() const override;

 private:
  Status NotSupported(std::string_view verb) const;

  ResourceInfo info_;
  std::shared_ptr<Storage> inner_;
  std::shared_ptr<const VersionConverter> conv_;
  // The wrapped storage's capabilities (null when absent), probed once.
  Getter* getter_ = nullptr;
  Lister* lister_ = nullptr;
  Watcher* watcher_ = nullptr;
  Creater* creater_ = nullptr;
  Updater* updater_ = nullptr;
  GracefulDeleter* deleter_ = nullptr;
  CollectionDeleter* collection_deleter_ = nullptr;
  TableConvertor* table_ = nullptr;
};

// The decorator of a get/update/patch subresource (status).
class ConvertingSubresource : public Patcher {
 public:
  ConvertingSubresource(ResourceInfo info, std::shared_ptr<Storage> inner,
                        std::shared_ptr<const VersionConverter> conv);
  const ResourceInfo& Info() const override { return info_; }
  Task<StatusOr<Object>> Get(const Context& ctx, const std::string& name, const GetOptions& opts) override;
  Task<StatusOr<UpdateOutcome>> Update(const Context& ctx, const std::string& name, ObjectTransform transform,
                                       const UpdateOptions& opts) override;

 private:
  ResourceInfo info_;
  std::shared_ptr<Storage> inner_;
  std::shared_ptr<const VersionConverter> conv_;
  Getter* getter_ = nullptr;
  Updater* updater_ = nullptr;
};

// The converting decorator matching `inner`'s capabilities (see the header comment).
std::shared_ptr<Storage> WrapConverting(ResourceInfo info, std::shared_ptr<Storage> inner,
                                        std::shared_ptr<const VersionConverter> conv);

// The shared conversion steps, for storages that convert in their own way.
// Converts an update's transform: it is handed the current object in the served version, and what it
// returns is converted to the storage version.
ObjectTransform ConvertTransform(ObjectTransform transform, std::shared_ptr<const VersionConverter> conv);
// Converts a result that may be a Status answer rather than an object (deletes).
Task<StatusOr<Object>> FromStorageUnlessStatus(const VersionConverter& conv, Object obj);

}  // namespace capstan::registry
