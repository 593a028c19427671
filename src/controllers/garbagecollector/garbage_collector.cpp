#include "controllers/garbagecollector/garbage_collector.h"

#include <boost/json.hpp>
#include <cstdio>
#include <set>

#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/time_util.h"
#include "controllers/concurrent.h"
#include "controllers/selection.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::controllers {

namespace am = capstan::apimachinery;
namespace json = boost::json;
using gc::ObjectReference;
using gc::OwnerReference;

namespace {

bool Ignored(const Gvr& g) { return g.resource == "events" && (g.group.empty() || g.group == "events.k8s.io"); }

Status RestMappingError(const ObjectReference& id) {
  return Status(500, "InternalError", "unable to get REST mapping for " + id.api_version + "/" + id.kind + ".");
}

Status NotRecoverable(std::string msg) { return Status(500, "InternalError", std::move(msg)); }

}  // namespace

std::string_view GarbageCollector::Name() const { return kGarbageCollectorController; }

void GarbageCollector::Start(ControllerContext& ctx) {
  ctx_ = &ctx;
  attempt_to_delete_ = &ctx.NewQueue("garbage_collector_attempt_to_delete");
  attempt_to_orphan_ = &ctx.NewQueue("garbage_collector_attempt_to_orphan");
  graph_ = std::make_unique<gc::Graph>(static_cast<gc::GraphSink&>(*this), absent_);
  SyncMonitors();
  ctx.scope().Spawn(Run());
  ctx.scope().Spawn(DiscoveryLoop());
}

void GarbageCollector::AttemptToDelete(const std::string& uid) { attempt_to_delete_->Add(uid); }
void GarbageCollector::AttemptToDeleteRateLimited(const std::string& uid) { attempt_to_delete_->AddRateLimited(uid); }
void GarbageCollector::AttemptToOrphan(const std::string& uid) { attempt_to_orphan_->Add(uid); }

void GarbageCollector::InvalidNamespaceOwnerRef(const ObjectReference& dependent, const ObjectReference& owner) {
  ctx_->scope().Spawn(RecordEvent(dependent, "OwnerRefInvalidNamespace",
                                  "ownerRef " + owner.String() + " does not exist in namespace " +
                                      GoQuote(dependent.namespace_)));
}

void GarbageCollector::SyncMonitors() {
  auto snap = ctx_->client().Snapshot();
  if (snap == seen_snapshot_) return;
  seen_snapshot_ = snap;
  std::map<Gvr, std::pair<std::string, std::string>> desired;  // gvr → apiVersion, kind
  for (const auto& r : PreferredResources(*snap)) {
    if (Ignored(r.gvr) || !SupportsVerbs(*r.entry, {"delete", "list", "watch"})) continue;
    desired[r.gvr] = {r.entry->info.ApiVersion(), r.entry->info.kind};
  }
  for (auto it = monitors_.begin(); it != monitors_.end();) {
    if (desired.count(it->first)) {
      ++it;
      continue;
    }
    LogInfo("garbage collector: stopped monitoring", {{"resource", it->first.String()}});
    it->second.informer->RemoveHandler(it->second.handler);
    ctx_->Release(*it->second.informer);
    it = monitors_.erase(it);
  }
  for (const auto& [gvr, kind] : desired) {
    if (monitors_.count(gvr)) continue;
    InformerOptions io;
    io.gvr = gvr;
    io.metadata_only = true;
    io.api_version = kind.first;
    io.kind = kind.second;
    Informer& inf = ctx_->SharedInformer(io);
    std::string av = kind.first, k = kind.second;
    size_t handler = inf.AddHandler(EventHandler{
        [this, av, k](const Object& o) { graph_->Process(gc::Graph::EventType::kAdd, gc::StateOf(o, av, k), nullptr); },
        [this, av, k](const Object& old, const Object& o) {
          gc::ObjectState before = gc::StateOf(old, av, k);
          graph_->Process(gc::Graph::EventType::kUpdate, gc::StateOf(o, av, k), &before);
        },
        [this, av, k](const Object& o) { graph_->Process(gc::Graph::EventType::kDelete, gc::StateOf(o, av, k), nullptr); },
    });
    monitors_[gvr] = Monitor{&inf, handler};
  }
}

