// api/flowcontrol/flow_schema.cpp: flowcontrol.apiserver.k8s.io/v1 FlowSchemas and
// PriorityLevelConfigurations (cluster-scoped, with status): kube's defaults and validation
// (flowcontrol_validation.h), status reset on create and kept on update, generation on spec changes,
// the status subresources (spec and metadata kept from the stored object), the printers (NAME
// PRIORITYLEVEL MATCHINGPRECEDENCE DISTINGUISHERMETHOD AGE MISSINGPL; NAME TYPE
// NOMINALCONCURRENCYSHARES QUEUES HANDSIZE QUEUELENGTHLIMIT AGE), and the group's install list.
#include "api/common.h"
#include "api/flowcontrol/flowcontrol.h"
#include "api/flowcontrol/flowcontrol_descriptions.h"
#include "api/flowcontrol/flowcontrol_validation.h"
#include "api/networking/resource_util.h"
#include "apimachinery/object_meta.h"

namespace capstan::api::flowcontrol {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

const std::vector<std::string> kStatusResetMetadata = {"labels", "annotations", "finalizers", "ownerReferences"};

class FlowSchemaStrategy : public registry::DefaultStrategy {
 public:
  FlowSchemaStrategy() : DefaultStrategy(Options{.namespaced = false, .has_status = true, .track_generation = true}) {}

  void PrepareForCreate(const registry::Context& ctx, Object& fs) const override {
    DefaultFlowSchema(fs);
    DefaultStrategy::PrepareForCreate(ctx, fs);
  }
  void PrepareForUpdate(const registry::Context& ctx, Object& fs, const Object& old) const override {
    DefaultFlowSchema(fs);
    DefaultStrategy::PrepareForUpdate(ctx, fs, old);
  }
  ErrorList Validate(const registry::Context&, const Object& fs) const override { return ValidateFlowSchema(fs); }
  ErrorList ValidateUpdate(const registry::Context&, const Object& fs, const Object&) const override {
    return ValidateFlowSchema(fs);
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"PriorityLevel", "string", "", kPriorityLevelName, 0},
            {"MatchingPrecedence", "string", "", kMatchingPrecedence, 0},
            {"DistinguisherMethod", "string", "", kDistinguisherMethod, 0},
            registry::AgeColumn(),
            {"MissingPL", "string", "", "references a broken or non-existent PriorityLevelConfiguration", 0}};
  }
  json::array TableCells(const Object& fs) const override {
    const json::object* spec = ObjectAt(fs, "spec");
    const json::value* pl = spec ? PathAt(*spec, {"priorityLevelConfiguration", "name"}) : nullptr;
    std::string method = "<none>";
    if (const json::value* m = spec ? PathAt(*spec, {"distinguisherMethod", "type"}) : nullptr; m && m->is_string()) {
      method = std::string(m->get_string());
    }
    std::string missing = "?";
    const json::value* conditions = PathAt(fs, {"status", "conditions"});
    if (conditions && conditions->is_array()) {
      for (const auto& c : conditions->get_array()) {
        if (c.is_object() && StringAt(c.get_object(), "type") == "Dangling") {
          missing = StringAt(c.get_object(), "status");
          break;
        }
      }
    }
    return {json::value(am::GetName(fs)), json::value(pl && pl->is_string() ? std::string(pl->get_string()) : ""),
            spec ? IntAt(*spec, "matchingPrecedence") : 0, json::value(method), json::value(AgeCell(fs)),
            json::value(missing)};
  }
};

class PriorityLevelStrategy : public registry::DefaultStrategy {
 public:
  PriorityLevelStrategy() : DefaultStrategy(Options{.namespaced = false, .has_status = true, .track_generation = true}) {}

  void PrepareForCreate(const registry::Context& ctx, Object& pl) const override {
    DefaultPriorityLevel(pl);
    DefaultStrategy::PrepareForCreate(ctx, pl);
  }
  void PrepareForUpdate(const registry::Context& ctx, Object& pl, const Object& old) const override {
    DefaultPriorityLevel(pl);
    DefaultStrategy::PrepareForUpdate(ctx, pl, old);
  }
  ErrorList Validate(const registry::Context&, const Object& pl) const override { return ValidatePriorityLevel(pl); }
  ErrorList ValidateUpdate(const registry::Context&, const Object& pl, const Object&) const override {
    return ValidatePriorityLevel(pl);
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Type", "string", "", kPriorityLevelType, 0},
            {"NominalConcurrencyShares", "string", "", kNominalConcurrencyShares, 0},
            {"Queues", "string", "", kQueues, 0},
            {"HandSize", "string", "", kHandSize, 0},
            {"QueueLengthLimit", "string", "", kQueueLengthLimit, 0},
            registry::AgeColumn()};
  }
  json::array TableCells(const Object& pl) const override {
    const json::object* spec = ObjectAt(pl, "spec");
    json::value shares = "<none>", queues = "<none>", hand = "<none>", limit = "<none>";
    if (const json::object* limited = spec ? ObjectAt(*spec, "limited") : nullptr) {
      shares = IntAt(*limited, "nominalConcurrencyShares");
      if (const json::value* q = PathAt(*limited, {"limitResponse", "queuing"}); q && q->is_object()) {
        queues = IntAt(q->get_object(), "queues");
        hand = IntAt(q->get_object(), "handSize");
        limit = IntAt(q->get_object(), "queueLengthLimit");
      }
    }
    return {json::value(am::GetName(pl)), json::value(spec ? StringAt(*spec, "type") : ""), shares, queues, hand, limit,
            json::value(AgeCell(pl))};
  }
};

}  // namespace

std::vector<registry::RestResource> FlowSchemas(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"flowcontrol.apiserver.k8s.io", "v1", "flowschemas", "flowschema", "FlowSchema", false, {}, {},
                        "io.k8s.api.flowcontrol.v1.FlowSchema"});
  auto strategy = std::make_shared<FlowSchemaStrategy>();
  spec.strategy = strategy;
  auto status = std::make_shared<catalog::StatusOnlyStrategy>(
      strategy, [](const Object& fs, const Object&) { return ValidateFlowSchemaStatus(fs); }, kStatusResetMetadata);
  return catalog::MakeResourceWith(deps, std::move(spec), {{"status", status}});
}

std::vector<registry::RestResource> PriorityLevelConfigurations(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"flowcontrol.apiserver.k8s.io", "v1", "prioritylevelconfigurations", "prioritylevelconfiguration",
                        "PriorityLevelConfiguration", false, {}, {}, "io.k8s.api.flowcontrol.v1.PriorityLevelConfiguration"});
  auto strategy = std::make_shared<PriorityLevelStrategy>();
  spec.strategy = strategy;
  auto status = std::make_shared<catalog::StatusOnlyStrategy>(
      strategy, [](const Object& pl, const Object&) { return ValidatePriorityLevelStatus(pl); }, kStatusResetMetadata);
  return catalog::MakeResourceWith(deps, std::move(spec), {{"status", status}});
}

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps) {
  std::vector<registry::RestResource> all = FlowSchemas(deps);
  auto pls = PriorityLevelConfigurations(deps);
  all.insert(all.end(), std::make_move_iterator(pls.begin()), std::make_move_iterator(pls.end()));
  return all;
}

}  // namespace capstan::api::flowcontrol
