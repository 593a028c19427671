// api/core/component_status.cpp: componentstatuses (see component_status.h).
#include "api/core/component_status.h"

#include <boost/json.hpp>

#include "api/common.h"
#include "apimachinery/fields.h"
#include "apimachinery/labels.h"

namespace capstan::api::core {

namespace json = boost::json;
namespace am = capstan::apimachinery;

void ComponentStatusSources::Set(std::vector<ComponentProbe> probes) {
  std::lock_guard lock(mu_);
  probes_ = std::move(probes);
}

std::vector<ComponentProbe> ComponentStatusSources::Get() const {
  std::lock_guard lock(mu_);
  return probes_;
}

Object ComponentStatusObject(const std::string& name, const ComponentHealth& health) {
  json::object condition;
  condition["type"] = "Healthy";
  condition["status"] = health.status;
  if (!health.message.empty()) condition["message"] = health.message;
  if (!health.error.empty()) condition["error"] = health.error;
  Object out;
  out["kind"] = "ComponentStatus";
  out["apiVersion"] = "v1";
  json::object md;
  md["name"] = name;
  md["creationTimestamp"] = nullptr;  // kube's zero metav1.Time
  out["metadata"] = std::move(md);
  out["conditions"] = json::array{std::move(condition)};
  return out;
}

std::string RefusedProbeMessage(int port) {
  const std::string hostport = "127.0.0.1:" + std::to_string(port);
  return "Get \"https://" + hostport + "/healthz\": dial tcp " + hostport + ": connect: connection refused";
}

ComponentHealth RefusedProbe(int port) { return {"False", RefusedProbeMessage(port), ""}; }

bool LeaseHeld(const Object& lease, am::Timestamp now) {
  const auto* spec = ObjectAt(lease, "spec");
  if (!spec || StringAt(*spec, "holderIdentity").empty()) return false;
  const int64_t duration = IntAt(*spec, "leaseDurationSeconds");
  auto renewed = am::ParseRfc3339Micro(StringAt(*spec, "renewTime"));
  if (duration <= 0 || !renewed.ok()) return false;
  am::Timestamp expires = *renewed;
  expires.seconds += duration;
  return now < expires;
}

namespace {

// kube's printer for ComponentStatus: the Healthy condition's status as Healthy/Unhealthy (Unknown
// without one), its message and its error.
class ComponentStatusStore : public registry::Getter, public registry::Lister, public registry::TableConvertor {
 public:
  ComponentStatusStore(registry::ResourceInfo info, std::shared_ptr<ComponentStatusSources> sources)
      : info_(std::move(info)), sources_(std::move(sources)) {}
  const registry::ResourceInfo& Info() const override { return info_; }

  Task<StatusOr<Object>> Get(const registry::Context& ctx, const std::string& name,
                             const registry::GetOptions&) override {
    ctx.Warn(kComponentStatusDeprecation);
    for (const auto& p : sources_->Get()) {
      if (p.name == name) co_return ComponentStatusObject(name, co_await p.probe());
    }
    // kube's storage returns a plain error here, which the handler turns into a 500 without a reason.
    co_return Status(500, "", "Component not found: " + name);
  }

  Task<StatusOr<registry::ObjectList>> List(const registry::Context& ctx, const registry::ListOptions& opts) override {
    ctx.Warn(kComponentStatusDeprecation);
    CO_ASSIGN_OR_RETURN(am::LabelSelector labels, am::ParseLabelSelector(opts.label_selector));
    CO_ASSIGN_OR_RETURN(am::FieldSelector fields, am::ParseFieldSelector(opts.field_selector));
    static const std::vector<std::string> kSelectable = am::DefaultSelectableFieldNames();
    if (Status st = am::CheckFieldSelectorFields(fields, kSelectable, am::DefaultFieldLabelConversionError); !st.ok()) {
      co_return st;
    }
    registry::ObjectList out;
    for (const auto& p : sources_->Get()) {
      Object obj = ComponentStatusObject(p.name, co_await p.probe());
      if (!labels.MatchesObject(obj) || !fields.Matches(am::FieldSet{{"metadata.name", p.name}})) continue;
      out.items.push_back(std::move(obj));
    }
    co_return out;
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Status", "string", "", "Status of the component conditions"},
            {"Message", "string", "", "Message of the component conditions"},
            {"Error", "string", "", "Error of the component conditions"}};
  }

  json::array TableCells(const Object& obj) const override {
    std::string status = "Unknown", message, error;
    if (const auto* conditions = ArrayAt(obj, "conditions")) {
      for (const auto& c : *conditions) {
        if (!c.is_object() || StringAt(c.as_object(), "type") != "Healthy") continue;
        status = StringAt(c.as_object(), "status") == "True" ? "Healthy" : "Unhealthy";
        message = StringAt(c.as_object(), "message");
        error = StringAt(c.as_object(), "error");
        break;
      }
    }
    const auto* md = ObjectAt(obj, "metadata");
    return json::array{md ? StringAt(*md, "name") : std::string(), status, message, error};
  }

 private:
  registry::ResourceInfo info_;
  std::shared_ptr<ComponentStatusSources> sources_;
};

}  // namespace

std::vector<registry::RestResource> ComponentStatuses(const registry::GroupDeps& deps,
                                                      std::shared_ptr<ComponentStatusSources> sources) {
  auto info = MakeInfo({"", "v1", "componentstatuses", "componentstatus", "ComponentStatus", false, {"cs"}, {},
                        "io.k8s.api.core.v1.ComponentStatus"});
  registry::RestResource r;
  r.info = info;
  r.storage = std::make_shared<ComponentStatusStore>(info, std::move(sources));
  r.schema = deps.schemas ? deps.schemas->Find(info.definition) : nullptr;
  return {std::move(r)};
}

}  // namespace capstan::api::core
