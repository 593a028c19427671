// controllers/informer.h: a list-and-watch cache of one resource (kube's reflector + informer), on
// the loop thread.
//
// Run() lists the collection (in pages), fills the cache, calls the handlers' on_add for every item
// and marks the informer synced; then it watches from the list's resourceVersion (with bookmarks)
// and keeps the cache and the handlers current. A watch that ends is re-opened from the last
// resourceVersion seen; a watch or list that fails with 410 Gone/Expired (the revision was
// compacted) or any other error re-lists after a backoff (800ms doubling to 30s, as kube's
// reflector), and the re-list is reconciled against the cache: new items are adds, changed ones
// updates, vanished ones deletes. Handlers are level-triggered hints: controllers look state up
// again when they process an item.
//
// metadata_only keeps apiVersion, kind and metadata (without managedFields) of each object, as the
// garbage collector's metadata informers do.
//
// Thread-safety: loop-thread only (construction, handlers, reads of the cache).
#pragma once

#include <coroutine>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "controllers/api_client.h"
#include "controllers/run_scope.h"

namespace capstan::controllers {

struct InformerOptions {
  Gvr gvr;
  std::string namespace_;  // "": all namespaces
  std::string field_selector;
  std::string label_selector;
  bool metadata_only = false;
  // apiVersion/kind to stamp on cached objects (from the resource's ResourceInfo).
  std::string api_version;
  std::string kind;
};

struct EventHandler {
  std::function<void(const Object& obj)> on_add;
  std::function<void(const Object& old_obj, const Object& obj)> on_update;
  std::function<void(const Object& obj)> on_delete;
};

class Informer {
 public:
  Informer(ApiClient& client, RunScope& scope, InformerOptions opts);
  ~Informer();
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  const InformerOptions& options() const { return opts_; }

  // A handler added after the first list sees the current items as adds at once. Returns an id for
  // RemoveHandler, after which the handler is not called again.
  size_t AddHandler(EventHandler h);
  void RemoveHandler(size_t id);
  // Starts the list/watch loop in the scope.
  void Run();
  // Ends the loop (the current watch is stopped); the cache stays readable.
  void Stop();

  bool HasSynced() const { return synced_; }
  // Resumes when the first list has been delivered, or false when the informer stopped first.
  Task<bool> WaitForSync();

  const Object* Get(const std::string& ns, const std::string& name) const;
  size_t Size() const { return cache_.size(); }
  template <class F>
  void ForEach(F f) const {
    for (const auto& [key, obj] : cache_) f(obj);
  }
  // Objects listed and events applied since Run (for tests and logs).
  uint64_t relists() const { return relists_; }

 private:
  Task<void> Loop();
  Task<Status> ListAndReplace();
  // Applies one watch event; false when the watch must be re-listed (an ERROR event).
  bool Apply(registry::WatchEvent& e, Status* error);
  Object Prepare(Object obj) const;
  static std::string KeyOf(const Object& obj);
  void NotifySynced();

  ApiClient& client_;
  RunScope& scope_;
  InformerOptions opts_;
  std::vector<EventHandler> handlers_;
  std::map<std::string, Object> cache_;  // "<namespace>/<name>" (or "<name>") → object
  std::string resource_version_;
  bool synced_ = false;
  bool stopped_ = false;
  bool running_ = false;
  uint64_t relists_ = 0;
  registry::WatchStream* watch_ = nullptr;  // the open watch, owned by Loop()
  std::vector<std::pair<std::coroutine_handle<>, bool*>> sync_waiters_;
};

}  // namespace capstan::controllers