Task<void> GarbageCollector::DiscoveryLoop() {
  while (co_await ctx_->scope().Sleep(opts_.discovery_period)) SyncMonitors();
}

Task<void> GarbageCollector::Run() {
  // Workers start once every monitor has listed, so that owners are in the graph before their
  // dependents are judged.
  for (;;) {
    std::vector<Informer*> pending;
    for (auto& [gvr, m] : monitors_) {
      if (!m.informer->HasSynced()) pending.push_back(m.informer);
    }
    if (pending.empty()) break;
    if (!co_await pending.front()->WaitForSync()) {
      if (ctx_->scope().stopped()) co_return;
    }
  }
  LogInfo("Starting controller", {{"controller", std::string(kGarbageCollectorController)},
                                  {"monitors", static_cast<int64_t>(monitors_.size())},
                                  {"nodes", static_cast<int64_t>(graph_->size())}});
  workers_started_ = true;
  WorkerOptions wo;
  wo.controller = std::string(kGarbageCollectorController);
  wo.workers = opts_.workers;
  RunWorkers(*ctx_, *attempt_to_delete_, wo, [this](const std::string& uid) { return ProcessAttemptToDelete(uid); });
  RunWorkers(*ctx_, *attempt_to_orphan_, wo, [this](const std::string& uid) { return ProcessAttemptToOrphan(uid); });
}

Task<SyncResult> GarbageCollector::ProcessAttemptToDelete(const std::string& uid) {
  if (!graph_->Find(uid)) co_return SyncResult::Ok();
  Result r = co_await AttemptToDeleteItem(uid);
  switch (r.outcome) {
    case Outcome::kVirtualDeleteEnqueued:
    case Outcome::kNamespacedOwnerOfClusterScoped:
      co_return SyncResult::Ok();
    case Outcome::kRetry:
      co_return SyncResult::Retry(std::move(r.status));
    case Outcome::kDone:
      break;
  }
  // An owner known only from references is checked again until an informer has seen it.
  if (const gc::Node* n = graph_->Find(uid); n && n->virtual_) co_return SyncResult::QuietRetry();
  co_return SyncResult::Ok();
}

Task<StatusOr<Object>> GarbageCollector::GetObject(const ObjectReference& id) {
  auto snap = ctx_->client().Snapshot();
  auto m = MapKind(*snap, id.api_version, id.kind);
  if (!m) co_return RestMappingError(id);
  co_return co_await ctx_->client().Get(m->gvr, m->namespaced ? id.namespace_ : "", id.name);
}

Task<Status> GarbageCollector::DeleteObject(const ObjectReference& id, const std::string& policy) {
  auto snap = ctx_->client().Snapshot();
  auto m = MapKind(*snap, id.api_version, id.kind);
  if (!m) co_return RestMappingError(id);
  registry::DeleteOptions opts;
  opts.precondition_uid = id.uid;
  opts.propagation_policy = policy;
  LogDebug("garbage collector: deleting", {{"item", id.String()}, {"propagationPolicy", policy}});
  auto r = co_await ctx_->client().Delete(m->gvr, m->namespaced ? id.namespace_ : "", id.name, opts);
  // Deleted by someone else meanwhile (the namespace controller, a user): the informer will tell.
  if (!r.ok() && !am::IsNotFound(r.status())) co_return r.TakeStatus();
  co_return Status();
}

