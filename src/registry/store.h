// registry/store.h: the generic Store (kube's genericregistry.Store): every verb for one resource over a
// storage::ObjectStore, with the ObjectMeta rules common to all resources and the resource's Strategy.
//
// Create: namespace and generateName handling, uid and creationTimestamp, strategy preparation and
// validation (422 with field causes), admission, storage create (409 AlreadyExists; a generateName
// collision is retried with a new name). Update: optimistic concurrency (409 Conflict on a stale
// resourceVersion), create-on-update where allowed, immutable ObjectMeta fields, the strategy's
// update rules, admission; a no-op update writes nothing. Delete: preconditions, finalizers and
// propagation policy (objects with finalizers get deletionTimestamp and stay until they are removed),
// graceful deletion where the strategy asks for it. List/Watch: label and field selectors, paging,
// resourceVersion semantics. dryRun=All runs everything but the write. Storage errors are translated
// here, once, into API errors naming the resource. Thread-safe.
#pragma once

#include <memory>
#include <string>

#include "apimachinery/schema.h"
#include "registry/admission_hook.h"
#include "registry/rest.h"
#include "registry/strategy.h"
#include "storage/object_store.h"
#include "util/clock.h"

namespace capstan::registry {

struct StoreConfig {
  ResourceInfo info;
  const Strategy* strategy = nullptr;
  storage::ObjectStore* storage = nullptr;
  // Where objects live: "/registry/configmaps" → "/registry/configmaps/<ns>/<name>".
  std::string key_root;
  AdmissionHook* admission = nullptr;
  // DELETE answers with the deleted object rather than a Status (kube's ReturnDeletedObject).
  bool return_deleted_object = false;
  const Clock* clock = &RealClock::Get();
  // The kind's schema; with normalize_as_go, objects are written as kube's Go types would write them
  // back (zero values materialized, omitempty fields dropped). Built-in kinds only.
  const apimachinery::Schema* schema = nullptr;
  bool normalize_as_go = false;
};

class Store : public Patcher,
              public Lister,
              public Watcher,
              public Creater,
              public GracefulDeleter,
              public CollectionDeleter,
              public TableConvertor,
              public StorageVersionProvider {
 public:
  explicit Store(StoreConfig config) : c_(std::move(config)) {}

  const ResourceInfo& Info() const override { return c_.info; }
  // Objects are stored in the version this Store serves; a Store behind a subresource names none.
  std::optional<apimachinery::GroupVersionKind> StorageVersion() const override;
  const StoreConfig& config() const { return c_; }

  Task<StatusOr<Object>> Get(const Context& ctx, const std::string& name, const GetOptions& opts) override;
  Task<StatusOr<ObjectList>> List(const Context& ctx, const ListOptions& opts) override;
  Task<StatusOr<std::unique_ptr<WatchStream>>> Watch(const Context& ctx, const ListOptions& opts) override;
  Task<StatusOr<Object>> Create(const Context& ctx, Object obj, const CreateOptions& opts) override;
  Task<StatusOr<UpdateOutcome>> Update(const Context& ctx, const std::string& name, ObjectTransform transform,
                                       const UpdateOptions& opts) override;
  Task<StatusOr<DeleteOutcome>> Delete(const Context& ctx, const std::string& name, const DeleteOptions& opts) override;
  Task<StatusOr<ObjectList>> DeleteCollection(const Context& ctx, const DeleteOptions& dopts,
                                              const ListOptions& lopts) override;

  std::vector<TableColumn> TableColumns() const override { return c_.strategy->TableColumns(); }
  boost::json::array TableCells(const Object& obj) const override { return c_.strategy->TableCells(obj); }

  // The storage key of an object, or 400 for a bad name / missing namespace.
  StatusOr<std::string> KeyFor(const Context& ctx, const std::string& name) const;
  // The key prefix of a list (one namespace, or all).
  std::string ListKey(const Context& ctx) const;
  // The storage predicate for the selectors in `opts` (400 on bad selectors or unsupported fields),
  // and, when asked, the parsed selectors behind it (the watch cache matches them without the object).
  StatusOr<storage::Predicate> PredicateFor(const ListOptions& opts, bool* empty,
                                            std::shared_ptr<const storage::Selection>* selection = nullptr) const;
  // Storage errors → API errors naming this resource.
  // A storage error as kube's storeerr.Interpret*Error gives it for `verb` (get, list, watch, create,
  // update, delete): not found, already exists, conflict, server timeout, ...
  Status Translate(const Status& st, const std::string& name, const char* verb) const;

 protected:
  // Prepares and validates a new object (kube's rest.BeforeCreate).
  Status BeforeCreate(const Context& ctx, Object& obj) const;
  // Prepares and validates an updated object against the stored one (kube's rest.BeforeUpdate).
  Status BeforeUpdate(const Context& ctx, Object& obj, const Object& old) const;
  Task<Status> AdmitMutating(const Context& ctx, const std::string& op, Object& obj, const Object* old,
                             const std::string& name) const;
  Task<Status> AdmitValidating(const Context& ctx, const std::string& op, Object& obj, const Object* old,
                               const std::string& name) const;
  // Completes a deletion whose finalizers have all been removed by an update.
  Task<StatusOr<Object>> DeleteIfFinalized(const std::string& key, Object obj) const;
  std::string Now() const;
  void Normalize(Object& obj) const;

  StoreConfig c_;
};

}  // namespace capstan::registry
