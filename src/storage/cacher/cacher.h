// storage/cacher/cacher.h: storage::Cacher, the watch cache of one resource: an ObjectStore decorator
// that answers LIST and WATCH (and GET with a resourceVersion) from memory, as kube's Cacher does.
//
// One storage watch on the resource's key prefix feeds a WatchCache (the latest version of every
// object, serialized once with its resourceVersion in place, and a ring of recent changes). Writes and
// reads the cache cannot answer go to the decorated store:
//  - LIST: resourceVersion "" is a consistent read (the cache waits, at most fresh_timeout, until it
//    has seen the store's current revision, asking the storage watch for a progress notification;
//    then the store answers; when the storage cannot answer progress requests in order (etcd before
//    3.4.31/3.5.13, see progress_reliable) the store answers at once, as kube delegates such reads);
//    "0" and NotOlderThan are served at the cache's revision once it is at
//    least the one asked for; Exact and continue tokens are served at their revision while the ring
//    still holds it (the latest state with the newer changes undone), else by the store (which has
//    the data or says 410 Expired). Label, field and namespace filtering happens in memory on each
//    object's kept labels and fields; limit/continue page a consistent snapshot. A revision newer than
//    the store's goes to the store, which answers kube's 504.
//  - WATCH: from "" / "0" (the state as ADDED events, then changes), from any revision the ring holds
//    (older: an ERROR 410 "too old resource version"), or with sendInitialEvents (state, then a
//    BOOKMARK annotated k8s.io/initial-events-end; from "" on a backend without in-order progress
//    answers, the state is the store's at its current revision, as kube's etcd3 watcher serves it). Selector transitions become ADDED/DELETED, periodic
//    BOOKMARKs go to watchers that allow them (and one shortly before their timeout), and a watcher
//    that falls too far behind is ended after what it holds (see cache_watcher.h).
//  - GET: "" goes to the store; any other resourceVersion is served from the cache once fresh enough.
// Until the first list has completed the Cacher is not Ready() and passes everything to the store.
// When the storage watch fails the Cacher resumes it from the last revision it saw; when that is
// compacted it re-lists and turns the difference into events for its watchers, so none loses or
// repeats a change. Results of cached reads are the objects' shared JSON when the caller accepts it
// (accept_serialized), else parsed objects.
//
// Thread-safety: every method is safe from any thread. A Cacher's reflector (list and watch control)
// is a coroutine on one thread all watch caches share, and a periodic tick (bookmarks, deadlines)
// runs on the timer thread; its storage watch callbacks run on the backend's threads. Destroying it
// ends its watchers and waits for its reflector to end (never destroy one on the reflector thread);
// the Backend and store must outlive it.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "apimachinery/json_write.h"
#include "storage/backend.h"
#include "storage/cacher/cached_object.h"
#include "storage/object_store.h"
#include "util/clock.h"

namespace capstan::storage {

struct CacherMetrics;
struct CacherCore;

struct CacherConfig {
  std::string resource_prefix;  // "/registry/configmaps": every key this cache holds starts with it + "/"
  std::string group;            // for metrics and logs ("" for the core group)
  std::string resource;
  ObjectStore* storage = nullptr;  // the decorated store: writes, uncached reads, fallbacks
  Backend* backend = nullptr;      // the cache lists and watches it directly
  // Decodes a stored value into an object (BackendObjectStore::Decode).
  std::function<StatusOr<Object>(std::string_view stored, const std::string& key, int64_t revision)> decode;
  FieldsFunc fields;                    // selectable fields; null: metadata.name and metadata.namespace
  apimachinery::JsonWriteOptions json;  // how objects are written (custom resources sort keys)

  size_t capacity = 100;  // the least number of changes the ring keeps
  size_t max_capacity = 100 * 1024;
  std::chrono::seconds event_fresh{75};     // the ring grows to keep changes this recent
  size_t max_pending_events = 10000;        // per watcher; beyond it the watcher is ended
  // The batch window (see watch_batcher.h): a watcher that emptied its queue less than a window ago
  // lets what follows collect until the window has passed, so a stream of changes reaches it as one
  // write per window (several events per TLS record and send) instead of one write per event. The
  // window is watch_batch_window_per_watcher times this cache's open watches, at most
  // watch_batch_window (1000 watchers: 100 ms; 10 watchers: 1 ms). The first event after a quiet
  // spell and a backlog are not delayed. A max of 0 turns batching off.
  std::chrono::milliseconds watch_batch_window{100};
  std::chrono::microseconds watch_batch_window_per_watcher{100};
  std::chrono::milliseconds fresh_timeout{3000};
  // Whether the storage watch's progress requests prove the store's current revision (etcd from
  // 3.4.31/3.5.13; the embedded store). When it returns false a consistent read the cache is not
  // already fresh for goes to the store at once instead of waiting fresh_timeout for a progress
  // answer that cannot come. Null: reliable. Called per read; must be cheap and thread-safe.
  std::function<bool()> progress_reliable;
  std::chrono::milliseconds bookmark_frequency{60000};
  std::chrono::milliseconds tick{1000};     // period of bookmarks/deadline checks; 0: only Tick()
  int64_t list_page_size = 10000;
  std::chrono::milliseconds max_retry_delay{5000};
  CacherMetrics* metrics = nullptr;
  const Clock* clock = &RealClock::Get();
};

class Cacher : public ObjectStore {
 public:
  // Starts listing at once; Ready() once the first list is in.
  explicit Cacher(CacherConfig config);
  ~Cacher() override;
  Cacher(const Cacher&) = delete;
  Cacher& operator=(const Cacher&) = delete;

  Task<StatusOr<Object>> Create(const std::string& key, Object obj, int64_t ttl_seconds) override;
  Task<StatusOr<Object>> Get(const std::string& key, const GetOptions& opts) override;
  Task<StatusOr<ListResult>> GetList(const std::string& key, const ListOptions& opts) override;
  Task<StatusOr<Object>> GuaranteedUpdate(const std::string& key, const Preconditions& pre, bool ignore_not_found,
                                          UpdateFunc try_update) override;
  Task<StatusOr<Object>> Delete(const std::string& key, const Preconditions& pre, ValidateDeleteFunc validate) override;
  StatusOr<std::unique_ptr<ObjectWatch>> Watch(const std::string& key, const WatchOptions& opts) override;
  Task<StatusOr<int64_t>> CurrentRevision() override;

  bool Ready() const;
  // Blocks until Ready() or the timeout (start-up code and tests).
  bool WaitReady(std::chrono::milliseconds timeout) const;
  const std::string& resource_prefix() const;
  const std::string& group() const;
  const std::string& resource() const;

  struct Stats {
    size_t objects = 0;
    int64_t revision = 0;
    int64_t oldest_servable = 0;
    size_t capacity = 0;
    size_t events_held = 0;
    size_t watchers = 0;
    size_t object_bytes = 0;  // the latest versions and their index
    int64_t lists = 0;        // completed storage lists (1 + re-lists)
    int64_t watchers_terminated = 0;
  };
  Stats GetStats() const;

  // Runs the periodic work now: due bookmarks, watchers past their timeout.
  void Tick();
  // Wakes now the watchers waiting out their batch window (the batcher's timer does it each window).
  void FlushWatchBatches();
  // Ends the storage watch as if it had failed with `error` (tests of resume and re-list).
  void FailStorageWatchForTest(Status error);

 private:
  std::shared_ptr<CacherCore> core_;
};

}  // namespace capstan::storage
