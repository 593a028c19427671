// api/core/namespace.cpp: Namespaces: Active on create with the `kubernetes` spec finalizer and the
// kubernetes.io/metadata.name label; a delete marks them Terminating (the namespace controller empties
// them and removes the finalizer through /finalize, then the deletion completes); status and finalize
// subresources.
#include "api/common.h"
#include "api/core/core.h"
#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/time_util.h"
#include "apimachinery/validation.h"

namespace capstan::api::core {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

constexpr const char* kFinalizerKubernetes = "kubernetes";
constexpr const char* kNameLabel = "kubernetes.io/metadata.name";

std::vector<std::string> SpecFinalizers(const Object& ns) {
  std::vector<std::string> out;
  if (const auto* f = PathAt(ns, {"spec", "finalizers"}); f && f->is_array()) {
    for (const auto& x : f->get_array()) {
      if (x.is_string()) out.emplace_back(x.get_string());
    }
  }
  return out;
}

class NamespaceStrategy : public registry::DefaultStrategy {
 public:
  NamespaceStrategy() : DefaultStrategy(Options{.namespaced = false, .name_validator = am::ValidateNamespaceName}) {}

  void PrepareForCreate(const registry::Context&, Object& ns) const override {
    json::object status;
    status["phase"] = "Active";
    ns["status"] = std::move(status);
    auto finalizers = SpecFinalizers(ns);
    if (std::find(finalizers.begin(), finalizers.end(), kFinalizerKubernetes) == finalizers.end()) {
      finalizers.push_back(kFinalizerKubernetes);
    }
    json::array arr;
    for (auto& f : finalizers) arr.push_back(json::value(f));
    json::value& spec = ns["spec"];
    if (!spec.is_object()) spec = json::object();
    spec.get_object()["finalizers"] = std::move(arr);
    if (!am::GetName(ns).empty()) am::SetLabel(ns, kNameLabel, am::GetName(ns));
  }

  void PrepareForUpdate(const registry::Context&, Object& ns, const Object& old) const override {
    // Spec finalizers change only through /finalize, status only through /status.
    json::value& spec = ns["spec"];
    if (!spec.is_object()) spec = json::object();
    if (const auto* f = PathAt(old, {"spec", "finalizers"})) {
      spec.get_object()["finalizers"] = *f;
    } else {
      spec.get_object().stable_erase("finalizers");
    }
    if (const auto* s = old.if_contains("status")) ns["status"] = *s;
    am::SetLabel(ns, kNameLabel, am::GetName(ns));
  }

  ErrorList ValidateUpdate(const registry::Context&, const Object& ns, const Object&) const override {
    ErrorList errs;
    for (const auto& f : SpecFinalizers(ns)) {
      (void)f;
    }
    return errs;
  }

  bool ShouldDeleteDuringUpdate(const Object& ns) const override {
    return DefaultStrategy::ShouldDeleteDuringUpdate(ns) && SpecFinalizers(ns).empty();
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Status", "string", "", "The status of the namespace", 0},
            registry::AgeColumn()};
  }
  json::array TableCells(const Object& ns) const override {
    const auto* phase = PathAt(ns, {"status", "phase"});
    return {json::value(am::GetName(ns)), phase ? *phase : json::value(""), AgeCell(ns)};
  }

  std::string UnsupportedFieldLabelMessage(std::string_view f) const override { return am::FieldLabelNotSupportedError(f); }
  std::vector<std::string> SelectableFieldNames() const override { return {"metadata.name", "status.phase"}; }
  am::FieldSet SelectableFields(const Object& ns) const override {
    am::FieldSet f = DefaultStrategy::SelectableFields(ns);
    const auto* phase = PathAt(ns, {"status", "phase"});
    f["status.phase"] = phase && phase->is_string() ? std::string(phase->get_string()) : "";
    return f;
  }
};