Task<Status> GarbageCollector::PatchObject(const ObjectReference& id, std::function<bool(Object&)> change) {
  auto snap = ctx_->client().Snapshot();
  auto m = MapKind(*snap, id.api_version, id.kind);
  if (!m) co_return RestMappingError(id);
  const am::GroupResource gr{m->gvr.group, m->gvr.resource};
  auto r = co_await ctx_->client().Mutate(
      m->gvr, m->namespaced ? id.namespace_ : "", id.name,
      [&](Object& o) -> StatusOr<bool> {
        // The patch applies to this object only, not to a namesake created since.
        if (am::GetUid(o) != id.uid) {
          return am::NewConflict(gr, id.name,
                                 "Precondition failed: UID in precondition: " + id.uid +
                                     ", UID in object meta: " + std::string(am::GetUid(o)));
        }
        return change(o);
      });
  if (!r.ok()) co_return r.TakeStatus();
  co_return Status();
}

Task<Status> GarbageCollector::RemoveFinalizer(const ObjectReference& id, std::string_view finalizer) {
  Status st = co_await PatchObject(id, [finalizer](Object& o) {
    auto f = am::GetFinalizers(o);
    auto it = std::find(f.begin(), f.end(), finalizer);
    if (it == f.end()) return false;  // removed already
    f.erase(it);
    am::SetFinalizers(o, f);
    return true;
  });
  if (am::IsNotFound(st)) co_return Status();
  co_return st;
}

Task<StatusOr<GarbageCollector::Dangling>> GarbageCollector::IsDangling(const OwnerReference& ref,
                                                                        const ObjectReference& item,
                                                                        Outcome* special) {
  ObjectReference key = gc::CoordinatesOf(ref);
  if (absent_.Has(key)) co_return Dangling{true, std::nullopt};
  key.namespace_ = item.namespace_;
  if (absent_.Has(key)) co_return Dangling{true, std::nullopt};

  auto snap = ctx_->client().Snapshot();
  auto m = MapKind(*snap, ref.api_version, ref.kind);
  if (!m) co_return RestMappingError(gc::CoordinatesOf(ref));
  if (!m->namespaced) key.namespace_.clear();
  if (item.namespace_.empty() && m->namespaced) {
    // A cluster-scoped object cannot have a namespaced owner; retrying will not change that.
    *special = Outcome::kNamespacedOwnerOfClusterScoped;
    co_return NotRecoverable("cluster-scoped objects cannot refer to namespaced owners");
  }
  auto owner = co_await ctx_->client().Get(m->gvr, m->namespaced ? item.namespace_ : "", ref.name);
  if (!owner.ok()) {
    if (am::IsNotFound(owner.status())) {
      absent_.Add(key);
      co_return Dangling{true, std::nullopt};
    }
    co_return owner.TakeStatus();
  }
  if (am::GetUid(*owner) != ref.uid) {
    absent_.Add(key);
    co_return Dangling{true, std::nullopt};
  }
  co_return Dangling{false, std::move(*owner)};
}

