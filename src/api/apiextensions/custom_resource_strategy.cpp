#include "api/apiextensions/custom_resource_strategy.h"

#include "apimachinery/labels.h"
#include "apimachinery/schema_default.h"
#include "apimachinery/schema_prune.h"
#include "apimachinery/schema_validate.h"

namespace capstan::api::apiextensions {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

registry::DefaultStrategy::Options OptionsOf(const CustomResourceStrategy::Config& c) {
  registry::DefaultStrategy::Options o;
  o.namespaced = c.namespaced;
  o.has_status = c.has_status;
  o.track_generation = true;
  return o;
}

}  // namespace

CustomResourceStrategy::CustomResourceStrategy(Config c)
    : DefaultStrategy(OptionsOf(c)), c_(std::move(c)), columns_(c_.columns) {
  for (const auto& f : c_.selectable_fields) {
    auto steps = ParseSimpleJsonPath(f);
    if (steps) selectable_.emplace_back(f.substr(1), std::move(*steps));
  }
}

void CustomResourceStrategy::PruneAndDefault(Object& obj) const {
  if (!c_.schema) return;
  json::value v(std::move(obj));
  am::PruneBySchema(v, c_.schema, true);
  am::PruneNonNullableNullsWithoutDefaults(v, c_.schema);
  am::ApplyDefaults(v, c_.schema);
  obj = std::move(v.get_object());
}

ErrorList CustomResourceStrategy::ValidateSchema(const Object& obj) const {
  ErrorList errs;
  if (!c_.schema) return errs;
  json::value v(obj);
  errs = am::ValidateBySchema(*c_.schema, v);
  // The scale subresource's selector must be a label selector string when present.
  if (!c_.label_selector_path.empty()) {
    auto steps = ParseSimpleJsonPath(c_.label_selector_path);
    if (steps) {
      auto r = EvalJsonPath(*steps, v);
      if (!r.empty() && !r[0]->is_string()) {
        errs.push_back(InvalidError(FieldPath(c_.label_selector_path.substr(1)), FieldValue(*r[0]),
                                    "must be a string"));
      }
    }
  }
  return errs;
}

void CustomResourceStrategy::PrepareForCreate(const registry::Context& ctx, Object& obj) const {
  DefaultStrategy::PrepareForCreate(ctx, obj);
  PruneAndDefault(obj);
}

void CustomResourceStrategy::PrepareForUpdate(const registry::Context& ctx, Object& obj, const Object& old) const {
  PruneAndDefault(obj);
  DefaultStrategy::PrepareForUpdate(ctx, obj, old);
}

ErrorList CustomResourceStrategy::Validate(const registry::Context&, const Object& obj) const { return ValidateSchema(obj); }

ErrorList CustomResourceStrategy::ValidateUpdate(const registry::Context&, const Object& obj, const Object&) const {
  return ValidateSchema(obj);
}

std::vector<std::string> CustomResourceStrategy::SelectableFieldNames() const {
  auto names = Strategy::SelectableFieldNames();
  for (const auto& [name, steps] : selectable_) names.push_back(name);
  return names;
}

am::FieldSet CustomResourceStrategy::SelectableFields(const Object& obj) const {
  am::FieldSet f = Strategy::SelectableFields(obj);
  if (selectable_.empty()) return f;
  json::value v(obj);
  for (const auto& [name, steps] : selectable_) {
    auto r = EvalJsonPath(steps, v);
    std::string s;
    if (!r.empty()) {
      const json::value& x = *r[0];
      if (x.is_string()) {
        s = std::string(x.get_string());
      } else if (x.is_bool()) {
        s = x.get_bool() ? "true" : "false";
      } else if (x.is_int64()) {
        s = std::to_string(x.get_int64());
      } else if (x.is_uint64()) {
        s = std::to_string(x.get_uint64());
      }
    }
    f[name] = s;
  }
  return f;
}

void CustomResourceStatusStrategy::PrepareForUpdate(const registry::Context& ctx, Object& obj, const Object& old) const {
  cr_->PruneAndDefault(obj);
  StatusStrategy::PrepareForUpdate(ctx, obj, old);
}

ErrorList CustomResourceStatusStrategy::ValidateUpdate(const registry::Context& ctx, const Object& obj, const Object& old) const {
  ErrorList errs = StatusStrategy::ValidateUpdate(ctx, obj, old);
  for (auto& e : cr_->ValidateSchema(obj)) errs.push_back(std::move(e));
  return errs;
}

}  // namespace capstan::api::apiextensions
