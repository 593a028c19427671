#include "controllers/bootstrap/token_cleaner.h"

#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/time_util.h"
#include "controllers/selection.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::controllers {

namespace am = capstan::apimachinery;

namespace {
const Gvr kSecrets{"", "v1", "secrets"};
}  // namespace

std::optional<std::chrono::nanoseconds> TimeToExpiry(const Object& secret, std::chrono::system_clock::time_point now) {
  std::string encoded = JsonString(secret, {"data", "expiration"});
  if (encoded.empty()) return std::nullopt;
  std::string expiration;
  if (!Base64Decode(encoded, expiration) || expiration.empty()) return std::nullopt;
  auto t = am::ParseRfc3339(expiration);
  if (!t.ok()) return std::nullopt;
  auto ttl = std::chrono::duration_cast<std::chrono::nanoseconds>(t->ToTimePoint() - now);
  if (ttl <= std::chrono::nanoseconds(0)) return std::chrono::nanoseconds(0);
  return ttl;
}

std::string_view TokenCleaner::Name() const { return kTokenCleanerController; }

void TokenCleaner::Start(ControllerContext& ctx) {
  client_ = &ctx.client();
  clock_ = &ctx.clock();
  queue_ = &ctx.NewQueue("token_cleaner");
  InformerOptions io;
  io.gvr = kSecrets;
  io.namespace_ = opts_.namespace_;
  secrets_ = &ctx.SharedInformer(io);
  auto enqueue = [this](const Object& s) {
    if (JsonString(s, {"type"}) != kBootstrapTokenSecretType) return;
    queue_->Add(std::string(am::GetNamespace(s)) + "/" + std::string(am::GetName(s)));
  };
  secrets_->AddHandler(EventHandler{enqueue, [enqueue](const Object&, const Object& s) { enqueue(s); }, nullptr});
  ctx.scope().Spawn(Run(ctx));
}

Task<void> TokenCleaner::Run(ControllerContext& ctx) {
  if (!co_await secrets_->WaitForSync()) co_return;
  LogInfo("Starting controller", {{"controller", std::string(kTokenCleanerController)}});
  WorkerOptions wo;
  wo.controller = std::string(kTokenCleanerController);
  RunWorkers(ctx, *queue_, wo, [this](const std::string& key) { return Sync(key); });
}

Task<SyncResult> TokenCleaner::Sync(const std::string& key) {
  auto slash = key.find('/');
  std::string ns = key.substr(0, slash);
  std::string name = key.substr(slash + 1);
  const Object* secret = secrets_->Get(ns, name);
  if (!secret || JsonString(*secret, {"type"}) != kBootstrapTokenSecretType) co_return SyncResult::Ok();
  auto ttl = TimeToExpiry(*secret, clock_->Now());
  if (!ttl) co_return SyncResult::Ok();
  if (*ttl > std::chrono::nanoseconds(0)) {
    queue_->AddAfter(key, *ttl);
    co_return SyncResult::Ok();
  }
  registry::DeleteOptions opts;
  std::string uid(am::GetUid(*secret));
  if (!uid.empty()) opts.precondition_uid = uid;
  auto r = co_await client_->Delete(kSecrets, ns, name, opts);
  // Gone already, or replaced by a new Secret (the UID precondition failed): nothing to do.
  if (r.ok() || am::IsNotFound(r.status()) || am::IsConflict(r.status())) {
    if (r.ok()) LogInfo("deleted expired bootstrap token", {{"secret", key}});
    co_return SyncResult::Ok();
  }
  co_return SyncResult::Retry(r.TakeStatus());
}

}  // namespace capstan::controllers