Task<GarbageCollector::Result> GarbageCollector::AttemptToDeleteItem(const std::string& uid) {
  const gc::Node* item = graph_->Find(uid);
  if (!item) co_return Result{};
  if (item->being_deleted && !item->deleting_dependents) co_return Result{};
  const ObjectReference id = item->identity;

  auto latest = co_await GetObject(id);
  if (!latest.ok()) {
    if (am::IsNotFound(latest.status())) {
      // Gone (or a virtual owner that never existed): drop it from the graph.
      graph_->VirtualDelete(id);
      co_return Result{Outcome::kVirtualDeleteEnqueued, Status()};
    }
    co_return Result{Outcome::kRetry, latest.TakeStatus()};
  }
  if (am::GetUid(*latest) != id.uid) {
    graph_->VirtualDelete(id);
    co_return Result{Outcome::kVirtualDeleteEnqueued, Status()};
  }
  item = graph_->Find(uid);
  if (!item) co_return Result{};
  if (item->deleting_dependents) co_return co_await ProcessDeletingDependentsItem(uid);

  std::vector<OwnerReference> refs = am::GetOwnerReferences(*latest);
  if (refs.empty()) co_return Result{};

  std::vector<OwnerReference> solid, dangling, waiting;
  for (const auto& ref : refs) {
    Outcome special = Outcome::kDone;
    auto d = co_await IsDangling(ref, id, &special);
    if (!d.ok()) {
      if (special == Outcome::kNamespacedOwnerOfClusterScoped) {
        LogDebug("garbage collector: cluster-scoped item refers to a namespaced owner",
                 {{"item", id.String()}, {"owner", ref.name}});
        co_return Result{special, Status()};
      }
      co_return Result{Outcome::kRetry, d.TakeStatus()};
    }
    if (d->dangling) {
      dangling.push_back(ref);
    } else if (am::GetDeletionTimestamp(*d->owner)) {
      auto f = am::GetFinalizers(*d->owner);
      if (std::find(f.begin(), f.end(), gc::kFinalizerDeleteDependents) != f.end()) {
        waiting.push_back(ref);
      } else {
        solid.push_back(ref);
      }
    } else {
      solid.push_back(ref);
    }
  }

  if (!solid.empty()) {
    if (dangling.empty() && waiting.empty()) co_return Result{};
    // Drop the references to owners that are gone or waiting for us, so they can finish.
    std::set<std::string> drop;
    for (const auto& r : dangling) drop.insert(r.uid);
    for (const auto& r : waiting) drop.insert(r.uid);
    Status st = co_await PatchObject(id, [&drop](Object& o) {
      auto owners = am::GetOwnerReferences(o);
      json::array kept;
      bool changed = false;
      for (const auto& r : owners) {
        if (drop.count(r.uid)) {
          changed = true;
          continue;
        }
        kept.push_back(r.ToJson());
      }
      if (!changed) return false;
      json::object& md = am::MutableMetadata(o);
      if (kept.empty()) {
        md.erase("ownerReferences");
      } else {
        md["ownerReferences"] = std::move(kept);
      }
      return true;
    });
    if (!st.ok()) co_return Result{Outcome::kRetry, std::move(st)};
    co_return Result{};
  }

  item = graph_->Find(uid);
  if (!waiting.empty() && item && !item->dependents.empty()) {
    for (gc::Node* dep : graph_->Dependents(*item)) {
      if (!dep->deleting_dependents) continue;
      // A dependent also waits for its dependents: unblock our own references to avoid a cycle.
      Status st = co_await PatchObject(id, [](Object& o) {
        auto owners = am::GetOwnerReferences(o);
        bool changed = false;
        json::array out;
        for (auto& r : owners) {
          if (r.block_owner_deletion.value_or(false)) {
            r.block_owner_deletion = false;
            changed = true;
          }
          out.push_back(r.ToJson());
        }
        if (!changed) return false;
        am::MutableMetadata(o)["ownerReferences"] = std::move(out);
        return true;
      });
      if (!st.ok()) co_return Result{Outcome::kRetry, std::move(st)};
      break;
    }
    // Its own dependents go first; the graph sees the foreground deletion and comes back to it.
    Status st = co_await DeleteObject(id, "Foreground");
    if (!st.ok()) co_return Result{Outcome::kRetry, std::move(st)};
    co_return Result{};
  }

  // No owner is left: collect it, in the propagation its finalizers already ask for.
  auto f = am::GetFinalizers(*latest);
  std::string policy = "Background";
  if (std::find(f.begin(), f.end(), gc::kFinalizerOrphan) != f.end()) {
    policy = "Orphan";
  } else if (std::find(f.begin(), f.end(), gc::kFinalizerDeleteDependents) != f.end()) {
    policy = "Foreground";
  }
  Status st = co_await DeleteObject(id, policy);
  if (!st.ok()) co_return Result{Outcome::kRetry, std::move(st)};
  co_return Result{};
}

Task<GarbageCollector::Result> GarbageCollector::ProcessDeletingDependentsItem(const std::string& uid) {
  const gc::Node* item = graph_->Find(uid);
  if (!item) co_return Result{};
  auto blocking = graph_->BlockingDependents(*item);
  if (blocking.empty()) {
    ObjectReference id = item->identity;
    Status st = co_await RemoveFinalizer(id, gc::kFinalizerDeleteDependents);
    if (!st.ok()) co_return Result{Outcome::kRetry, std::move(st)};
    co_return Result{};
  }
  for (gc::Node* dep : blocking) {
    if (!dep->deleting_dependents) attempt_to_delete_->Add(dep->identity.uid);
  }
  co_return Result{};
}

