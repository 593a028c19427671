#include "api/apiextensions/crd_resource.h"

#include <algorithm>

#include "api/apiextensions/crd_types.h"
#include "api/apiextensions/crd_validation.h"
#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"

namespace capstan::api::apiextensions {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

// kube's v1 defaults (SetDefaults_CustomResourceDefinitionSpec).
void ApplyCrdDefaults(Object& obj) {
  json::value& sv = obj["spec"];
  if (!sv.is_object()) return;
  json::object& spec = sv.get_object();
  if (auto* nv = spec.if_contains("names"); nv && nv->is_object()) {
    json::object& names = nv->get_object();
    std::string kind = names.contains("kind") && names["kind"].is_string() ? std::string(names["kind"].get_string()) : "";
    auto empty = [&](const char* k) { return !names.contains(k) || !names[k].is_string() || names[k].get_string().empty(); };
    if (empty("singular")) {
      std::string s = kind;
      std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
      names["singular"] = s;
    }
    if (empty("listKind") && !kind.empty()) names["listKind"] = kind + "List";
  }
  if (!spec.contains("conversion") || spec["conversion"].is_null()) spec["conversion"] = json::object{{"strategy", "None"}};
  if (auto* cv = spec.if_contains("conversion"); cv && cv->is_object()) {
    if (auto* wv = cv->get_object().if_contains("webhook"); wv && wv->is_object()) {
      if (auto* cc = wv->get_object().if_contains("clientConfig"); cc && cc->is_object()) {
        if (auto* svc = cc->get_object().if_contains("service"); svc && svc->is_object() && !svc->get_object().contains("port")) {
          svc->get_object()["port"] = 443;
        }
      }
    }
  }
}

void AddStoredVersion(Object& obj) {
  Crd crd = ParseCrd(obj);
  const CrdVersion* sv = crd.StorageVersion();
  if (!sv) return;
  json::value& st = obj["status"];
  if (!st.is_object()) st = json::object();
  json::value& stored = st.get_object()["storedVersions"];
  if (!stored.is_array()) stored = json::array();
  for (const auto& v : stored.get_array()) {
    if (v.is_string() && v.get_string() == sv->name) return;
  }
  stored.get_array().emplace_back(sv->name);
}

class CrdStrategy : public registry::Strategy {
 public:
  bool NamespaceScoped() const override { return false; }
  void PrepareForCreate(const registry::Context&, Object& obj) const override {
    ApplyCrdDefaults(obj);
    obj["status"] = json::object();
    am::SetGeneration(obj, 1);
    AddStoredVersion(obj);
  }
  void PrepareForUpdate(const registry::Context&, Object& obj, const Object& old) const override {
    ApplyCrdDefaults(obj);
    if (const auto* s = old.if_contains("status")) {
      obj["status"] = *s;
    } else {
      obj.erase("status");
    }
    int64_t gen = am::GetGeneration(old);
    const json::value* ns = obj.if_contains("spec");
    const json::value* os = old.if_contains("spec");
    if ((ns == nullptr) != (os == nullptr) || (ns && *ns != *os)) ++gen;
    am::SetGeneration(obj, gen == 0 ? 1 : gen);
    AddStoredVersion(obj);
  }
  ErrorList Validate(const registry::Context&, const Object& obj) const override { return ValidateCrd(obj); }
  ErrorList ValidateUpdate(const registry::Context&, const Object& obj, const Object& old) const override {
    return ValidateCrdUpdate(obj, old);
  }
};

class CrdStatusStrategy : public registry::Strategy {
 public:
  bool NamespaceScoped() const override { return false; }
  void PrepareForUpdate(const registry::Context&, Object& obj, const Object& old) const override {
    if (const auto* s = old.if_contains("spec")) {
      obj["spec"] = *s;
    } else {
      obj.erase("spec");
    }
  }
  ErrorList ValidateUpdate(const registry::Context&, const Object& obj, const Object&) const override {
    return ValidateCrdStatus(obj);
  }
};

// kube's CRD REST: the first delete adds the cleanup finalizer (so the CRD stays, Terminating, until
// its custom resources are gone), then deletes as usual.
class CrdStore : public registry::OwningStore {
 public:
  CrdStore(registry::StoreConfig c, std::shared_ptr<const registry::Strategy> s, std::shared_ptr<CrdChangeSignal> signal)
      : OwningStore(std::move(c), std::move(s)), signal_(std::move(signal)) {}

