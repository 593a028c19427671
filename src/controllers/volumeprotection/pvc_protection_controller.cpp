#include "controllers/volumeprotection/pvc_protection_controller.h"

#include <algorithm>
#include <boost/json.hpp>

#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"
#include "controllers/volumeprotection/finalizer_util.h"
#include "util/log.h"

namespace capstan::controllers {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

const Gvr kClaims{"", "v1", "persistentvolumeclaims"};
const Gvr kPods{"", "v1", "pods"};

bool ShutDown(const Object& pod) {
  auto grace = am::GetDeletionGracePeriodSeconds(pod);
  return am::GetDeletionTimestamp(pod) && grace && *grace == 0;
}

bool Terminated(const Object& pod) {
  std::string phase = JsonString(pod, {"status", "phase"});
  return phase == "Succeeded" || phase == "Failed";
}

const json::array* Volumes(const Object& pod) {
  const json::value* v = JsonPath(pod, {"spec", "volumes"});
  return v && v->is_array() ? &v->as_array() : nullptr;
}

}  // namespace

bool NeedsFinalizer(const Object& o, std::string_view finalizer) {
  if (am::GetDeletionTimestamp(o)) return false;
  auto f = am::GetFinalizers(o);
  return std::find(f.begin(), f.end(), finalizer) == f.end();
}

bool IsDeletionCandidate(const Object& o, std::string_view finalizer) {
  if (!am::GetDeletionTimestamp(o)) return false;
  auto f = am::GetFinalizers(o);
  return std::find(f.begin(), f.end(), finalizer) != f.end();
}

bool PodUsesClaim(const Object& pod, const Object& pvc) {
  if (JsonString(pod, {"spec", "nodeName"}).empty()) return false;
  const json::array* vols = Volumes(pod);
  if (!vols) return false;
  std::string claim(am::GetName(pvc));
  for (const auto& v : *vols) {
    if (!v.is_object()) continue;
    const Object& vol = v.as_object();
    if (JsonPath(vol, {"persistentVolumeClaim"}) && JsonString(vol, {"persistentVolumeClaim", "claimName"}) == claim) {
      return true;
    }
    const json::value* eph = vol.if_contains("ephemeral");
    if (eph && !eph->is_null() && !ShutDown(pod) &&
        std::string(am::GetName(pod)) + "-" + JsonString(vol, {"name"}) == claim) {
      // The claim must be the one created for this pod (its controller owner).
      for (const auto& o : am::GetOwnerReferences(pvc)) {
        if (o.controller.value_or(false) && o.uid == am::GetUid(pod)) return true;
      }
    }
  }
  return false;
}

void PvcProtectionController::Start(ControllerContext& ctx) {
  client_ = &ctx.client();
  queue_ = &ctx.NewQueue("pvcprotection");
  InformerOptions c;
  c.gvr = kClaims;
  claims_ = &ctx.SharedInformer(c);
  InformerOptions p;
  p.gvr = kPods;
  pods_ = &ctx.SharedInformer(p);
  auto claim_changed = [this](const Object& o) {
    if (NeedsFinalizer(o, kPvcProtectionFinalizer) || IsDeletionCandidate(o, kPvcProtectionFinalizer)) {
      queue_->Add(std::string(am::GetNamespace(o)) + "/" + std::string(am::GetName(o)));
    }
  };
  claims_->AddHandler(EventHandler{claim_changed, [claim_changed](const Object&, const Object& o) { claim_changed(o); },
                                   nullptr});
  pods_->AddHandler(EventHandler{[this](const Object& o) { EnqueueClaimsOf(o, false); },
                                 [this](const Object& old, const Object& o) {
                                   EnqueueClaimsOf(o, false);
                                   // A pod replaced under the same name: the old one may have blocked a claim.
                                   if (am::GetUid(old) != am::GetUid(o)) EnqueueClaimsOf(old, true);
                                 },
                                 [this](const Object& o) { EnqueueClaimsOf(o, true); }});
  ctx.scope().Spawn(Run(ctx));
}

void PvcProtectionController::EnqueueClaimsOf(const Object& pod, bool deleted) {
  // Only pods that can no longer hold a claim can let one go.
  if (!deleted && !Terminated(pod) && !JsonString(pod, {"spec", "nodeName"}).empty()) return;
  const json::array* vols = Volumes(pod);
  if (!vols) return;
  std::string ns(am::GetNamespace(pod));
  for (const auto& v : *vols) {
    if (!v.is_object()) continue;
    const Object& vol = v.as_object();
    if (JsonPath(vol, {"persistentVolumeClaim"})) {
      queue_->Add(ns + "/" + JsonString(vol, {"persistentVolumeClaim", "claimName"}));
    } else if (const json::value* e = vol.if_contains("ephemeral"); e && !e->is_null()) {
      queue_->Add(ns + "/" + std::string(am::GetName(pod)) + "-" + JsonString(vol, {"name"}));
    }
  }
}

Task<void> PvcProtectionController::Run(ControllerContext& ctx) {
  if (!co_await claims_->WaitForSync() || !co_await pods_->WaitForSync()) co_return;
  LogInfo("Starting controller", {{"controller", std::string(kPvcProtectionController)}});
  WorkerOptions wo;
  wo.controller = std::string(kPvcProtectionController);
  RunWorkers(ctx, *queue_, wo, [this](const std::string& key) { return Sync(key); });
}

Task<SyncResult> PvcProtectionController::Sync(const std::string& key) {
  size_t slash = key.find('/');
  std::string ns = key.substr(0, slash), name = slash == std::string::npos ? "" : key.substr(slash + 1);
  const Object* cached = claims_->Get(ns, name);
  if (!cached) co_return SyncResult::Ok();
  Object pvc = *cached;  // the cache may change while this sync waits
  if (IsDeletionCandidate(pvc, kPvcProtectionFinalizer)) {
    bool used = false;
    pods_->ForEach([&](const Object& pod) {
      if (!used && am::GetNamespace(pod) == ns && PodUsesClaim(pod, pvc)) used = true;
    });
    if (!used) {
      // The cache may lag behind a pod just created: a live list decides.
      auto live = co_await client_->List(kPods, ns, {});
      if (!live.ok()) co_return SyncResult::Retry(live.TakeStatus());
      for (const auto& pod : live->items) used = used || PodUsesClaim(pod, pvc);
    }
    if (used) co_return SyncResult::Ok();  // a pod event brings the claim back
    auto r = co_await client_->Mutate(kClaims, ns, name, RemoveFinalizerMutation(kPvcProtectionFinalizer));
    if (r.ok() || am::IsNotFound(r.status())) co_return SyncResult::Ok();
    co_return SyncResult::Retry(r.TakeStatus());
  }
  if (NeedsFinalizer(pvc, kPvcProtectionFinalizer)) {
    auto r = co_await client_->Mutate(kClaims, ns, name, AddFinalizerMutation(kPvcProtectionFinalizer));
    if (r.ok() || am::IsNotFound(r.status())) co_return SyncResult::Ok();
    co_return SyncResult::Retry(r.TakeStatus());
  }
  co_return SyncResult::Ok();
}

}  // namespace capstan::controllers
