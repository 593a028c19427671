#include "api/events/event_conversion.h"

#include <utility>

namespace capstan::api::events {

namespace json = boost::json;

namespace {

// The field pairs (events.k8s.io/v1 name, core/v1 name) that differ.
constexpr std::pair<const char*, const char*> kRenamed[] = {
    {"regarding", "involvedObject"},
    {"note", "message"},
    {"reportingController", "reportingComponent"},
    {"deprecatedSource", "source"},
    {"deprecatedFirstTimestamp", "firstTimestamp"},
    {"deprecatedLastTimestamp", "lastTimestamp"},
    {"deprecatedCount", "count"},
};

json::object Rename(json::object in, bool to_core, const char* api_version) {
  json::object out;
  out["apiVersion"] = api_version;
  out["kind"] = "Event";
  for (auto& kv : in) {
    std::string_view key = kv.key();
    if (key == "apiVersion" || key == "kind") continue;
    std::string_view mapped = key;
    for (const auto& [v1, core] : kRenamed) {
      if (to_core && key == v1) mapped = core;
      if (!to_core && key == core) mapped = v1;
    }
    out[mapped] = std::move(kv.value());
  }
  return out;
}

}  // namespace

StatusOr<json::object> EventV1ToCore(json::object v1) { return Rename(std::move(v1), true, "v1"); }

StatusOr<json::object> EventCoreToV1(json::object core) { return Rename(std::move(core), false, "events.k8s.io/v1"); }

}  // namespace capstan::api::events
