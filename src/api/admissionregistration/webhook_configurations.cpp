// api/admissionregistration/webhook_configurations.cpp: admissionregistration.k8s.io/v1
// Mutating/ValidatingWebhookConfigurations (cluster-scoped): kube's defaults and validation
// (admission_validation.h), generation bumped when the webhooks change, the printer (NAME WEBHOOKS AGE)
// and the api-extensions category; and the group's install list.
#include "api/admissionregistration/admission_validation.h"
#include "api/admissionregistration/admissionregistration.h"
#include "api/common.h"
#include "apimachinery/object_meta.h"

namespace capstan::api::admissionregistration {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

class WebhookConfigurationStrategy : public registry::DefaultStrategy {
 public:
  explicit WebhookConfigurationStrategy(bool mutating)
      : DefaultStrategy(Options{.namespaced = false, .track_generation = true}), mutating_(mutating) {}

  void PrepareForCreate(const registry::Context& ctx, Object& c) const override {
    DefaultWebhooks(c, mutating_);
    DefaultStrategy::PrepareForCreate(ctx, c);
  }
  void PrepareForUpdate(const registry::Context& ctx, Object& c, const Object& old) const override {
    DefaultWebhooks(c, mutating_);
    DefaultStrategy::PrepareForUpdate(ctx, c, old);
  }
  ErrorList Validate(const registry::Context&, const Object& c) const override {
    return ValidateWebhookConfiguration(c, nullptr, mutating_);
  }
  ErrorList ValidateUpdate(const registry::Context&, const Object& c, const Object& old) const override {
    return ValidateWebhookConfiguration(c, &old, mutating_);
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Webhooks", "integer", "", "Webhooks indicates the number of webhooks registered in this configuration", 0},
            registry::AgeColumn()};
  }
  json::array TableCells(const Object& c) const override {
    return {json::value(am::GetName(c)), CountAt(c, "webhooks"), json::value(AgeCell(c))};
  }

 private:
  bool mutating_;
};

std::vector<registry::RestResource> Configurations(const registry::GroupDeps& deps, bool mutating) {
  registry::ResourceSpec spec;
  std::string kind = mutating ? "MutatingWebhookConfiguration" : "ValidatingWebhookConfiguration";
  std::string resource = mutating ? "mutatingwebhookconfigurations" : "validatingwebhookconfigurations";
  spec.info = MakeInfo({"admissionregistration.k8s.io", "v1", resource, resource.substr(0, resource.size() - 1), kind, false,
                        {}, {"api-extensions"}, "io.k8s.api.admissionregistration.v1." + kind});
  spec.strategy = std::make_shared<WebhookConfigurationStrategy>(mutating);
  return registry::MakeResource(deps, std::move(spec));
}

}  // namespace

std::vector<registry::RestResource> MutatingWebhookConfigurations(const registry::GroupDeps& deps) {
  return Configurations(deps, true);
}

std::vector<registry::RestResource> ValidatingWebhookConfigurations(const registry::GroupDeps& deps) {
  return Configurations(deps, false);
}

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps) {
  std::vector<registry::RestResource> all;
  for (auto* fn : {&ValidatingAdmissionPolicies, &ValidatingAdmissionPolicyBindings, &ValidatingWebhookConfigurations,
                   &MutatingWebhookConfigurations}) {
    auto r = fn(deps);
    all.insert(all.end(), std::make_move_iterator(r.begin()), std::make_move_iterator(r.end()));
  }
  return all;
}

}  // namespace capstan::api::admissionregistration
