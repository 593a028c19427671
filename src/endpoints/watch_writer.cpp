#include "endpoints/watch_writer.h"

#include "apimachinery/json_write.h"

namespace capstan::endpoints {

namespace am = capstan::apimachinery;

void AppendJsonWatchEvent(const registry::WatchEvent& e, std::string& out) {
  out += "{\"type\":";
  am::AppendJsonString(out, e.type);
  out += ",\"object\":";
  if (e.json) {
    out += *e.json;
  } else {
    am::AppendJson(out, e.object);
  }
  out += "}\n";
}

WatchEventMetrics::WatchEventMetrics(MetricsRegistry& registry)
    : events(registry.NewCounterVec("apiserver_watch_events_total", "Number of events sent in watch clients",
                                    {"group", "version", "kind"})),
      sizes(registry.NewHistogramVec("apiserver_watch_events_sizes", "Watch event size distribution in bytes",
                                     {"group", "version", "kind"}, ExponentialBuckets(1024, 2, 8))) {}

Task<WatchPumpStats> PumpWatch(registry::WatchStream& w, http::ResponseWriter& writer, const WatchEventEncoder& encode,
                               WatchEventCounters counters) {
  WatchPumpStats stats;
  bool ended = false;
  while (!ended) {
    auto events = co_await w.Next();
    if (events.empty()) break;
    ++stats.batches;
    // Size the buffer for the shared JSON of the whole batch (up to one write's worth) up front.
    size_t want = 0;
    for (const auto& e : events) {
      want += (e.json ? e.json->size() : 256) + 32;
      if (want >= kWatchWriteBytes) break;
    }
    std::string out;
    out.reserve(want);
    bool failed = false;
    for (auto& e : events) {
      size_t before = out.size();
      encode(e, out);
      ++stats.events;
      if (counters.events) {
        counters.events->Inc();
        counters.sizes->Observe(static_cast<double>(out.size() - before));
      }
      if (e.type == "ERROR") {
        ended = true;
        break;
      }
      if (out.size() >= kWatchWriteBytes) {
        ++stats.writes;
        if (!co_await writer.WriteChunk(std::exchange(out, std::string()))) {
          failed = true;
          break;
        }
      }
    }
    if (failed) break;
    if (!out.empty()) {
      ++stats.writes;
      if (!co_await writer.WriteChunk(std::move(out))) break;
    }
  }
  co_return stats;
}

}  // namespace capstan::endpoints
