// api/core/event.cpp: core/v1 Events: a one-hour TTL in storage (--event-ttl), kube's legacy event
// validation, the involvedObject field selectors `kubectl describe` uses, and the event printer.
#include "api/common.h"
#include "api/core/core.h"
#include "api/core/event_fields.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/validation.h"
#include "util/strings.h"

namespace capstan::api::core {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

std::string Str(const json::value* v) { return v && v->is_string() ? std::string(v->get_string()) : std::string(); }

class EventStrategy : public registry::DefaultStrategy {
 public:
  explicit EventStrategy(int64_t ttl_seconds) : DefaultStrategy(Options{}), ttl_seconds_(ttl_seconds) {}

  int64_t TTLSeconds(const Object&) const override { return ttl_seconds_; }

  ErrorList Validate(const registry::Context&, const Object& e) const override {
    ErrorList errs;
    std::string ns(am::GetNamespace(e));
    std::string involved_ns = Str(PathAt(e, {"involvedObject", "namespace"}));
    FieldPath ins = FieldPath("involvedObject").Child("namespace");
    std::string event_time = StringAt(e, "eventTime");
    if (event_time.empty()) {
      if (involved_ns.empty()) {
        if (!ns.empty() && ns != "default") errs.push_back(InvalidError(ins, involved_ns, "does not match event.namespace"));
      } else if (ns != involved_ns) {
        errs.push_back(InvalidError(ins, involved_ns, "does not match event.namespace"));
      }
    } else {
      if (involved_ns.empty() && ns != "default" && ns != "kube-system") {
        errs.push_back(InvalidError(ins, involved_ns, "does not match event.namespace"));
      }
      std::string controller = StringAt(e, "reportingComponent");
      if (controller.empty()) errs.push_back(RequiredError(FieldPath("reportingComponent"), ""));
      for (const auto& msg : am::IsQualifiedName(controller)) {
        if (!controller.empty()) errs.push_back(InvalidError(FieldPath("reportingComponent"), controller, msg));
      }
      std::string instance = StringAt(e, "reportingInstance");
      if (instance.empty()) errs.push_back(RequiredError(FieldPath("reportingInstance"), ""));
      if (instance.size() > 128) errs.push_back(InvalidError(FieldPath("reportingInstance"), "", "can have at most 128 characters"));
      std::string action = StringAt(e, "action");
      if (action.empty()) errs.push_back(RequiredError(FieldPath("action"), ""));
      if (action.size() > 128) errs.push_back(InvalidError(FieldPath("action"), "", "can have at most 128 characters"));
      std::string reason = StringAt(e, "reason");
      if (reason.empty()) errs.push_back(RequiredError(FieldPath("reason"), ""));
      if (reason.size() > 128) errs.push_back(InvalidError(FieldPath("reason"), "", "can have at most 128 characters"));
      if (StringAt(e, "message").size() > 1024) {
        errs.push_back(InvalidError(FieldPath("message"), "", "can have at most 1024 characters"));
      }
    }
    for (const auto& msg : am::IsDNS1123Subdomain(ns)) errs.push_back(InvalidError(FieldPath("namespace"), ns, msg));
    return errs;
  }

  std::string UnsupportedFieldLabelMessage(std::string_view f) const override { return am::FieldLabelNotSupportedError(f); }
  std::vector<std::string> SelectableFieldNames() const override { return EventSelectableFieldNames(); }
  am::FieldSet SelectableFields(const Object& e) const override {
    return EventSelectableFields(e, DefaultStrategy::SelectableFields(e));
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {{"Last Seen", "string", "", "The time at which the most recent occurrence of this event was recorded.", 0},
            {"Type", "string", "", "Type of this event (Normal, Warning), new types could be added in the future", 0},
            {"Reason", "string", "", "This should be a short, machine understandable string that gives the reason "
                                     "for the transition into the object's current status.", 0},
            {"Object", "string", "", "The object that this event is about.", 0},
            {"Subobject", "string", "", "If referring to a piece of an object instead of an entire object, this "
                                        "string should contain a valid JSON/Go field access statement.", 1},
            {"Source", "string", "", "The component reporting this event. Should be a short machine understandable "
                                     "string.", 1},
            {"Message", "string", "", "A human-readable description of the status of this operation.", 0},
            {"First Seen", "string", "", "The time at which the event was first recorded.", 1},
            {"Count", "string", "", "The number of times this event has occurred.", 1},
            {"Name", "string", "name", "Name must be unique within a namespace.", 1}};
  }

  json::array TableCells(const Object& e) const override {
    std::string first = registry::TranslateTimestampSince(StringAt(e, "firstTimestamp"));
    if (StringAt(e, "firstTimestamp").empty()) first = registry::TranslateTimestampSince(StringAt(e, "eventTime"));
    std::string last = StringAt(e, "lastTimestamp").empty() ? first
                                                             : registry::TranslateTimestampSince(StringAt(e, "lastTimestamp"));
    int64_t count = IntAt(e, "count");
    if (const auto* series = ObjectAt(e, "series")) {
      last = registry::TranslateTimestampSince(StringAt(*series, "lastObservedTime"));
      count = IntAt(*series, "count");
    } else if (count == 0) {
      count = 1;
    }
    std::string kind = ToLower(Str(PathAt(e, {"involvedObject", "kind"})));
    std::string name = Str(PathAt(e, {"involvedObject", "name"}));
    std::string target = name.empty() ? kind : kind + "/" + name;
    std::string source = Str(PathAt(e, {"source", "component"}));
    std::string host = Str(PathAt(e, {"source", "host"}));
    if (source.empty()) {
      source = StringAt(e, "reportingComponent");
      host = StringAt(e, "reportingInstance");
    }
    if (!host.empty()) source += ", " + host;
    return {json::value(last),
            json::value(StringAt(e, "type")),
            json::value(StringAt(e, "reason")),
            json::value(target),
            json::value(Str(PathAt(e, {"involvedObject", "fieldPath"}))),
            json::value(source),
            json::value(std::string(TrimSpace(StringAt(e, "message")))),
            json::value(first),
            count,
            json::value(am::GetName(e))};
  }

 private:
  int64_t ttl_seconds_;
};

}  // namespace

std::vector<registry::RestResource> Events(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"", "v1", "events", "event", "Event", true, {"ev"}, {}, "io.k8s.api.core.v1.Event"});
  spec.strategy = std::make_shared<EventStrategy>(deps.event_ttl_seconds);
  return registry::MakeResource(deps, std::move(spec));
}

}  // namespace capstan::api::core
