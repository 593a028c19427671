#include "controllers/serviceaccount/tokens_controller.h"

#include <boost/json.hpp>

#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"
#include "controllers/selection.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::controllers {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

const Gvr kSecrets{"", "v1", "secrets"};
const Gvr kServiceAccounts{"", "v1", "serviceaccounts"};
constexpr std::string_view kNameAnnotation = "kubernetes.io/service-account.name";
constexpr std::string_view kUidAnnotation = "kubernetes.io/service-account.uid";

std::string Key(const Object& o) { return std::string(am::GetNamespace(o)) + "/" + std::string(am::GetName(o)); }

std::pair<std::string, std::string> SplitKey(const std::string& key) {
  auto slash = key.find('/');
  return {key.substr(0, slash), key.substr(slash + 1)};
}

std::string Annotation(const Object& o, std::string_view key) {
  for (const auto& [k, v] : am::GetAnnotations(o)) {
    if (k == key) return std::string(v);
  }
  return "";
}

bool IsTokenSecret(const Object& s) { return JsonString(s, {"type"}) == kServiceAccountTokenSecretType; }

std::string DataValue(const Object& s, std::string_view key) {
  std::string out;
  if (!Base64Decode(JsonString(s, {"data", key}), out)) return "";
  return out;
}

}  // namespace

std::string_view TokensController::Name() const { return kServiceAccountTokenController; }

void TokensController::Start(ControllerContext& ctx) {
  client_ = &ctx.client();
  account_queue_ = &ctx.NewQueue("serviceaccount_tokens_service");
  secret_queue_ = &ctx.NewQueue("serviceaccount_tokens_secret");
  InformerOptions sa;
  sa.gvr = kServiceAccounts;
  accounts_ = &ctx.SharedInformer(sa);
  InformerOptions se;
  se.gvr = kSecrets;
  se.field_selector = "type=" + std::string(kServiceAccountTokenSecretType);
  secrets_ = &ctx.SharedInformer(se);
  // A deleted account's tokens go; kube also queues adds and updates, which find nothing to do.
  accounts_->AddHandler(EventHandler{nullptr, nullptr, [this](const Object& o) { account_queue_->Add(Key(o)); }});
  auto enqueue_secret = [this](const Object& s) {
    if (IsTokenSecret(s)) secret_queue_->Add(Key(s));
  };
  secrets_->AddHandler(
      EventHandler{enqueue_secret, [enqueue_secret](const Object&, const Object& s) { enqueue_secret(s); }, nullptr});
  ctx.scope().Spawn(Run(ctx));
}

Task<void> TokensController::Run(ControllerContext& ctx) {
  if (!co_await accounts_->WaitForSync() || !co_await secrets_->WaitForSync()) co_return;
  LogInfo("Starting controller", {{"controller", std::string(kServiceAccountTokenController)}});
  WorkerOptions wo;
  wo.controller = std::string(kServiceAccountTokenController);
  wo.workers = opts_.workers;
  RunWorkers(ctx, *account_queue_, wo, [this](const std::string& key) { return SyncServiceAccount(key); });
  RunWorkers(ctx, *secret_queue_, wo, [this](const std::string& key) { return SyncSecret(key); });
}

Task<SyncResult> TokensController::DeleteSecret(const std::string& ns, const std::string& name, const std::string& uid) {
  registry::DeleteOptions opts;
  if (!uid.empty()) opts.precondition_uid = uid;
  auto r = co_await client_->Delete(kSecrets, ns, name, opts);
  // Gone already, or replaced by a new Secret (the UID precondition failed): nothing to do.
  if (r.ok() || am::IsNotFound(r.status()) || am::IsConflict(r.status())) co_return SyncResult::Ok();
  co_return SyncResult::Retry(r.TakeStatus());
}

Task<SyncResult> TokensController::SyncServiceAccount(const std::string& key) {
  auto split = SplitKey(key);
  const std::string ns = std::move(split.first);
  const std::string name = std::move(split.second);
  if (accounts_->Get(ns, name)) co_return SyncResult::Ok();
  // The account is gone: so are the token Secrets that name it.
  std::vector<std::pair<std::string, std::string>> doomed;  // name, uid
  secrets_->ForEach([&](const Object& s) {
    if (am::GetNamespace(s) == ns && IsTokenSecret(s) && Annotation(s, kNameAnnotation) == name) {
      doomed.emplace_back(std::string(am::GetName(s)), std::string(am::GetUid(s)));
    }
  });
  for (const auto& [secret, uid] : doomed) {
    SyncResult r = co_await DeleteSecret(ns, secret, uid);
    if (r.retry) co_return r;
  }
  co_return SyncResult::Ok();
}

Task<SyncResult> TokensController::SyncSecret(const std::string& key) {
  auto split = SplitKey(key);
  const std::string ns = std::move(split.first);
  const std::string name = std::move(split.second);
  const Object* cached = secrets_->Get(ns, name);
  if (!cached || !IsTokenSecret(*cached)) co_return SyncResult::Ok();
  const std::string account = Annotation(*cached, kNameAnnotation);
  const std::string want_uid = Annotation(*cached, kUidAnnotation);
  // The account is read live, as kube does: a Secret created right after its account must not be
  // deleted because the cache has not seen the account yet.
  auto sa = co_await client_->Get(kServiceAccounts, ns, account);
  if (!sa.ok() && !am::IsNotFound(sa.status())) co_return SyncResult::Retry(sa.TakeStatus());
  if (!sa.ok() || (!want_uid.empty() && want_uid != am::GetUid(*sa))) {
    LogInfo("deleting token secret of a missing service account", {{"secret", key}, {"serviceAccount", account}});
    co_return co_await DeleteSecret(ns, name, std::string(am::GetUid(*cached)));
  }
  const std::string sa_uid(am::GetUid(*sa));
  const std::string secret_uid(am::GetUid(*cached));
  auto sign = opts_.sign;
  const std::string ca = opts_.root_ca_pem;
  auto r = co_await client_->Mutate(
      kSecrets, ns, name, [&](Object& s) -> StatusOr<bool> {
        if (am::GetUid(s) != secret_uid) return Status(409, "Conflict", "the secret was replaced");
        const bool needs_ca = !ca.empty() && DataValue(s, "ca.crt") != ca;
        const bool needs_namespace = DataValue(s, "namespace").empty();
        const bool needs_token = DataValue(s, "token").empty();
        if (!needs_ca && !needs_namespace && !needs_token) return false;
        json::object* data = s["data"].if_object();
        if (!data) data = &(s["data"] = json::object()).as_object();
        if (needs_ca) (*data)["ca.crt"] = Base64Encode(ca);
        if (needs_namespace) (*data)["namespace"] = Base64Encode(ns);
        if (needs_token) {
          if (!sign) return Status(500, "InternalError", "no service account signing key");
          auto token = sign(ns, account, sa_uid, name);
          if (!token.ok()) return token.TakeStatus();
          (*data)["token"] = Base64Encode(*token);
        }
        json::object& md = s["metadata"].as_object();
        json::object* ann = md["annotations"].if_object();
        if (!ann) ann = &(md["annotations"] = json::object()).as_object();
        (*ann)[kNameAnnotation] = account;
        (*ann)[kUidAnnotation] = sa_uid;
        return true;
      });
  if (r.ok() || am::IsNotFound(r.status()) || am::IsConflict(r.status())) co_return SyncResult::Ok();
  co_return SyncResult::Retry(r.TakeStatus());
}

}  // namespace capstan::controllers
