// api/events/events_v1.cpp: events.k8s.io/v1 Events. A Store over <prefix>/events holds the core/v1 form
// with this group's strategy: kube's ValidateEventCreate/Update for an events.k8s.io/v1 request (the
// legacy rules every event passes, then eventTime required, type Normal or Warning, the deprecated*
// fields unset, series with count >= 2 and a lastObservedTime; on update the identifying fields are
// immutable), the one-hour TTL, create on update, and field selectors by events.k8s.io's names. A
// ConvertingStore serves it as events.k8s.io/v1; tables come from core's event printer.
#include "api/common.h"
#include "api/core/core.h"
#include "api/core/event_fields.h"
#include "api/events/event_conversion.h"
#include "api/events/events.h"
#include "api/networking/validators.h"
#include "apimachinery/errors.h"
#include "apimachinery/fields.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/time_util.h"
#include "apimachinery/validation.h"
#include "registry/converting_store.h"

namespace capstan::api::events {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

std::string Str(const json::value* v) { return v && v->is_string() ? std::string(v->get_string()) : std::string(); }

bool TimeSet(const Object& e, std::string_view key) {
  const json::value* v = e.if_contains(key);
  return v && v->is_string() && !v->get_string().empty();
}

// kube's legacyValidateEvent for an events.k8s.io request (field names as kube reports them).
ErrorList LegacyValidate(const Object& e) {
  ErrorList errs;
  std::string ns(am::GetNamespace(e));
  std::string involved_ns = Str(PathAt(e, {"involvedObject", "namespace"}));
  FieldPath ins = FieldPath("involvedObject").Child("namespace");
  if (!TimeSet(e, "eventTime")) {
    if (involved_ns.empty()) {
      if (!ns.empty() && ns != "default") errs.push_back(InvalidError(ins, involved_ns, "does not match event.namespace"));
    } else if (ns != involved_ns) {
      errs.push_back(InvalidError(ins, involved_ns, "does not match event.namespace"));
    }
  } else {
    if (involved_ns.empty() && ns != "default" && ns != "kube-system") {
      errs.push_back(InvalidError(ins, involved_ns, "does not match event.namespace"));
    }
    FieldPath rc("reportingController");
    std::string controller = StringAt(e, "reportingComponent");
    if (controller.empty()) errs.push_back(RequiredError(rc, ""));
    catalog::AddProblems(errs, rc, controller, am::IsQualifiedName(controller));
    std::string instance = StringAt(e, "reportingInstance");
    if (instance.empty()) errs.push_back(RequiredError(FieldPath("reportingInstance"), ""));
    if (instance.size() > 128) errs.push_back(InvalidError(FieldPath("reportingInstance"), "", "can have at most 128 characters"));
    std::string action = StringAt(e, "action");
    if (action.empty()) errs.push_back(RequiredError(FieldPath("action"), ""));
    if (action.size() > 128) errs.push_back(InvalidError(FieldPath("action"), "", "can have at most 128 characters"));
    std::string reason = StringAt(e, "reason");
    if (reason.empty()) errs.push_back(RequiredError(FieldPath("reason"), ""));
    if (reason.size() > 128) errs.push_back(InvalidError(FieldPath("reason"), "", "can have at most 128 characters"));
    if (StringAt(e, "message").size() > 1024) errs.push_back(InvalidError(FieldPath("message"), "", "can have at most 1024 characters"));
  }
  catalog::AddProblems(errs, FieldPath("namespace"), ns, am::IsDNS1123Subdomain(ns));
  return errs;
}

ErrorList ValidateSeries(const Object& e) {
  ErrorList errs;
  const json::object* series = ObjectAt(e, "series");
  if (!series) return errs;
  if (IntAt(*series, "count") < 2) errs.push_back(InvalidError(FieldPath("series.count"), "", "should be at least 2"));
  const json::value* last = series->if_contains("lastObservedTime");
  if (!last || !last->is_string() || last->get_string().empty()) {
    errs.push_back(RequiredError(FieldPath("series.lastObservedTime"), ""));
  }
  return errs;
}

ErrorList ValidateCreate(const Object& e) {
  ErrorList errs = LegacyValidate(e);
  ErrorList more = ValidateSeries(e);
  errs.insert(errs.end(), more.begin(), more.end());
  if (!TimeSet(e, "eventTime")) errs.push_back(RequiredError(FieldPath("eventTime"), ""));
  std::string type = StringAt(e, "type");
  if (type != "Normal" && type != "Warning") errs.push_back(InvalidError(FieldPath("type"), "", "has invalid value: " + type));
  if (TimeSet(e, "firstTimestamp")) errs.push_back(InvalidError(FieldPath("deprecatedFirstTimestamp"), "", "needs to be unset"));
  if (TimeSet(e, "lastTimestamp")) errs.push_back(InvalidError(FieldPath("deprecatedLastTimestamp"), "", "needs to be unset"));
  if (IntAt(e, "count") != 0) errs.push_back(InvalidError(FieldPath("deprecatedCount"), "", "needs to be unset"));
  if (!Str(PathAt(e, {"source", "component"})).empty() || !Str(PathAt(e, {"source", "host"})).empty()) {
    errs.push_back(InvalidError(FieldPath("deprecatedSource"), "", "needs to be unset"));
  }
  return errs;
}

// eventTime compared to the microsecond (kube tolerates finer differences).
bool SameMicroTime(const Object& a, const Object& b) {
  auto parse = [](const Object& o) -> std::optional<am::Timestamp> {
    const json::value* v = o.if_contains("eventTime");
    if (!v || !v->is_string() || v->get_string().empty()) return am::Timestamp{};
    auto t = am::ParseRfc3339Micro(std::string_view(v->get_string()));
    if (!t.ok()) return std::nullopt;
    am::Timestamp ts = *t;
    ts.nanos -= ts.nanos % 1000;
    return ts;
  };
  auto ta = parse(a), tb = parse(b);
  if (!ta || !tb) return Str(a.if_contains("eventTime")) == Str(b.if_contains("eventTime"));
  return *ta == *tb;
}

ErrorList ValidateUpdate(const Object& e, const Object& old) {
  ErrorList errs = LegacyValidate(e);
  if (!catalog::SameValue(e.if_contains("series"), old.if_contains("series"))) {
    ErrorList more = ValidateSeries(e);
    errs.insert(errs.end(), more.begin(), more.end());
  }
  auto immutable = [&](const char* key) {
    catalog::CheckImmutable(errs, e.if_contains(key), old.if_contains(key), FieldPath(key));
  };
  for (const char* key : {"involvedObject", "reason", "message", "source", "firstTimestamp", "lastTimestamp", "count", "reason", "type"}) {
    immutable(key);
  }
  if (!SameMicroTime(e, old)) {
    errs.push_back(InvalidError(FieldPath("eventTime"), Str(e.if_contains("eventTime")), "field is immutable"));
  }
  immutable("action");
  immutable("related");
  catalog::CheckImmutable(errs, e.if_contains("reportingComponent"), old.if_contains("reportingComponent"),
                          FieldPath("reportingController"));
  immutable("reportingInstance");
  return errs;
}

class EventsV1Strategy : public registry::DefaultStrategy {
 public:
  EventsV1Strategy(std::shared_ptr<registry::Storage> core_events, int64_t ttl_seconds)
      : DefaultStrategy(Options{.namespaced = true, .allow_create_on_update = true}),
        core_events_(std::move(core_events)),
        ttl_seconds_(ttl_seconds) {
    table_ = dynamic_cast<registry::TableConvertor*>(core_events_.get());
  }

