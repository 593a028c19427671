// registry/store_write.cpp: the generic Store's updates and deletes.
#include <boost/json.hpp>
#include <optional>
#include <set>
#include <vector>

#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/object_meta_validation.h"
#include "apimachinery/status_json.h"
#include "registry/field_tracking.h"
#include "registry/store.h"
#include "util/fan_out.h"

namespace capstan::registry {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {
constexpr const char* kFinalizerOrphan = "orphan";
constexpr const char* kFinalizerForeground = "foregroundDeletion";
}  // namespace

Status Store::BeforeUpdate(const Context& ctx, Object& obj, const Object& old) const {
  const Strategy& s = *c_.strategy;
  if (s.NamespaceScoped()) {
    std::string_view ns = am::GetNamespace(obj);
    if (ns.empty()) {
      am::SetNamespace(obj, ctx.namespace_);
    } else if (ns != ctx.namespace_) {
      return am::NewBadRequest("the namespace of the provided object does not match the namespace sent on the request");
    }
  } else if (!am::GetNamespace(obj).empty()) {
    am::SetNamespace(obj, "");
  }
  // Requests cannot set generation; the strategy bumps it.
  am::SetGeneration(obj, am::GetGeneration(old));
  // The strategy compares the new spec with the stored one: both as kube's Go types would hold them
  // (a patch that restates a zero omitempty field, "minReadySeconds":0, changes nothing).
  Normalize(obj);
  s.PrepareForUpdate(ctx, obj, old);
  if (am::GetUid(obj).empty()) am::SetUid(obj, am::GetUid(old));
  if (!am::GetCreationTimestamp(old).empty()) am::SetCreationTimestamp(obj, am::GetCreationTimestamp(old));
  if (auto dt = am::GetDeletionTimestamp(old)) am::SetDeletionTimestamp(obj, *dt);
  if (auto g = am::GetDeletionGracePeriodSeconds(old); g && !am::GetDeletionGracePeriodSeconds(obj)) {
    am::SetDeletionGracePeriodSeconds(obj, g);
  }
  ErrorList errs = am::ValidateObjectMeta(obj, s.NamespaceScoped(), s.NameValidator());
  ErrorList upd = am::ValidateObjectMetaUpdate(obj, old);
  errs.insert(errs.end(), upd.begin(), upd.end());
  ErrorList more = s.ValidateUpdate(ctx, obj, old);
  errs.insert(errs.end(), more.begin(), more.end());
  if (!errs.empty()) return am::NewInvalid(c_.info.GroupKind(), am::GetName(obj), errs);
  for (auto& w : s.WarningsOnUpdate(ctx, obj, old)) ctx.Warn(std::move(w));
  s.Canonicalize(obj);
  Normalize(obj);
  return Status();
}

Task<StatusOr<Object>> Store::DeleteIfFinalized(const std::string& key, Object obj) const {
  if (!c_.strategy->ShouldDeleteDuringUpdate(obj)) co_return obj;
  storage::Preconditions pre;
  pre.uid = std::string(am::GetUid(obj));
  pre.resource_version = std::string(am::GetResourceVersion(obj));
  auto deleted = co_await c_.storage->Delete(key, pre, nullptr);
  if (!deleted.ok()) {
    // Someone changed it in between; what they wrote stands.
    if (deleted.status().IsStorage(StorageCode::kConflict) || deleted.status().IsStorage(StorageCode::kKeyNotFound)) {
      co_return obj;
    }
    co_return Translate(deleted.status(), std::string(am::GetName(obj)), "delete");
  }
  co_return std::move(*deleted);
}

Task<StatusOr<UpdateOutcome>> Store::Update(const Context& ctx, const std::string& name, ObjectTransform transform,
                                            const UpdateOptions& opts) {
  auto key = KeyFor(ctx, name);
  if (!key.ok()) co_return key.TakeStatus();
  const Strategy& s = *c_.strategy;
  const bool dry_run = ctx.dry_run || opts.dry_run;
  bool created = false;

  // Computes what is written from the stored object (null: missing). Called again on a conflict.
  auto try_update = [&](const Object* existing) -> Task<StatusOr<storage::UpdateResult>> {
    created = false;
    if (!existing) {
      if (!s.AllowCreateOnUpdate()) co_return am::NewNotFound(c_.info.GroupResource(), name);
      auto obj = co_await transform(nullptr);
      if (!obj.ok()) co_return obj.TakeStatus();
      CO_RETURN_IF_ERROR(co_await AdmitMutating(ctx, "CREATE", *obj, nullptr, name));
      am::SetResourceVersion(*obj, "");
      CO_RETURN_IF_ERROR(BeforeCreate(ctx, *obj));
      TrackManagedFields(c_, ctx, nullptr, *obj, Now());
      CO_RETURN_IF_ERROR(co_await AdmitValidating(ctx, "CREATE", *obj, nullptr, name));
      created = true;
      co_return storage::UpdateResult{std::move(*obj), s.TTLSeconds(*obj)};
    }
    auto obj = co_await transform(existing);
    if (!obj.ok()) co_return obj.TakeStatus();
    std::string new_rv(am::GetResourceVersion(*obj));
    std::string old_rv(am::GetResourceVersion(*existing));
    // kube's versioner parses "" and "0" alike as 0: no precondition, an unconditional update.
    if (new_rv.empty() || new_rv == "0") {
      if (!s.AllowUnconditionalUpdate()) {
        co_return am::NewInvalid(c_.info.GroupKind(), name,
                                 {InvalidError(FieldPath("metadata").Child("resourceVersion"), 0,
                                               "must be specified for an update")});
      }
      am::SetResourceVersion(*obj, old_rv);
    } else if (new_rv != old_rv) {
      co_return am::NewOptimisticLockConflict(c_.info.GroupResource(), name);
    }
    CO_RETURN_IF_ERROR(co_await AdmitMutating(ctx, "UPDATE", *obj, existing, name));
    boost::json::value requested_fields = RequestedManagedFields(*obj);
    CO_RETURN_IF_ERROR(BeforeUpdate(ctx, *obj, *existing));
    TrackManagedFields(c_, ctx, existing, *obj, Now(), &requested_fields);
    CO_RETURN_IF_ERROR(co_await AdmitValidating(ctx, "UPDATE", *obj, existing, name));
    co_return storage::UpdateResult{std::move(*obj), s.TTLSeconds(*obj)};
  };

  if (dry_run) {
    storage::GetOptions g;
    g.ignore_not_found = true;
    auto existing = co_await c_.storage->Get(*key, g);
    if (!existing.ok()) co_return Translate(existing.status(), name, "update");
    auto r = co_await try_update(existing->empty() ? nullptr : &*existing);
    if (!r.ok()) co_return r.TakeStatus();
    co_return UpdateOutcome{std::move(r->object), created};
  }
  auto r = co_await c_.storage->GuaranteedUpdate(*key, {}, s.AllowCreateOnUpdate(), try_update);
  if (!r.ok()) co_return Translate(r.status(), name, "update");
  if (created) co_return UpdateOutcome{std::move(*r), true};
  // The update removed the last finalizer of an object being deleted: the deletion completes now.
  auto final = co_await DeleteIfFinalized(*key, std::move(*r));
  if (!final.ok()) co_return final.TakeStatus();
  co_return UpdateOutcome{std::move(*final), false};
}

namespace {

// kube's deletionFinalizersForGarbageCollection: the finalizers an object should carry for the
// propagation policy of this deletion; `changed` says whether they differ from the current ones.
std::vector<std::string> GcFinalizers(const Object& obj, const DeleteOptions& opts, const std::string& default_policy,
                                      bool* changed) {
  std::vector<std::string> current = am::GetFinalizers(obj);
  bool orphan = false, foreground = false;
  if (opts.orphan_dependents) {
    orphan = *opts.orphan_dependents;
  } else if (opts.propagation_policy) {
    orphan = *opts.propagation_policy == "Orphan";
    foreground = *opts.propagation_policy == "Foreground";
  } else {
    bool decided = false;
    for (const auto& f : current) {
      if (f == kFinalizerOrphan) {
        orphan = true;
        decided = true;
        break;
      }
      if (f == kFinalizerForeground) {
        foreground = true;
        decided = true;
        break;
      }
    }
    if (!decided) orphan = default_policy == "Orphan";
  }
  std::vector<std::string> next;
  for (const auto& f : current) {
    if (f != kFinalizerOrphan && f != kFinalizerForeground) next.push_back(f);
  }
  if (orphan) next.push_back(kFinalizerOrphan);
  if (foreground) next.push_back(kFinalizerForeground);
  *changed = std::set<std::string>(current.begin(), current.end()) != std::set<std::string>(next.begin(), next.end());
  return *changed ? next : current;
}

ErrorList ValidateDeleteOptions(const DeleteOptions& o) {
  ErrorList errs;
  if (o.orphan_dependents && o.propagation_policy) {
    errs.push_back(InvalidError(FieldPath("propagationPolicy"), *o.propagation_policy,
                                "orphanDependents and deletionPropagation cannot be both set"));
  }
  if (o.propagation_policy && *o.propagation_policy != "Orphan" && *o.propagation_policy != "Background" &&
      *o.propagation_policy != "Foreground") {
    errs.push_back(NotSupportedError(FieldPath("propagationPolicy"), *o.propagation_policy,
                                     {"Foreground", "Background", "Orphan", "nil"}));
  }
  if (o.grace_period_seconds && *o.grace_period_seconds < 0) {
    errs.push_back(InvalidError(FieldPath("gracePeriodSeconds"), *o.grace_period_seconds,
                                "must be greater than or equal to 0"));
  }
  return errs;
}

}  // namespace

Task<StatusOr<DeleteOutcome>> Store::Delete(const Context& ctx, const std::string& name, const DeleteOptions& opts_in) {
  auto key = KeyFor(ctx, name);
  if (!key.ok()) co_return key.TakeStatus();
  DeleteOptions opts = opts_in;
  if (ErrorList errs = ValidateDeleteOptions(opts); !errs.empty()) {
    co_return am::NewInvalid({"meta.k8s.io", "DeleteOptions"}, "", errs);
  }
  const bool dry_run = ctx.dry_run || opts.dry_run;
  auto existing = co_await c_.storage->Get(*key, {});
  if (!existing.ok()) co_return Translate(existing.status(), name, "delete");
  storage::Preconditions pre;
  if (opts.precondition_uid) pre.uid = opts.precondition_uid;
  if (opts.precondition_resource_version) pre.resource_version = opts.precondition_resource_version;
  // kube's rest.BeforeDelete checks the preconditions early, naming the kind where the resource goes
  // ("Operation cannot be fulfilled on ConfigMap ..."); storage enforces them again on the write.
  const am::GroupResource kind_as_resource{c_.info.group, c_.info.kind};
  if (pre.uid && *pre.uid != am::GetUid(*existing)) {
    co_return am::NewConflict(kind_as_resource, name,
                              "the UID in the precondition (" + *pre.uid + ") does not match the UID in record (" +
                                  std::string(am::GetUid(*existing)) +
                                  "). The object might have been deleted and then recreated");
  }
  if (pre.resource_version && *pre.resource_version != am::GetResourceVersion(*existing)) {
    co_return am::NewConflict(kind_as_resource, name,
                              "the ResourceVersion in the precondition (" + *pre.resource_version +
                                  ") does not match the ResourceVersion in record (" +
                                  std::string(am::GetResourceVersion(*existing)) + "). The object might have been modified");
  }
  {
    Object mutable_copy = *existing;
    CO_RETURN_IF_ERROR(co_await AdmitMutating(ctx, "DELETE", mutable_copy, &*existing, name));
  }
  CO_RETURN_IF_ERROR(co_await AdmitValidating(ctx, "DELETE", *existing, &*existing, name));

  const bool pending = am::GetDeletionTimestamp(*existing).has_value();
  bool graceful = !pending && c_.strategy->CheckGracefulDelete(*existing, opts);
  bool finalizers_changed = false;
  std::vector<std::string> finalizers =
      GcFinalizers(*existing, opts, c_.strategy->DefaultGarbageCollectionPolicy(), &finalizers_changed);
  const bool has_finalizers = !finalizers.empty();

  if (graceful || has_finalizers || finalizers_changed || pending) {
    if (!graceful && !has_finalizers && !pending) {
      // Only the propagation finalizers changed, to none: nothing holds the object back.
    } else {
      // Mark the deletion; the object stays until its finalizers are gone (or its grace period ends).
      std::string now = Now();
      auto mark = [&](const Object* cur) -> Task<StatusOr<storage::UpdateResult>> {
        if (!cur) co_return am::NewNotFound(c_.info.GroupResource(), name);
        Object next = *cur;
        bool changed = false;
        std::vector<std::string> f = GcFinalizers(next, opts, c_.strategy->DefaultGarbageCollectionPolicy(), &changed);
        if (changed) am::SetFinalizers(next, f);
        if (!am::GetDeletionTimestamp(next)) {
          am::SetDeletionTimestamp(next, now);
          am::SetDeletionGracePeriodSeconds(next, graceful && opts.grace_period_seconds ? *opts.grace_period_seconds : 0);
        }
        co_return storage::UpdateResult{std::move(next), 0};
      };
      if (dry_run) {
        auto r = co_await mark(&*existing);
        if (!r.ok()) co_return r.TakeStatus();
        co_return DeleteOutcome{std::move(r->object), false};
      }
      auto updated = co_await c_.storage->GuaranteedUpdate(*key, pre, false, mark);
      if (!updated.ok()) co_return Translate(updated.status(), name, "delete");
      if (!am::GetFinalizers(*updated).empty() || graceful) co_return DeleteOutcome{std::move(*updated), false};
      existing = std::move(*updated);
      pre.resource_version = std::string(am::GetResourceVersion(*existing));
    }
  }

  Object deleted;
  if (dry_run) {
    deleted = std::move(*existing);
  } else {
    auto r = co_await c_.storage->Delete(*key, pre, nullptr);
    if (!r.ok()) co_return Translate(r.status(), name, "delete");
    deleted = std::move(*r);
  }
  if (c_.return_deleted_object) co_return DeleteOutcome{std::move(deleted), true};
  StatusDetails d;
  d.name = std::string(am::GetName(deleted));
  d.group = c_.info.group;
  d.kind = c_.info.resource;  // kube puts the resource here
  d.uid = std::string(am::GetUid(deleted));
  co_return DeleteOutcome{am::SuccessStatusToJson(&d, 0), true};
}

Task<StatusOr<ObjectList>> Store::DeleteCollection(const Context& ctx, const DeleteOptions& dopts,
                                                   const ListOptions& lopts) {
  ListOptions all = lopts;
  all.limit = 0;
  all.continue_token.clear();
  auto list = co_await List(ctx, all);
  if (!list.ok()) co_return list.TakeStatus();
  // The items are deleted kDeleteCollectionConcurrency at a time (kube's --delete-collection-workers,
  // but coroutines rather than goroutines): their writes share the storage's group commits, so a
  // namespace's content goes in a fraction of the time one-by-one deletes take. The first error wins,
  // as in kube; items already deleted stay deleted.
  constexpr size_t kDeleteCollectionConcurrency = 32;
  std::vector<std::optional<Object>> deleted(list->items.size());
  Status first_error;
  co_await ForEachConcurrently(list->items.size(), kDeleteCollectionConcurrency, [&](size_t i) -> Task<void> {
    if (!first_error.ok()) co_return;
    const Object& item = list->items[i];
    Context item_ctx = ctx;
    item_ctx.namespace_ = std::string(am::GetNamespace(item));
    auto r = co_await Delete(item_ctx, std::string(am::GetName(item)), dopts);
    if (!r.ok()) {
      if (!am::IsNotFound(r.status()) && first_error.ok()) first_error = r.TakeStatus();  // NotFound: deleted concurrently
      co_return;
    }
    deleted[i] = r->deleted && !c_.return_deleted_object ? item : std::move(r->object);
  });
  if (!first_error.ok()) co_return first_error;
  ObjectList out;
  out.resource_version = list->resource_version;
  for (auto& d : deleted) {
    if (d) out.items.push_back(std::move(*d));
  }
  co_return out;
}

}  // namespace capstan::registry
