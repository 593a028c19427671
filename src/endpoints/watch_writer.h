// endpoints/watch_writer.h: the body of a WATCH response, written in batches.
//
// PumpWatch moves events from a registry::WatchStream to the response's chunked body. Every batch
// the stream hands out (everything pending for this watcher, see storage::CacheWatcher) is encoded
// into one buffer and sent with one WriteChunk, so one write call and, for batches up to 16 KiB, one
// TLS record carries many events; a batch larger than kWatchWriteBytes is split at event boundaries
// into writes of about that size. Events that carry the storage's shared serialized JSON are copied
// into the buffer as they are, never re-encoded per watcher.
//
// The frame of each event (a JSON line {"type":..,"object":..}\n, or a protobuf watch frame) is the
// encoder's business: AppendJsonWatchEvent writes kube's JSON line for an event; HandleWatch passes
// encoders for tables, partial metadata and protobuf. An ERROR event ends the stream after it is
// written.
//
// Thread-safety: PumpWatch runs on the request's coroutine; the stream and writer are used by it alone.
#pragma once

#include <functional>
#include <string>

#include "registry/rest.h"
#include "server/http/request_context.h"
#include "util/metrics.h"
#include "util/task.h"

namespace capstan::endpoints {

// A write is sent once its buffer holds this much (at an event boundary).
inline constexpr size_t kWatchWriteBytes = 64 << 10;

// Appends one event's frame to `out`.
using WatchEventEncoder = std::function<void(registry::WatchEvent& e, std::string& out)>;

// kube's JSON watch line: {"type":"<type>","object":<object>}\n, the object from e.json when set.
void AppendJsonWatchEvent(const registry::WatchEvent& e, std::string& out);

struct WatchPumpStats {
  size_t batches = 0;  // Next() results written
  size_t writes = 0;   // WriteChunk calls
  size_t events = 0;
};

// apiserver_watch_events_total and apiserver_watch_events_sizes {group, version, kind}: each event
// written to a watcher and the bytes of its frame, as kube's watch server counts them.
struct WatchEventMetrics {
  explicit WatchEventMetrics(MetricsRegistry& registry);
  CounterVec& events;
  HistogramVec& sizes;
};
struct WatchEventCounters {
  Counter* events = nullptr;
  Histogram* sizes = nullptr;
};

// Writes the stream's events until it ends, an ERROR event was written, or a write fails.
Task<WatchPumpStats> PumpWatch(registry::WatchStream& w, http::ResponseWriter& writer, const WatchEventEncoder& encode,
                               WatchEventCounters counters = {});

}  // namespace capstan::endpoints
