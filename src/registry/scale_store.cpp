#include "registry/scale_store.h"

#include <boost/json.hpp>

#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"
#include "registry/table.h"

namespace capstan::registry {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

const json::value* At(const Object& o, const std::vector<std::string>& path) {
  const json::object* cur = &o;
  const json::value* v = nullptr;
  for (const auto& k : path) {
    if (!cur) return nullptr;
    v = cur->if_contains(k);
    if (!v) return nullptr;
    cur = v->is_object() ? &v->get_object() : nullptr;
  }
  return v;
}

void SetAt(Object& o, const std::vector<std::string>& path, json::value v) {
  json::object* cur = &o;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    json::value& next = (*cur)[path[i]];
    if (!next.is_object()) next = json::object();
    cur = &next.get_object();
  }
  (*cur)[path.back()] = std::move(v);
}

int64_t IntOf(const json::value* v, int64_t def) {
  if (!v) return def;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64()) return static_cast<int64_t>(v->get_uint64());
  return def;
}

}  // namespace

ResourceInfo ScaleInfo(const ResourceInfo& parent) {
  ResourceInfo i = parent;
  i.subresource = "scale";
  i.kind = "Scale";
  i.kind_group = "autoscaling";
  i.kind_version = "v1";
  i.list_kind.clear();
  i.short_names.clear();
  i.categories.clear();
  i.definition = "io.k8s.api.autoscaling.v1.Scale";
  return i;
}

ScaleStore::ScaleStore(std::shared_ptr<Store> parent, ResourceInfo info, ScaleConfig config)
    : parent_(std::move(parent)), info_(std::move(info)), config_(std::move(config)) {}

Object ScaleStore::ToScale(const Object& parent) const {
  Object s;
  s["kind"] = "Scale";
  s["apiVersion"] = "autoscaling/v1";
  json::object md;
  md["name"] = am::GetName(parent);
  if (!am::GetNamespace(parent).empty()) md["namespace"] = am::GetNamespace(parent);
  md["uid"] = am::GetUid(parent);
  md["resourceVersion"] = am::GetResourceVersion(parent);
  md["creationTimestamp"] = am::GetCreationTimestamp(parent);
  s["metadata"] = std::move(md);
  json::object spec;
  int64_t replicas = IntOf(At(parent, config_.spec_replicas_path), config_.default_replicas);
  if (replicas != 0) spec["replicas"] = replicas;  // omitempty in autoscaling/v1
  s["spec"] = std::move(spec);
  json::object status;
  status["replicas"] = IntOf(At(parent, config_.status_replicas_path), 0);
  std::string selector = config_.selector ? config_.selector(parent) : std::string();
  if (!selector.empty()) status["selector"] = selector;
  s["status"] = std::move(status);
  return s;
}

std::vector<TableColumn> ScaleStore::TableColumns() const {
  if (config_.table_cells) return config_.table_columns;
  return {NameColumn(),
          {"Desired", "integer", "", "replicas is the desired number of instances for the scaled object.", 0},
          {"Available", "integer", "", "replicas is the actual number of observed instances of the scaled object.", 0}};
}

json::array ScaleStore::TableCells(const Object& scale) const {
  if (config_.table_cells) return config_.table_cells(scale);
  return json::array{json::value(am::GetName(scale)), IntOf(At(scale, {"spec", "replicas"}), 0),
                     IntOf(At(scale, {"status", "replicas"}), 0)};
}

Task<StatusOr<Object>> ScaleStore::Get(const Context& ctx, const std::string& name, const GetOptions& opts) {
  auto parent = co_await parent_->Get(ctx, name, opts);
  if (!parent.ok()) co_return parent.TakeStatus();
  co_return ToScale(*parent);
}

Task<StatusOr<UpdateOutcome>> ScaleStore::Update(const Context& ctx, const std::string& name, ObjectTransform transform,
                                                 const UpdateOptions& opts) {
  const ResourceInfo& parent_info = parent_->Info();
  auto to_parent = [this, &name, &parent_info, transform = std::move(transform)](
                       const Object* current) -> Task<StatusOr<Object>> {
    if (!current) co_return am::NewNotFound(parent_info.GroupResource(), name);
    Object scale = ToScale(*current);
    auto next = co_await transform(&scale);
    if (!next.ok()) co_return next.TakeStatus();
    // kube's ValidateScale.
    ErrorList errs;
    const json::value* replicas_v = At(*next, {"spec", "replicas"});
    int64_t replicas = IntOf(replicas_v, 0);
    if (replicas < 0) {
      errs.push_back(InvalidError(FieldPath("spec").Child("replicas"), replicas, "must be greater than or equal to 0"));
    }
    if (!errs.empty()) co_return am::NewInvalid({"autoscaling", "Scale"}, name, errs);
    Object parent = *current;
    std::string_view rv = am::GetResourceVersion(*next);
    // A resourceVersion in the Scale is a precondition on the parent; without one the update is
    // unconditional.
    am::SetResourceVersion(parent, rv.empty() ? am::GetResourceVersion(*current) : rv);
    SetAt(parent, config_.spec_replicas_path, replicas);
    co_return parent;
  };
  Context sub = ctx;
  sub.subresource = "scale";
  auto r = co_await parent_->Update(sub, name, to_parent, opts);
  if (!r.ok()) co_return r.TakeStatus();
  co_return UpdateOutcome{ToScale(r->object), false};
}

}  // namespace capstan::registry
