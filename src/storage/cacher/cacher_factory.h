// storage/cacher/cacher_factory.h: the watch cache flags (--watch-cache, --default-watch-cache-size,
// --watch-cache-sizes) and the factory that puts a Cacher in front of each resource's storage.
//
// A resource is cached unless --watch-cache=false, its --watch-cache-sizes entry is 0, or it has no
// entry and --default-watch-cache-size is 0. A positive size is the least number of changes its ring
// keeps (the ring grows by itself under load, as kube's does). Resources that share a key root (two
// versions of one resource) share one Cacher. The factory owns its Cachers; Ready() reports whether
// every one has completed its first list (the server's readiness).
//
// Store() is an ObjectStore that routes every call by key: writes and plain GETs go to the shared
// store, lists, watches and GETs with a resourceVersion to the Cacher of the key's root. Roots come
// from For() (which knows the resource's selectable fields); a list or watch under an unknown root
// (code that took the shared store directly) gets a Cacher for "<prefix>/<first segment>" on first
// use, whose field selectors other than metadata.name/namespace are matched on the parsed object.
// Thread-safe.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "storage/backend.h"
#include "storage/backend_object_store.h"
#include "storage/cacher/cacher.h"
#include "storage/cacher/cacher_metrics.h"
#include "util/metrics.h"

namespace capstan::storage {

struct WatchCacheFlags {
  bool enabled = true;                // --watch-cache
  int default_size = 100;             // --default-watch-cache-size
  std::map<std::string, int> sizes;   // --watch-cache-sizes, by "resource" or "resource.group"
  // Whether the backend's watch progress answers are in order (CacherConfig::progress_reliable);
  // null: reliable. cmd/storage_setup.h gives etcd's.
  std::function<bool()> progress_reliable;
};

// Parses --watch-cache-sizes values ("configmaps#100", "deployments.apps#0") with kube's errors:
//   invalid value of watch cache size: <v> / invalid size of watch cache size: <v> /
//   watch cache size cannot be negative: <v>
StatusOr<std::map<std::string, int>> ParseWatchCacheSizes(const std::vector<std::string>& values);

class CacherFactory {
 public:
  CacherFactory(WatchCacheFlags flags, Backend& backend, BackendObjectStore& store, MetricsRegistry* metrics,
                std::string prefix = "/registry");
  ~CacherFactory();
  CacherFactory(const CacherFactory&) = delete;
  CacherFactory& operator=(const CacherFactory&) = delete;

  // The store for a resource whose objects live under key_root ("/registry/configmaps"): its Cacher,
  // or the shared store when caching is off for it. `fields` gives an object's selectable fields.
  ObjectStore* For(const std::string& key_root, const std::string& group, const std::string& resource, FieldsFunc fields,
                   const apimachinery::JsonWriteOptions& json = {});
  // OK once every Cacher has completed its first list; else names those still listing.
  Status Ready() const;
  std::vector<Cacher*> cachers() const;
  // Routes each call to the Cacher of its key's resource (see above).
  ObjectStore& Store() { return *router_; }

 private:
  friend class CacheRouter;
  ObjectStore* Route(const std::string& key, bool create);
  ObjectStore* ForLocked(const std::string& key_root, const std::string& group, const std::string& resource,
                         FieldsFunc fields, const apimachinery::JsonWriteOptions& json);
  // The group resource a key belongs to, as kube labels storage metrics ("deployments.apps"); for a
  // root no resource registered, its first segment.
  std::string TypeOf(const std::string& key) const;

  WatchCacheFlags flags_;
  Backend& backend_;
  BackendObjectStore& store_;
  std::unique_ptr<CacherMetrics> metrics_;
  std::string prefix_;
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<Cacher>> by_root_;  // GUARDED_BY(mu_)
  std::map<std::string, bool> uncached_roots_;              // GUARDED_BY(mu_)
  std::map<std::string, std::string> types_;                // root -> group resource; GUARDED_BY(mu_)
  std::unique_ptr<ObjectStore> router_;
};

}  // namespace capstan::storage
