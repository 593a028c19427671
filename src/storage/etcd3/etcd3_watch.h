// storage/etcd3/etcd3_watch.h: a storage::Backend watch over etcd's bidirectional Watch stream.
//
// Each watch runs on a stream of its own (one gRPC call, one etcd watcher; the create request asks
// for prev_kv and progress_notify as the WatchRequest says, and for a leader, so a member cut off from
// its cluster ends the stream instead of going quiet). Responses are decoded on the completion thread
// and handed to the callback there, in revision order.
//
// Restarts: when the stream breaks (member down, leader lost, connection reset) the watch is created
// again, on whichever member answers, from the revision after the last one it delivered, with a
// backoff (EtcdOptions::watch_retry_min..max); the callback sees no gap and no repeat. It keeps trying
// until the handle is destroyed or the client shuts down (then it ends with kUnavailable). A start
// revision below etcd's compaction ends the watch with kCompacted carrying the compact revision.
// start_revision 0 ("changes from now") is pinned when the watch is made, to the revision after the
// newest one the client has seen, so that a write the caller makes after Watch() returns is never
// missed.
//
// Progress: periodic progress notifications (progress_notify) come through etcd's ordered event
// channel and are passed on as they are. RequestProgress() sends etcd a progress request; etcd from
// 3.4.31 and 3.5.13 answers it only after every earlier event, so its revision is passed on. Older
// etcd may answer ahead of events still queued (etcd issues 15220, 17507), so the answer is
// replaced by the newest revision this watch has proven delivered (its last event or ordered progress
// notification): always true, though it may not advance.
//
// Thread-safety: the handle may be used and destroyed from any thread; once its destructor returns,
// no callback runs.
#pragma once

#include <memory>

#include "storage/backend.h"
#include "storage/etcd3/etcd3_client.h"

namespace capstan::storage::etcd3 {

std::unique_ptr<WatchHandle> StartWatch(std::shared_ptr<EtcdClient> client, WatchRequest req, WatchCallback cb);

}  // namespace capstan::storage::etcd3
