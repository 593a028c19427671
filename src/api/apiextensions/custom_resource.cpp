#include "api/apiextensions/custom_resource.h"

#include <algorithm>
#include <map>

#include "api/apiextensions/custom_resource_conversion.h"
#include "api/apiextensions/custom_resource_strategy.h"
#include "api/apiextensions/printer_columns.h"
#include "apimachinery/errors.h"
#include "registry/converting_store.h"
#include "registry/scale_store.h"
#include "util/strings.h"

namespace capstan::api::apiextensions {

namespace am = capstan::apimachinery;
namespace json = boost::json;

std::string DefinitionName(const std::string& group, const std::string& version, const std::string& kind) {
  auto parts = Split(group, '.');
  std::reverse(parts.begin(), parts.end());
  std::vector<std::string> p(parts.begin(), parts.end());
  return Join(p, ".") + "." + version + "." + kind;
}

namespace {

// The schema kube publishes for a custom resource kind: the CRD's schema with apiVersion, kind and
// metadata (ObjectMeta) filled in, tagged with its group, version and kind.
json::value PublishedSchema(const Crd& crd, const CrdVersion& v) {
  json::object s;
  if (v.schema && v.schema->is_object()) s = v.schema->get_object();
  json::value& pv = s["properties"];
  if (!pv.is_object()) pv = json::object();
  json::object& props = pv.get_object();
  if (!props.contains("apiVersion")) {
    props["apiVersion"] = json::object{
        {"type", "string"},
        {"description",
         "APIVersion defines the versioned schema of this representation of an object. Servers should convert "
         "recognized schemas to the latest internal value, and may reject unrecognized values. More info: "
         "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"}};
  }
  if (!props.contains("kind")) {
    props["kind"] = json::object{
        {"type", "string"},
        {"description",
         "Kind is a string value representing the REST resource this object represents. Servers may infer this "
         "from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: "
         "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"}};
  }
  props["metadata"] = json::object{{"$ref", "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}};
  if (!s.contains("type")) s["type"] = "object";
  s["x-kubernetes-group-version-kind"] =
      json::array{json::object{{"group", crd.group}, {"kind", crd.names.kind}, {"version", v.name}}};
  return s;
}

// A non-storage version: converted through the storage version's Store, printed with its own
// additionalPrinterColumns.
class CustomResourceVersionStore : public registry::ConvertingStore {
 public:
  CustomResourceVersionStore(registry::ResourceInfo info, std::shared_ptr<registry::Storage> inner,
                             std::shared_ptr<const registry::VersionConverter> conv, const std::vector<PrinterColumn>& columns,
                             bool storage_version_served)
      : ConvertingStore(std::move(info), std::move(inner), std::move(conv)),
        columns_(columns),
        storage_version_served_(storage_version_served) {}
  std::vector<registry::TableColumn> TableColumns() const override { return columns_.Columns(); }
  boost::json::array TableCells(const registry::Object& obj) const override { return columns_.Cells(obj); }
  // kube's CRD discovery publishes a storageVersionHash only when the storage version is served.
  std::optional<am::GroupVersionKind> StorageVersion() const override {
    return storage_version_served_ ? ConvertingStore::StorageVersion() : std::nullopt;
  }

 private:
  PrinterColumns columns_;
  bool storage_version_served_;
};

std::vector<std::string> SplitPath(const std::string& p) {
  std::vector<std::string> out;
  for (auto& x : Split(p, '.')) {
    if (!x.empty()) out.emplace_back(x);
  }
  return out;
}

// The Store of custom resources: creates are refused while the CRD is terminating.
class CustomResourceStore : public registry::OwningStore {
 public:
  CustomResourceStore(registry::StoreConfig c, std::shared_ptr<const registry::Strategy> s,
                      std::shared_ptr<std::atomic<bool>> terminating)
      : OwningStore(std::move(c), std::move(s)), terminating_(std::move(terminating)) {}
  Task<StatusOr<registry::Object>> Create(const registry::Context& ctx, registry::Object obj,
                                          const registry::CreateOptions& opts) override {
    if (terminating_->load()) {
      Status st = am::NewMethodNotSupported(Info().GroupResource(), "create");
      st.WithMessage("create not allowed while custom resource definition is terminating");
      co_return st;
    }
    co_return co_await OwningStore::Create(ctx, std::move(obj), opts);
  }

 private:
  std::shared_ptr<std::atomic<bool>> terminating_;
};

}  // namespace

StatusOr<ServedCustomResource> BuildCustomResource(const CustomResourceDeps& cdeps, const Object& crd_obj) {
  const registry::GroupDeps& deps = cdeps.deps;
  Crd crd = ParseCrd(crd_obj);
  const CrdVersion* storage_version = crd.StorageVersion();
  if (!storage_version) return Status(500, "InternalError", "CustomResourceDefinition " + crd.name + " has no storage version");
  ServedCustomResource out;
  out.terminating = std::make_shared<std::atomic<bool>>(false);
  // The schema trees live as long as the storages (the strategy holds them).
  auto keep = std::make_shared<std::vector<std::shared_ptr<const am::Schema>>>();

  auto info_for = [&](const CrdVersion& v) {
    registry::ResourceInfo info;
    info.group = crd.group;
    info.version = v.name;
    info.resource = crd.names.plural;
    info.kind = crd.names.kind;
    info.list_kind = crd.names.list_kind;
    info.singular = crd.names.singular;
    info.namespaced = crd.Namespaced();
    info.short_names = crd.names.short_names;
    info.categories = crd.names.categories;
    info.definition = DefinitionName(crd.group, v.name, crd.names.kind);
    return info;
  };
  struct Built {
    std::shared_ptr<registry::OwningStore> store;
    std::shared_ptr<registry::Storage> status;
    std::shared_ptr<const CustomResourceStrategy> strategy;
    const apimachinery::Schema* published = nullptr;
  };
  // The Store of a version's strategy over the shared key root (objects in the storage version).
  const std::string key_root = deps.prefix + "/" + crd.group + "/" + crd.names.plural;
  // Every version's strategy: the storage version's Store uses its own; all of them prune and
  // default objects in their version when converting.
  std::map<std::string, std::shared_ptr<const CustomResourceStrategy>> strategies;
  auto make_strategy = [&](const CrdVersion& v) -> StatusOr<std::shared_ptr<CustomResourceStrategy>> {
    std::shared_ptr<const am::Schema> schema;
    if (v.schema) {
      auto parsed = am::ParseSchema(*v.schema);
      if (!parsed.ok()) return parsed.status();
      schema = std::move(*parsed);
      keep->push_back(schema);
    }
    CustomResourceStrategy::Config sc;
    sc.namespaced = crd.Namespaced();
    sc.has_status = v.has_status;
    sc.schema = schema.get();
    sc.rules = cel::CrdRules::Build(schema.get());  // compiled once per CRD version
    sc.keep_alive = keep;
    sc.columns = v.columns;
    sc.selectable_fields = v.selectable_fields;
    if (v.scale) sc.label_selector_path = v.scale->label_selector_path;
    auto strategy = std::make_shared<CustomResourceStrategy>(std::move(sc));
    strategies[crd.group + "/" + v.name] = strategy;
    return strategy;
  };
  for (const auto& v : crd.versions) {
    auto st = make_strategy(v);
    if (!st.ok()) return st.status();
  }
  auto build = [&](const CrdVersion& v) -> StatusOr<Built> {
    Built b;
    auto published = am::ParseSchema(PublishedSchema(crd, v), cdeps.builtin);
    if (published.ok()) {
      b.published = published->get();
      keep->push_back(std::move(*published));
    }
    std::shared_ptr<const CustomResourceStrategy> strategy = strategies[crd.group + "/" + v.name];
    const am::Schema* schema = strategy->schema();
    b.strategy = strategy;
    registry::StoreConfig c;
    c.info = info_for(v);
    c.storage = deps.store;
    c.key_root = key_root;
    if (deps.store_for) c.storage = deps.store_for(key_root, c.info, strategy);
    c.admission = deps.admission;
    c.clock = deps.clock;
    c.schema = b.published ? b.published : schema;  // server-side apply's merge rules for managedFields (not normalized as Go)
    b.store = std::make_shared<CustomResourceStore>(c, strategy, out.terminating);
    if (v.has_status) {
      registry::StoreConfig stc = c;
      stc.info.subresource = "status";
      b.status = std::make_shared<registry::SubresourceStore>(stc, std::make_shared<CustomResourceStatusStrategy>(strategy));
    }
    return b;
  };

  auto storage = build(*storage_version);
  if (!storage.ok()) return storage.status();
  const std::string storage_api_version = crd.group + "/" + storage_version->name;
  std::shared_ptr<const ConversionWebhook> webhook;
  if (crd.conversion_strategy == "Webhook") {
    webhook = std::make_shared<ConversionWebhook>(ParseConversionWebhook(crd_obj), cdeps.webhook);
  }
  bool any_defaults = false;
  for (const auto& v : crd.versions) any_defaults = any_defaults || SchemaHasDefaults(v.schema);
  // Objects written under an earlier storage version keep its apiVersion in storage until rewritten;
  // reads of the storage version then convert them too (kube decodes every object into the version
  // asked for: None only sets apiVersion).
  bool older_stored = false;
  for (const auto& sv : crd.stored_versions) older_stored = older_stored || sv != storage_version->name;
  auto converter_for = [&](const CrdVersion& v) {
    CustomResourceConversion cc;
    cc.served_api_version = crd.group + "/" + v.name;
    cc.storage_api_version = storage_api_version;
    cc.strategies = strategies;
    cc.webhook = webhook;
    return std::make_shared<CustomResourceConverter>(std::move(cc));
  };
  for (const auto& v : crd.versions) {
    if (!v.served) continue;
    registry::ResourceInfo info = info_for(v);
    Built b;
    std::shared_ptr<registry::Storage> main;
    std::shared_ptr<registry::Storage> status;
    if (&v == storage_version && !any_defaults && !older_stored) {
      b = *storage;
      main = b.store;
      status = b.status;
    } else if (&v == storage_version) {
      // Read through the converter for its defaulting (objects stored before a default existed) and
      // for objects stored in an earlier storage version.
      b = *storage;
      auto conv = converter_for(v);
      main = std::make_shared<CustomResourceVersionStore>(info, b.store, conv, v.columns, storage_version->served);
      if (b.status) {
        registry::ResourceInfo si = info;
        si.subresource = "status";
        status = registry::WrapConverting(si, b.status, conv);
      }
    } else {
      // Objects are stored and validated in the storage version, converted both ways; this version
      // brings its own published schema.
      b = *storage;
      b.published = nullptr;
      if (auto published = am::ParseSchema(PublishedSchema(crd, v), cdeps.builtin); published.ok()) {
        b.published = published->get();
        keep->push_back(std::move(*published));
      }
      auto conv = converter_for(v);
      main = std::make_shared<CustomResourceVersionStore>(info, b.store, conv, v.columns, storage_version->served);
      if (b.status && v.has_status) {
        registry::ResourceInfo si = info;
        si.subresource = "status";
        status = registry::WrapConverting(si, b.status, conv);
      }
    }
    registry::RestResource r;
    r.info = info;
    r.storage = main;
    r.schema = b.published;
    r.protobuf = false;
    out.resources.push_back(std::move(r));
    if (status) {
      registry::RestResource s;
      s.info = info;
      s.info.subresource = "status";
      s.storage = status;
      s.schema = b.published;
      s.protobuf = false;
      out.resources.push_back(std::move(s));
    }
    if (v.scale) {
      // The scale store reads and writes the stored object: under None it has this version's shape
      // (only apiVersion differs), so this version's paths apply; a webhook may move fields, so the
      // storage version's paths apply when it has a scale subresource.
      const ScaleSubresource& paths =
          webhook && storage_version->scale ? *storage_version->scale : *v.scale;
      registry::ScaleConfig scfg;
      scfg.spec_replicas_path = SplitPath(paths.spec_replicas_path);
      scfg.status_replicas_path = SplitPath(paths.status_replicas_path);
      scfg.default_replicas = 0;
      auto selector_path = SplitPath(paths.label_selector_path);
      scfg.selector = [selector_path](const registry::Object& parent) -> std::string {
        if (selector_path.empty()) return "";
        const json::value* x = nullptr;
        const json::object* o = &parent;
        for (size_t i = 0; i < selector_path.size(); ++i) {
          x = o ? o->if_contains(selector_path[i]) : nullptr;
          if (!x) return "";
          o = x->is_object() ? &x->get_object() : nullptr;
        }
        return x && x->is_string() ? std::string(x->get_string()) : "";
      };
      auto scale_table = std::make_shared<const PrinterColumns>(ScalePrinterColumns());
      scfg.table_columns = scale_table->Columns();
      scfg.table_cells = [scale_table](const registry::Object& scale) { return scale_table->Cells(scale); };
      registry::RestResource sc;
      sc.info = registry::ScaleInfo(info);
      sc.storage = std::make_shared<registry::ScaleStore>(b.store, sc.info, std::move(scfg));
      sc.protobuf = false;
      out.resources.push_back(std::move(sc));
    }
  }
  out.schemas = *keep;
  return out;
}

}  // namespace capstan::api::apiextensions