  int64_t TTLSeconds(const Object&) const override { return ttl_seconds_; }
  ErrorList Validate(const registry::Context&, const Object& e) const override { return ValidateCreate(e); }
  ErrorList ValidateUpdate(const registry::Context&, const Object& e, const Object& old) const override {
    return events::ValidateUpdate(e, old);
  }

  // The stored (core) form's selectable fields, as core/v1's event strategy has them: the watch cache
  // of <prefix>/events is shared with core/v1, and events.k8s.io's field names are converted to these
  // by EventsV1Store (kube's field label conversion) before they reach the Store.
  std::vector<std::string> SelectableFieldNames() const override { return core::EventSelectableFieldNames(); }
  am::FieldSet SelectableFields(const Object& e) const override {
    return core::EventSelectableFields(e, DefaultStrategy::SelectableFields(e));
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return table_ ? table_->TableColumns() : DefaultStrategy::TableColumns();
  }
  json::array TableCells(const Object& e) const override {
    return table_ ? table_->TableCells(e) : DefaultStrategy::TableCells(e);
  }

 private:
  std::shared_ptr<registry::Storage> core_events_;  // keeps core's event printer alive
  int64_t ttl_seconds_;
  registry::TableConvertor* table_ = nullptr;
};

// kube's AddFieldLabelConversionsForEvent (events.k8s.io/v1): the served field names and the stored
// form's names they select on; any other field is refused with kube's message.
StatusOr<std::string> ConvertFieldSelector(const std::string& selector) {
  if (selector.empty()) return selector;
  static const std::vector<std::pair<std::string, std::string>> kMapping = {
      {"metadata.name", "metadata.name"},
      {"metadata.namespace", "metadata.namespace"},
      {"reason", "reason"},
      {"regarding.kind", "involvedObject.kind"},
      {"regarding.namespace", "involvedObject.namespace"},
      {"regarding.name", "involvedObject.name"},
      {"regarding.uid", "involvedObject.uid"},
      {"regarding.apiVersion", "involvedObject.apiVersion"},
      {"regarding.resourceVersion", "involvedObject.resourceVersion"},
      {"regarding.fieldPath", "involvedObject.fieldPath"},
      {"reportingController", "reportingComponent"},
      {"type", "type"},
  };
  auto parsed = am::ParseFieldSelector(selector);
  if (!parsed.ok()) return parsed.status();
  std::vector<std::string> served;
  for (const auto& [from, to] : kMapping) served.push_back(from);
  if (Status st = am::CheckFieldSelectorFields(*parsed, served, am::FieldLabelNotSupportedError); !st.ok()) return st;
  auto converted = parsed->Transform([](const std::string& field, const std::string& value)
                                         -> StatusOr<std::pair<std::string, std::string>> {
    for (const auto& [from, to] : kMapping) {
      if (field == from) return std::make_pair(to, value);
    }
    return am::NewBadRequest("field label not supported: " + field);
  });
  if (!converted.ok()) return converted.status();
  return converted->String();
}

// The inner Store of events.k8s.io: its list, watch and collection deletion take events.k8s.io's
// field selectors, converted to the stored form's names.
class EventsV1Store : public registry::OwningStore {
 public:
  using OwningStore::OwningStore;
  Task<StatusOr<registry::ObjectList>> List(const registry::Context& ctx, const registry::ListOptions& opts) override {
    registry::ListOptions o = opts;
    auto fs = ConvertFieldSelector(opts.field_selector);
    if (!fs.ok()) co_return fs.status();
    o.field_selector = std::move(*fs);
    co_return co_await OwningStore::List(ctx, o);
  }
  Task<StatusOr<std::unique_ptr<registry::WatchStream>>> Watch(const registry::Context& ctx,
                                                              const registry::ListOptions& opts) override {
    registry::ListOptions o = opts;
    auto fs = ConvertFieldSelector(opts.field_selector);
    if (!fs.ok()) co_return fs.status();
    o.field_selector = std::move(*fs);
    co_return co_await OwningStore::Watch(ctx, o);
  }
  Task<StatusOr<registry::ObjectList>> DeleteCollection(const registry::Context& ctx, const registry::DeleteOptions& dopts,
                                                       const registry::ListOptions& lopts) override {
    registry::ListOptions o = lopts;
    auto fs = ConvertFieldSelector(lopts.field_selector);
    if (!fs.ok()) co_return fs.status();
    o.field_selector = std::move(*fs);
    co_return co_await OwningStore::DeleteCollection(ctx, dopts, o);
  }
  // kube stores events.k8s.io's events with core's (cohabitating resources, core first): in v1.
  std::optional<am::GroupVersionKind> StorageVersion() const override {
    return am::GroupVersionKind{"", "v1", "Event"};
  }
};

}  // namespace

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps) {
  // core/v1's events storage, for its printer.
  std::vector<registry::RestResource> core = core::Events(deps);
  auto strategy = std::make_shared<EventsV1Strategy>(core.empty() ? nullptr : core.front().storage, deps.event_ttl_seconds);

  registry::ResourceInfo served = MakeInfo({"events.k8s.io", "v1", "events", "event", "Event", true, {"ev"}, {},
                                            "io.k8s.api.events.v1.Event"});
  // The storage form is core/v1's: the inner Store normalizes with that schema.
  registry::ResourceSpec spec;
  spec.info = served;
  spec.info.definition = "io.k8s.api.core.v1.Event";
  spec.strategy = strategy;
  spec.storage_resource = "events";
  std::vector<registry::RestResource> inner = registry::MakeResource(deps, std::move(spec));
  // The same Store, taking events.k8s.io's field selectors.
  if (auto* made = dynamic_cast<registry::Store*>(inner.front().storage.get())) {
    inner.front().storage = std::make_shared<EventsV1Store>(made->config(), strategy);
  }

  registry::RestResource r;
  r.info = served;
  r.storage = registry::WrapConverting(served, inner.front().storage,
                                       registry::MakeFunctionConverter(EventV1ToCore, EventCoreToV1));
  r.schema = deps.schemas ? deps.schemas->Find(served.definition) : nullptr;
  return {std::move(r)};
}

}  // namespace capstan::api::events
