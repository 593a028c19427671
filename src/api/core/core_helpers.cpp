#include "api/core/core_helpers.h"

#include <algorithm>

#include "apimachinery/errors.h"
#include "apimachinery/gvk.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/quantity.h"
#include "util/strings.h"

namespace capstan::api::core {

namespace am = capstan::apimachinery;

json::object& ObjectField(json::object& o, std::string_view key) {
  json::value& v = o[key];
  if (!v.is_object()) v = json::object();
  return v.get_object();
}

json::array* ArrayField(json::object& o, std::string_view key) {
  auto* v = o.if_contains(key);
  return v && v->is_array() ? &v->get_array() : nullptr;
}

std::string StrOf(const json::value* v) { return v && v->is_string() ? std::string(v->get_string()) : std::string(); }

int64_t IntOf(const json::value* v, int64_t def) {
  if (!v) return def;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64()) return static_cast<int64_t>(v->get_uint64());
  if (v->is_double()) return static_cast<int64_t>(v->get_double());
  return def;
}

std::vector<std::string> SortedKeys(const json::object* o) {
  std::vector<std::string> keys;
  if (o) {
    for (const auto& kv : *o) keys.emplace_back(kv.key());
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

am::StringPairs PairsOf(const json::object* m) {
  am::StringPairs out;
  if (m) {
    for (const auto& kv : *m) {
      if (kv.value().is_string()) out.emplace_back(std::string(kv.key()), std::string(kv.value().get_string()));
    }
  }
  return out;
}

std::string SelectorString(const json::object* labels) {
  std::string out;
  for (const auto& k : SortedKeys(labels)) {
    if (!out.empty()) out += ",";
    out += k + "=" + StrOf(labels->if_contains(k));
  }
  return out;
}

std::string FormatLabels(const json::object* labels) {
  std::string s = SelectorString(labels);
  return s.empty() ? "<none>" : s;
}

ErrorList ProblemsAt(const std::vector<std::string>& problems, const FieldPath& p, std::string_view value) {
  ErrorList errs;
  for (const auto& msg : problems) errs.push_back(InvalidError(p, value, msg));
  return errs;
}

std::string GoStringSlice(const std::vector<std::string>& v) {
  if (v.empty()) return "[]string(nil)";
  std::string out = "[]string{";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ", ";
    out += GoQuote(v[i]);
  }
  return out + "}";
}

FieldError InvalidGoValue(const FieldPath& p, std::string go_value, std::string detail) {
  FieldError e = InvalidError(p, "", std::move(detail));
  e.omit_value = true;
  e.detail = go_value + (e.detail.empty() ? "" : ": " + e.detail);
  return e;
}

namespace {

bool IsQuantitySchema(const am::Schema* s) {
  if (!s) return false;
  constexpr std::string_view kQuantity = "io.k8s.apimachinery.pkg.api.resource.Quantity";
  return EndsWith(s->ref, kQuantity) || EndsWith(s->Deref().ref, kQuantity);
}

// kube's SetDefaults_ResourceList: entries finer than a milli unit are rounded up to one.
am::Quantity RoundUpToMilli(const am::Quantity& q) {
  am::Quantity m = am::Quantity::FromMilli(q.MilliValue(), q.format());
  return m.Cmp(q) == 0 ? q : m;
}

Status Walk(json::value& v, const am::Schema* s, bool in_list) {
  if (!s) return Status();
  if (IsQuantitySchema(s)) {
    if (v.is_null()) return Status();
    auto q = am::ParseQuantityJson(v);
    if (!q.ok()) return q.TakeStatus();
    v = json::value((in_list ? RoundUpToMilli(*q) : *q).String());
    return Status();
  }
  const am::Schema& d = s->Deref();
  if (v.is_object()) {
    auto& o = v.get_object();
    if (!d.properties.empty()) {
      for (auto& kv : o) {
        auto it = d.property_index.find(std::string_view(kv.key()));
        if (it != d.property_index.end()) RETURN_IF_ERROR(Walk(kv.value(), it->second, false));
      }
    } else if (d.additional_properties) {
      for (auto& kv : o) RETURN_IF_ERROR(Walk(kv.value(), d.additional_properties, true));
    }
  } else if (v.is_array() && d.items) {
    for (auto& e : v.get_array()) RETURN_IF_ERROR(Walk(e, d.items, false));
  }
  return Status();
}

}  // namespace

Status CanonicalizeQuantities(json::object& obj, const am::Schema* schema, const std::string& api_version,
                              const std::string& kind) {
  if (!schema) return Status();
  json::value v(std::move(obj));
  Status st = Walk(v, schema, false);
  obj = std::move(v.get_object());
  if (st.ok()) return st;
  auto gvk = am::FromApiVersionAndKind(api_version, kind);
  return am::NewDecodeError(kind, &gvk, st.message(), "");
}

ErrorList ValidateNonnegativeQuantity(const json::value& v, const FieldPath& p) {
  auto q = am::ParseQuantityJson(v);
  if (!q.ok()) return {InvalidError(p, v, std::string(q.status().message()))};
  if (q->Sign() < 0) return {InvalidError(p, q->String(), std::string(am::kIsNegativeErrorMsg))};
  return {};
}

Task<StatusOr<Object>> CoreStore::Create(const registry::Context& ctx, Object obj, const registry::CreateOptions& opts) {
  CO_RETURN_IF_ERROR(CanonicalizeQuantities(obj, schema_, c_.info.ApiVersion(), c_.info.kind));
  co_return co_await OwningStore::Create(ctx, std::move(obj), opts);
}

registry::ObjectTransform CoreStore::Decoding(registry::ObjectTransform t) const {
  return [t = std::move(t), this](const Object* cur) -> Task<StatusOr<Object>> {
    auto obj = co_await t(cur);
    if (!obj.ok()) co_return obj.TakeStatus();
    CO_RETURN_IF_ERROR(CanonicalizeQuantities(*obj, schema_, c_.info.ApiVersion(), c_.info.kind));
    co_return std::move(*obj);
  };
}

Task<StatusOr<registry::UpdateOutcome>> CoreStore::Update(const registry::Context& ctx, const std::string& name,
                                                          registry::ObjectTransform transform,
                                                          const registry::UpdateOptions& opts) {
  co_return co_await OwningStore::Update(ctx, name, Decoding(std::move(transform)), opts);
}

const am::Schema* SchemaFor(const registry::GroupDeps& deps, const registry::ResourceInfo& info);

registry::StoreConfig CoreStoreConfig(const registry::GroupDeps& deps, const registry::ResourceInfo& info,
                                      const std::string& storage_resource) {
  registry::StoreConfig c;
  c.info = info;
  c.storage = deps.store;
  c.key_root = deps.prefix + "/" + (storage_resource.empty() ? info.resource : storage_resource);
  c.admission = deps.admission;
  c.clock = deps.clock;
  c.schema = SchemaFor(deps, info);
  c.normalize_as_go = c.schema != nullptr;
  return c;
}

const am::Schema* SchemaFor(const registry::GroupDeps& deps, const registry::ResourceInfo& info) {
  return deps.schemas ? deps.schemas->Find(info.definition) : nullptr;
}

std::vector<registry::RestResource> MakeCoreResource(const registry::GroupDeps& deps, registry::ResourceInfo info,
                                                     std::shared_ptr<const registry::Strategy> strategy,
                                                     std::shared_ptr<const registry::Strategy> status,
                                                     const std::string& storage_resource) {
  std::vector<registry::RestResource> out;
  const am::Schema* schema = SchemaFor(deps, info);
  registry::StoreConfig c = CoreStoreConfig(deps, info, storage_resource);
  out.push_back({info, std::make_shared<CoreStore>(c, strategy, schema), schema, true});
  if (status) {
    registry::StoreConfig sc = c;
    sc.info.subresource = "status";
    out.push_back({sc.info, std::make_shared<CoreSubresourceStore>(sc, status, schema), schema, true});
  }
  return out;
}

}  // namespace capstan::api::core