// The status subresource changes only status.
class NamespaceStatusStrategy : public registry::StatusStrategy {
 public:
  using StatusStrategy::StatusStrategy;
};

// The finalize subresource changes only spec.finalizers.
class NamespaceFinalizeStrategy : public registry::Strategy {
 public:
  explicit NamespaceFinalizeStrategy(std::shared_ptr<const registry::Strategy> main) : main_(std::move(main)) {}
  bool NamespaceScoped() const override { return false; }
  apimachinery::NameValidator NameValidator() const override { return am::ValidateNamespaceName; }
  void PrepareForUpdate(const registry::Context&, Object& ns, const Object& old) const override {
    Object next = old;
    json::value& spec = next["spec"];
    if (!spec.is_object()) spec = json::object();
    if (const auto* f = PathAt(ns, {"spec", "finalizers"})) {
      spec.get_object()["finalizers"] = *f;
    } else {
      spec.get_object().stable_erase("finalizers");
    }
    if (const auto* rv = PathAt(ns, {"metadata", "resourceVersion"})) next["metadata"].as_object()["resourceVersion"] = *rv;
    ns = std::move(next);
  }
  ErrorList ValidateUpdate(const registry::Context&, const Object& ns, const Object&) const override {
    ErrorList errs;
    auto finalizers = SpecFinalizers(ns);
    for (size_t i = 0; i < finalizers.size(); ++i) {
      for (const auto& msg : am::IsQualifiedName(finalizers[i])) {
        errs.push_back(InvalidError(FieldPath("spec").Child("finalizers").Index(i), finalizers[i], msg));
      }
    }
    return errs;
  }
  bool ShouldDeleteDuringUpdate(const Object& ns) const override { return main_->ShouldDeleteDuringUpdate(ns); }

 private:
  std::shared_ptr<const registry::Strategy> main_;
};

class FinalizeStore : public registry::Updater {
 public:
  FinalizeStore(registry::StoreConfig c, std::shared_ptr<const registry::Strategy> s) : inner_(std::move(c), std::move(s)) {}
  const registry::ResourceInfo& Info() const override { return inner_.Info(); }
  Task<StatusOr<registry::UpdateOutcome>> Update(const registry::Context& ctx, const std::string& name,
                                                 registry::ObjectTransform t, const registry::UpdateOptions& o) override {
    return inner_.Update(ctx, name, std::move(t), o);
  }

 private:
  registry::OwningStore inner_;
};

// Deleting a namespace first marks it Terminating; it goes once its spec finalizers are gone. As in
// kube, namespaces offer no deletecollection: DELETE /api/v1/namespaces is a 405, never a mass delete.
class NamespaceStore : public registry::OwningStore {
 public:
  using OwningStore::OwningStore;

  bool OffersDeleteCollection() const override { return false; }
  Task<StatusOr<registry::ObjectList>> DeleteCollection(const registry::Context&, const registry::DeleteOptions&,
                                              const registry::ListOptions&) override {
    co_return am::NewMethodNotSupported(c_.info.GroupResource(), "deletecollection");
  }

