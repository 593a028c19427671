// api/core/pod_template.cpp: core/v1 PodTemplates: the template gets pod defaults and kube's
// template validation; generation grows with template changes; printer NAME CONTAINERS IMAGES
// POD LABELS.
#include "api/core/core_helpers.h"
#include "api/core/core_resources.h"
#include "api/core/pod_defaults.h"
#include "api/core/pod_validation.h"
#include "apimachinery/object_meta.h"
#include "util/strings.h"

namespace capstan::api::core {

namespace am = capstan::apimachinery;

namespace {

class PodTemplateStrategy : public registry::DefaultStrategy {
 public:
  PodTemplateStrategy() : DefaultStrategy(Options{.track_generation = true}) {}
  static void Default(Object& pt) {
    if (auto* t = pt.if_contains("template"); t && t->is_object()) DefaultPodTemplateSpec(t->get_object());
  }
  void PrepareForCreate(const registry::Context& ctx, Object& pt) const override {
    Default(pt);
    DefaultStrategy::PrepareForCreate(ctx, pt);
  }
  void PrepareForUpdate(const registry::Context& ctx, Object& pt, const Object& old) const override {
    Default(pt);
    DefaultStrategy::PrepareForUpdate(ctx, pt, old);
  }
  ErrorList Validate(const registry::Context&, const Object& pt) const override {
    static const json::object kEmpty;
    const auto* t = pt.if_contains("template");
    return ValidatePodTemplateSpec(t && t->is_object() ? t->get_object() : kEmpty, FieldPath("template"));
  }
  ErrorList ValidateUpdate(const registry::Context& ctx, const Object& pt, const Object&) const override {
    return Validate(ctx, pt);
  }
  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Containers", "string", "", "Names of each container in the template.", 0},
            {"Images", "string", "", "Images referenced by each container in the template.", 0},
            {"Pod Labels", "string", "", "The labels for the pod template.", 0}};
  }
  json::array TableCells(const Object& pt) const override {
    std::vector<std::string> names, images;
    if (const auto* cs = PathAt(pt, {"template", "spec", "containers"}); cs && cs->is_array()) {
      for (const auto& c : cs->get_array()) {
        names.push_back(c.is_object() ? StrOf(c.get_object().if_contains("name")) : "");
        images.push_back(c.is_object() ? StrOf(c.get_object().if_contains("image")) : "");
      }
    }
    const auto* labels = PathAt(pt, {"template", "metadata", "labels"});
    return {json::value(am::GetName(pt)), json::value(Join(names, ",")), json::value(Join(images, ",")),
            json::value(FormatLabels(labels && labels->is_object() ? &labels->get_object() : nullptr))};
  }
};

}  // namespace

std::vector<registry::RestResource> PodTemplates(const registry::GroupDeps& deps) {
  auto info = MakeInfo({"", "v1", "podtemplates", "podtemplate", "PodTemplate", true, {}, {}, "io.k8s.api.core.v1.PodTemplate"});
  return MakeCoreResource(deps, info, std::make_shared<PodTemplateStrategy>());
}

}  // namespace capstan::api::core
