#include "controllers/volumeprotection/pv_protection_controller.h"

#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"
#include "controllers/volumeprotection/finalizer_util.h"
#include "controllers/volumeprotection/pvc_protection_controller.h"
#include "util/log.h"

namespace capstan::controllers {

namespace am = capstan::apimachinery;

namespace {
const Gvr kVolumes{"", "v1", "persistentvolumes"};
}  // namespace

void PvProtectionController::Start(ControllerContext& ctx) {
  client_ = &ctx.client();
  queue_ = &ctx.NewQueue("pvprotection");
  InformerOptions v;
  v.gvr = kVolumes;
  volumes_ = &ctx.SharedInformer(v);
  auto changed = [this](const Object& o) {
    if (NeedsFinalizer(o, kPvProtectionFinalizer) || IsDeletionCandidate(o, kPvProtectionFinalizer)) {
      queue_->Add(std::string(am::GetName(o)));
    }
  };
  volumes_->AddHandler(EventHandler{changed, [changed](const Object&, const Object& o) { changed(o); }, nullptr});
  ctx.scope().Spawn(Run(ctx));
}

Task<void> PvProtectionController::Run(ControllerContext& ctx) {
  if (!co_await volumes_->WaitForSync()) co_return;
  LogInfo("Starting controller", {{"controller", std::string(kPvProtectionController)}});
  WorkerOptions wo;
  wo.controller = std::string(kPvProtectionController);
  RunWorkers(ctx, *queue_, wo, [this](const std::string& key) { return Sync(key); });
}

Task<SyncResult> PvProtectionController::Sync(const std::string& name) {
  const Object* cached = volumes_->Get("", name);
  if (!cached) co_return SyncResult::Ok();
  Mutation m;
  if (IsDeletionCandidate(*cached, kPvProtectionFinalizer)) {
    // In use while bound to a claim; the status update that releases it brings it back here.
    if (JsonString(*cached, {"status", "phase"}) == "Bound") co_return SyncResult::Ok();
    m = RemoveFinalizerMutation(kPvProtectionFinalizer);
  } else if (NeedsFinalizer(*cached, kPvProtectionFinalizer)) {
    m = AddFinalizerMutation(kPvProtectionFinalizer);
  } else {
    co_return SyncResult::Ok();
  }
  auto r = co_await client_->Mutate(kVolumes, "", name, std::move(m));
  if (r.ok() || am::IsNotFound(r.status())) co_return SyncResult::Ok();
  co_return SyncResult::Retry(r.TakeStatus());
}

}  // namespace capstan::controllers