  Task<StatusOr<registry::DeleteOutcome>> Delete(const registry::Context& ctx, const std::string& name,
                                                 const registry::DeleteOptions& opts) override {
    auto key = KeyFor(ctx, name);
    if (!key.ok()) co_return key.TakeStatus();
    auto existing = co_await c_.storage->Get(*key, {});
    if (!existing.ok()) co_return Translate(existing.status(), name, "delete");
    if (opts.precondition_uid && *opts.precondition_uid != am::GetUid(*existing)) {
      co_return am::NewConflict(c_.info.GroupResource(), name,
                                "Precondition failed: UID in precondition: " + *opts.precondition_uid +
                                    ", UID in object meta: " + std::string(am::GetUid(*existing)));
    }
    {
      Object mutable_copy = *existing;
      CO_RETURN_IF_ERROR(co_await AdmitMutating(ctx, "DELETE", mutable_copy, &*existing, name));
    }
    CO_RETURN_IF_ERROR(co_await AdmitValidating(ctx, "DELETE", *existing, &*existing, name));
    if (!am::GetDeletionTimestamp(*existing)) {
      std::string now = Now();
      auto mark = [&](const Object* cur) -> Task<StatusOr<storage::UpdateResult>> {
        if (!cur) co_return am::NewNotFound(c_.info.GroupResource(), name);
        Object next = *cur;
        if (!am::GetDeletionTimestamp(next)) am::SetDeletionTimestamp(next, now);
        if (!am::GetDeletionGracePeriodSeconds(next)) am::SetDeletionGracePeriodSeconds(next, 0);
        json::value& status = next["status"];
        if (!status.is_object()) status = json::object();
        status.get_object()["phase"] = "Terminating";
        std::vector<std::string> f = am::GetFinalizers(next);
        auto drop = [&](const char* x) { f.erase(std::remove(f.begin(), f.end(), x), f.end()); };
        if (opts.propagation_policy && *opts.propagation_policy == "Orphan") {
          drop("foregroundDeletion");
          if (std::find(f.begin(), f.end(), "orphan") == f.end()) f.push_back("orphan");
        } else if (opts.propagation_policy && *opts.propagation_policy == "Foreground") {
          drop("orphan");
          if (std::find(f.begin(), f.end(), "foregroundDeletion") == f.end()) f.push_back("foregroundDeletion");
        }
        am::SetFinalizers(next, f);
        co_return storage::UpdateResult{std::move(next), 0};
      };
      if (ctx.dry_run || opts.dry_run) {
        auto r = co_await mark(&*existing);
        if (!r.ok()) co_return r.TakeStatus();
        co_return registry::DeleteOutcome{std::move(r->object), false};
      }
      storage::Preconditions pre;
      pre.uid = opts.precondition_uid;
      pre.resource_version = opts.precondition_resource_version;
      auto updated = co_await c_.storage->GuaranteedUpdate(*key, pre, false, mark);
      if (!updated.ok()) co_return Translate(updated.status(), name, "delete");
      co_return registry::DeleteOutcome{std::move(*updated), false};
    }
    if (!SpecFinalizers(*existing).empty()) co_return registry::DeleteOutcome{std::move(*existing), false};
    co_return co_await OwningStore::Delete(ctx, name, opts);
  }
};

}  // namespace

std::vector<registry::RestResource> Namespaces(const registry::GroupDeps& deps) {
  auto info = MakeInfo({"", "v1", "namespaces", "namespace", "Namespace", false, {"ns"}, {}, "io.k8s.api.core.v1.Namespace"});
  auto strategy = std::make_shared<NamespaceStrategy>();
  registry::StoreConfig c;
  c.info = info;
  c.storage = deps.store;
  c.key_root = deps.prefix + "/namespaces";
  c.admission = deps.admission;
  c.clock = deps.clock;
  c.return_deleted_object = true;
  const apimachinery::Schema* schema = deps.schemas ? deps.schemas->Find(info.definition) : nullptr;
  c.schema = schema;
  c.normalize_as_go = schema != nullptr;
  std::vector<registry::RestResource> out;
  out.push_back({info, std::make_shared<NamespaceStore>(c, strategy), schema, true});
  registry::StoreConfig sc = c;
  sc.info.subresource = "status";
  out.push_back({sc.info, std::make_shared<registry::SubresourceStore>(sc, std::make_shared<NamespaceStatusStrategy>(strategy)),
                 schema, true});
  registry::StoreConfig fc = c;
  fc.info.subresource = "finalize";
  out.push_back({fc.info, std::make_shared<FinalizeStore>(fc, std::make_shared<NamespaceFinalizeStrategy>(strategy)),
                 schema, true});
  return out;
}

}  // namespace capstan::api::core
