// api/core/core_helpers.h: what the core/v1 workload and service files share: JSON accessors that
// create what they write, kube's label formatting for printers, field-error helpers for kube's
// string validators, and quantities as kube's typed decoder treats them (every resource.Quantity in
// an object is rewritten in kube's canonical form, ResourceList entries rounded up to milli units,
// and an unparsable one is the 400 decode error kube answers).
//
// CoreStore is the Store of those resources: an OwningStore whose creates and updates first decode
// quantities that way, and CoreSubresourceStore is its status-like subresource. Thread-safe.
#pragma once

#include <boost/json.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/common.h"
#include "apimachinery/field_errors.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/schema.h"
#include "registry/rest_resource.h"

namespace capstan::api::core {

namespace json = boost::json;

// The object at key, created (or replacing a non-object) when needed.
json::object& ObjectField(json::object& o, std::string_view key);
// The array at key, or null.
json::array* ArrayField(json::object& o, std::string_view key);
std::string StrOf(const json::value* v);
int64_t IntOf(const json::value* v, int64_t def = 0);
std::vector<std::string> SortedKeys(const json::object* o);
// The string entries of a map-valued field, in document order.
apimachinery::StringPairs PairsOf(const json::object* m);
// kube's labels.FormatLabels: "a=1,b=2" sorted by key, "<none>" when empty.
std::string FormatLabels(const json::object* labels);
// kube's labels.SelectorFromSet(...).String(): "a=1,b=2", "" when empty.
std::string SelectorString(const json::object* labels);

// One Invalid error per problem of a string validator (kube's ValidateDNS1123Label & co).
ErrorList ProblemsAt(const std::vector<std::string>& problems, const FieldPath& p, std::string_view value);
// Go's %#v of a []string (kube prints such bad values that way).
std::string GoStringSlice(const std::vector<std::string>& v);
// An Invalid error whose bad value kube prints in Go syntax (a struct or a slice).
FieldError InvalidGoValue(const FieldPath& p, std::string go_value, std::string detail);

// Rewrites every Quantity of `v` (described by `schema`) in kube's canonical form; the first value
// that is not a quantity gives kube's 400 decode error for `kind`.
Status CanonicalizeQuantities(json::object& obj, const apimachinery::Schema* schema, const std::string& api_version,
                              const std::string& kind);

// kube's ValidateResourceQuantityValue / ValidateNonnegativeQuantity for one entry of a ResourceList.
ErrorList ValidateNonnegativeQuantity(const json::value& v, const FieldPath& p);

// A Store that decodes quantities as kube does before its creates and updates.
class CoreStore : public registry::OwningStore {
 public:
  CoreStore(registry::StoreConfig c, std::shared_ptr<const registry::Strategy> strategy,
            const apimachinery::Schema* schema)
      : OwningStore(std::move(c), std::move(strategy)), schema_(schema) {}

  Task<StatusOr<Object>> Create(const registry::Context& ctx, Object obj, const registry::CreateOptions& opts) override;
  Task<StatusOr<registry::UpdateOutcome>> Update(const registry::Context& ctx, const std::string& name,
                                                 registry::ObjectTransform transform,
                                                 const registry::UpdateOptions& opts) override;
  const apimachinery::Schema* schema() const { return schema_; }

 protected:
  registry::ObjectTransform Decoding(registry::ObjectTransform t) const;
  const apimachinery::Schema* schema_;
};

// A subresource (status, ephemeralcontainers) over a CoreStore with its own strategy: get, update, patch.
class CoreSubresourceStore : public registry::Patcher {
 public:
  CoreSubresourceStore(registry::StoreConfig c, std::shared_ptr<const registry::Strategy> strategy,
                       const apimachinery::Schema* schema)
      : inner_(std::move(c), std::move(strategy), schema) {}
  const registry::ResourceInfo& Info() const override { return inner_.Info(); }
  Task<StatusOr<Object>> Get(const registry::Context& ctx, const std::string& name,
                             const registry::GetOptions& opts) override {
    return inner_.Get(ctx, name, opts);
  }
  Task<StatusOr<registry::UpdateOutcome>> Update(const registry::Context& ctx, const std::string& name,
                                                 registry::ObjectTransform transform,
                                                 const registry::UpdateOptions& opts) override {
    // A coroutine, so `sub` lives in this frame until the lazy inner update has finished with it.
    registry::Context sub = ctx;
    sub.subresource = inner_.Info().subresource;
    co_return co_await inner_.Update(sub, name, std::move(transform), opts);
  }

 private:
  CoreStore inner_;
};

// The StoreConfig MakeResource would build for `info` (key root <prefix>/<storage_resource>).
registry::StoreConfig CoreStoreConfig(const registry::GroupDeps& deps, const registry::ResourceInfo& info,
                                      const std::string& storage_resource = "");
const apimachinery::Schema* SchemaFor(const registry::GroupDeps& deps, const registry::ResourceInfo& info);

// A resource served by a CoreStore, plus its status subresource when `status` is set.
std::vector<registry::RestResource> MakeCoreResource(const registry::GroupDeps& deps, registry::ResourceInfo info,
                                                     std::shared_ptr<const registry::Strategy> strategy,
                                                     std::shared_ptr<const registry::Strategy> status = nullptr,
                                                     const std::string& storage_resource = "");

}  // namespace capstan::api::core
