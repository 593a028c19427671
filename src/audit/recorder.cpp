#include "audit/recorder.h"

#include <memory>
#include <string>
#include <vector>

namespace capstan::audit {

namespace json = boost::json;
namespace am = capstan::apimachinery;

RequestAuditConfig Sink::Evaluate(const RequestAttributes& attrs) const {
  if (!enabled()) return {};
  RequestAuditConfig rac = policy->Evaluate(attrs);
  if (metrics) metrics->levels.With({std::string(LevelName(rac.level))})->Inc();
  return rac;
}

std::vector<EventPtr> Recorder::StageEvent(Stage stage) {
  std::vector<EventPtr> batch;
  if (config_.omit_stages.count(stage) > 0 || !sink_.backend) return batch;
  auto copy = std::make_shared<Event>(event_);
  copy->stage = stage;
  copy->stage_timestamp = stage == Stage::kRequestReceived ? event_.request_received : am::Timestamp::Now();
  if (sink_.metrics) sink_.metrics->events.Inc();
  batch.push_back(std::move(copy));
  return batch;
}

Task<bool> Recorder::Emit(Stage stage) {
  std::vector<EventPtr> batch = StageEvent(stage);
  if (batch.empty()) co_return true;
  co_return co_await sink_.backend->ProcessEventsAsync(std::move(batch));
}

void Recorder::EmitNoWait(Stage stage) {
  std::vector<EventPtr> batch = StageEvent(stage);
  if (batch.empty()) return;
  SpawnThen(sink_.backend->ProcessEventsAsync(std::move(batch)), [](bool) {});
}

namespace {

std::string StringOf(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

}  // namespace

json::object ResponseStatusOf(int code, const std::optional<json::value>& body) {
  json::object st;
  st["metadata"] = json::object();
  if (body && body->is_object() && StringOf(body->as_object(), "kind") == "Status") {
    const json::object& b = body->as_object();
    for (const char* k : {"status", "message", "reason", "details"}) {
      if (const json::value* v = b.if_contains(k); v && !v->is_null()) st[k] = *v;
    }
    if (const json::value* c = b.if_contains("code"); c && c->is_number()) {
      st["code"] = *c;
      return st;
    }
  }
  st["code"] = code;
  return st;
}

json::object CodeStatus(int code, std::string_view message) {
  json::object st;
  st["metadata"] = json::object();
  if (!message.empty()) st["message"] = message;
  st["code"] = code;
  return st;
}

json::object PanicStatus(std::string_view what) {
  json::object st;
  st["metadata"] = json::object();
  st["status"] = "Failure";
  st["message"] = "APIServer panic'd: " + std::string(what);
  st["reason"] = "InternalError";
  st["code"] = 500;
  return st;
}

json::object ConnectionClosedEarlyStatus() {
  json::object st;
  st["metadata"] = json::object();
  st["status"] = "Success";
  st["message"] = "Connection closed early";
  st["code"] = 200;
  return st;
}

void DropManagedFields(json::value& v) {
  if (!v.is_object()) return;
  json::object& o = v.as_object();
  if (auto* md = o.if_contains("metadata"); md && md->is_object()) md->as_object().erase("managedFields");
  if (auto* items = o.if_contains("items"); items && items->is_array()) {
    for (auto& it : items->as_array()) DropManagedFields(it);
  }
  if (auto* rows = o.if_contains("rows"); rows && rows->is_array()) {
    for (auto& r : rows->as_array()) {
      if (r.is_object()) {
        if (auto* obj = r.as_object().if_contains("object")) DropManagedFields(*obj);
      }
    }
  }
}

}  // namespace capstan::audit
