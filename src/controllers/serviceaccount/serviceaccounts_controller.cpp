#include "controllers/serviceaccount/serviceaccounts_controller.h"

#include <algorithm>
#include <boost/json.hpp>

#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"
#include "controllers/selection.h"
#include "util/log.h"

namespace capstan::controllers {

namespace am = capstan::apimachinery;

namespace {
bool Active(const Object& ns) {
  return !am::GetDeletionTimestamp(ns) && JsonString(ns, {"status", "phase"}) != "Terminating";
}
}  // namespace

std::string_view ServiceAccountsController::Name() const { return kServiceAccountController; }

void ServiceAccountsController::Start(ControllerContext& ctx) {
  client_ = &ctx.client();
  queue_ = &ctx.NewQueue("serviceaccount");
  InformerOptions ns;
  ns.gvr = {"", "v1", "namespaces"};
  namespaces_ = &ctx.SharedInformer(ns);
  InformerOptions sa;
  sa.gvr = {"", "v1", "serviceaccounts"};
  accounts_ = &ctx.SharedInformer(sa);
  auto enqueue_ns = [this](const Object& o) {
    if (Active(o)) queue_->Add(std::string(am::GetName(o)));
  };
  namespaces_->AddHandler(EventHandler{enqueue_ns, [enqueue_ns](const Object&, const Object& o) { enqueue_ns(o); }, nullptr});
  accounts_->AddHandler(EventHandler{nullptr, nullptr, [this](const Object& o) {
                                       std::string name(am::GetName(o));
                                       const auto& want = opts_.service_accounts;
                                       if (std::find(want.begin(), want.end(), name) == want.end()) return;
                                       queue_->Add(std::string(am::GetNamespace(o)));
                                     }});
  ctx.scope().Spawn(Run(ctx));
}

Task<void> ServiceAccountsController::Run(ControllerContext& ctx) {
  if (!co_await namespaces_->WaitForSync() || !co_await accounts_->WaitForSync()) co_return;
  LogInfo("Starting controller", {{"controller", std::string(kServiceAccountController)}});
  WorkerOptions wo;
  wo.controller = std::string(kServiceAccountController);
  wo.workers = opts_.workers;
  RunWorkers(ctx, *queue_, wo, [this](const std::string& key) { return Sync(key); });
}

Task<SyncResult> ServiceAccountsController::Sync(const std::string& ns) {
  const Object* nsobj = namespaces_->Get("", ns);
  if (!nsobj || !Active(*nsobj)) co_return SyncResult::Ok();
  for (const auto& name : opts_.service_accounts) {
    if (accounts_->Get(ns, name)) continue;
    Object sa;
    boost::json::object md;
    md["name"] = name;
    sa["metadata"] = std::move(md);
    auto r = co_await client_->Create({"", "v1", "serviceaccounts"}, ns, std::move(sa));
    if (r.ok() || am::IsAlreadyExists(r.status())) continue;
    // The namespace went away or is terminating: nothing to keep.
    if (am::IsNotFound(r.status()) || am::IsForbidden(r.status())) co_return SyncResult::Ok();
    co_return SyncResult::Retry(r.TakeStatus());
  }
  co_return SyncResult::Ok();
}

}  // namespace capstan::controllers