  // kube's apiextensions server stores CRDs as v1beta1 (crd_v1beta1.h), and discovery's
  // storageVersionHash says so.
  std::optional<am::GroupVersionKind> StorageVersion() const override {
    return am::GroupVersionKind{kGroup, "v1beta1", "CustomResourceDefinition"};
  }

  Task<StatusOr<Object>> Create(const registry::Context& ctx, Object obj, const registry::CreateOptions& opts) override {
    auto r = co_await OwningStore::Create(ctx, std::move(obj), opts);
    if (r.ok()) Notify();
    co_return r;
  }
  Task<StatusOr<registry::UpdateOutcome>> Update(const registry::Context& ctx, const std::string& name,
                                                 registry::ObjectTransform transform,
                                                 const registry::UpdateOptions& opts) override {
    auto r = co_await OwningStore::Update(ctx, name, std::move(transform), opts);
    if (r.ok()) Notify();
    co_return r;
  }

  Task<StatusOr<registry::DeleteOutcome>> Delete(const registry::Context& ctx, const std::string& name,
                                                 const registry::DeleteOptions& opts) override {
    const bool dry_run = ctx.dry_run || opts.dry_run;
    if (!dry_run) {
      auto current = co_await Get(ctx, name, {});
      if (!current.ok()) co_return current.TakeStatus();
      auto finalizers = am::GetFinalizers(*current);
      if (!am::GetDeletionTimestamp(*current) &&
          std::find(finalizers.begin(), finalizers.end(), kCleanupFinalizer) == finalizers.end()) {
        std::string uid(am::GetUid(*current));
        if (opts.precondition_uid && *opts.precondition_uid != uid) {
          co_return am::NewConflict(Info().GroupResource(), name,
                                    "Precondition failed: UID in precondition: " + *opts.precondition_uid +
                                        ", UID in object meta: " + uid);
        }
        registry::ObjectTransform add = [](const Object* cur) -> Task<StatusOr<Object>> {
          if (!cur) co_return Status(404, "NotFound", "gone");
          Object o = *cur;
          auto f = am::GetFinalizers(o);
          if (std::find(f.begin(), f.end(), kCleanupFinalizer) == f.end()) f.push_back(kCleanupFinalizer);
          am::SetFinalizers(o, f);
          co_return o;
        };
        auto updated = co_await Update(ctx, name, std::move(add), {});
        if (!updated.ok()) co_return updated.TakeStatus();
      }
    }
    auto r = co_await OwningStore::Delete(ctx, name, opts);
    if (r.ok()) Notify();
    co_return r;
  }

 private:
  void Notify() const {
    if (signal_) signal_->Notify();
  }
  std::shared_ptr<CrdChangeSignal> signal_;
};

}  // namespace

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps, std::shared_ptr<CrdChangeSignal> signal) {
  registry::ResourceInfo info;
  info.group = kGroup;
  info.version = "v1";
  info.resource = "customresourcedefinitions";
  info.singular = "customresourcedefinition";
  info.kind = "CustomResourceDefinition";
  info.list_kind = "CustomResourceDefinitionList";
  info.namespaced = false;
  info.short_names = {"crd", "crds"};
  info.categories = {"api-extensions"};
  info.definition = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition";
  auto strategy = std::make_shared<CrdStrategy>();
  registry::StoreConfig c;
  c.info = info;
  c.storage = deps.store;
  c.key_root = deps.prefix + "/apiextensions.k8s.io/customresourcedefinitions";
  if (deps.store_for) c.storage = deps.store_for(c.key_root, info, strategy);
  c.admission = deps.admission;
  c.clock = deps.clock;
  const am::Schema* schema = deps.schemas ? deps.schemas->Find(info.definition) : nullptr;
  c.schema = schema;
  c.normalize_as_go = false;
  std::vector<registry::RestResource> out;
  registry::RestResource main;
  main.info = info;
  main.storage = std::make_shared<CrdStore>(c, strategy, signal);
  main.schema = schema;
  out.push_back(std::move(main));
  registry::StoreConfig sc = c;
  sc.info.subresource = "status";
  registry::RestResource status;
  status.info = sc.info;
  status.storage = std::make_shared<registry::SubresourceStore>(sc, std::make_shared<CrdStatusStrategy>());
  status.schema = schema;
  out.push_back(std::move(status));
  return out;
}

}  // namespace capstan::api::apiextensions