Task<SyncResult> GarbageCollector::ProcessAttemptToOrphan(const std::string& uid) {
  const gc::Node* owner = graph_->Find(uid);
  if (!owner) co_return SyncResult::Ok();
  const ObjectReference owner_id = owner->identity;
  std::vector<ObjectReference> dependents;
  for (gc::Node* d : graph_->Dependents(*owner)) dependents.push_back(d->identity);

  std::vector<std::string> errors;
  co_await ForEachConcurrently(ctx_->scope(), dependents.size(), 20, [&](size_t i) -> Task<void> {
    const ObjectReference& dep = dependents[i];
    Status st = co_await PatchObject(dep, [&owner_id](Object& o) {
      auto owners = am::GetOwnerReferences(o);
      json::array kept;
      bool changed = false;
      for (const auto& r : owners) {
        if (r.uid == owner_id.uid) {
          changed = true;
          continue;
        }
        kept.push_back(r.ToJson());
      }
      if (!changed) return false;
      json::object& md = am::MutableMetadata(o);
      if (kept.empty()) {
        md.erase("ownerReferences");
      } else {
        md["ownerReferences"] = std::move(kept);
      }
      return true;
    });
    if (!st.ok() && !am::IsNotFound(st)) errors.push_back("orphaning " + dep.String() + " failed, " + st.message());
  });
  if (!errors.empty()) {
    std::string agg = errors.size() == 1 ? errors[0] : "[" + Join(errors, ", ") + "]";
    co_return SyncResult::Retry(
        NotRecoverable("failed to orphan dependents of owner " + owner_id.String() + ", got errors: " + agg));
  }
  Status st = co_await RemoveFinalizer(owner_id, gc::kFinalizerOrphan);
  if (!st.ok()) {
    co_return SyncResult::Retry(
        NotRecoverable("removeOrphanFinalizer for " + owner_id.String() + " failed with " + st.message()));
  }
  co_return SyncResult::Ok();
}

Task<void> GarbageCollector::RecordEvent(ObjectReference involved, std::string reason, std::string message) {
  auto now = ctx_->clock().Now();
  auto ts = am::Timestamp::FromTimePoint(now);
  std::string stamp = am::FormatRfc3339(ts);
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, "%llx",
                static_cast<unsigned long long>(ts.seconds * 1000000000LL + ts.nanos));
  std::string ns = involved.namespace_.empty() ? "default" : involved.namespace_;
  Object ev;
  json::object md;
  md["name"] = involved.name + "." + suffix;
  md["namespace"] = ns;
  ev["metadata"] = std::move(md);
  json::object ref;
  ref["kind"] = involved.kind;
  if (!involved.namespace_.empty()) ref["namespace"] = involved.namespace_;
  ref["name"] = involved.name;
  ref["uid"] = involved.uid;
  ref["apiVersion"] = involved.api_version;
  ev["involvedObject"] = std::move(ref);
  ev["reason"] = reason;
  ev["message"] = message;
  json::object source;
  source["component"] = "garbage-collector-controller";
  ev["source"] = std::move(source);
  ev["firstTimestamp"] = stamp;
  ev["lastTimestamp"] = stamp;
  ev["count"] = 1;
  ev["type"] = "Warning";
  ev["eventTime"] = nullptr;
  ev["reportingComponent"] = "garbage-collector-controller";
  ev["reportingInstance"] = "";
  auto r = co_await ctx_->client().Create({"", "v1", "events"}, ns, std::move(ev));
  if (!r.ok()) LogWarn("garbage collector: could not record event", {{"reason", reason}, {"error", r.status().message()}});
}

}  // namespace capstan::controllers
