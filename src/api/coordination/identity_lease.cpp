#include "api/coordination/identity_lease.h"

#include <openssl/sha.h>

#include "api/common.h"
#include "apimachinery/errors.h"
#include "apimachinery/names.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/time_util.h"
#include "util/log.h"

namespace capstan::api::coordination {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

constexpr const char* kNamespace = "kube-system";
constexpr const char* kIdentityLabel = "apiserver.kubernetes.io/identity";
constexpr const char* kComponent = "kube-apiserver";

std::string Base32Lower(const unsigned char* data, size_t n) {
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
  std::string out;
  uint64_t buffer = 0;
  int bits = 0;
  for (size_t i = 0; i < n; ++i) {
    buffer = (buffer << 8) | data[i];
    bits += 8;
    while (bits >= 5) {
      out += kAlphabet[(buffer >> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += kAlphabet[(buffer << (5 - bits)) & 31];
  return out;
}

void AppendLengthPrefixed(std::string& out, const std::string& s) {
  out += static_cast<char>((s.size() >> 8) & 0xff);
  out += static_cast<char>(s.size() & 0xff);
  out += s;
}

registry::Context KubeSystem() {
  registry::Context ctx;
  ctx.namespace_ = kNamespace;
  return ctx;
}

// kube's isLeaseExpired: no renewTime or duration counts as expired.
bool Expired(const registry::Object& lease, am::Timestamp now) {
  const auto* renew = PathAt(lease, {"spec", "renewTime"});
  const auto* duration = PathAt(lease, {"spec", "leaseDurationSeconds"});
  if (!renew || !renew->is_string() || !duration || !duration->is_int64()) return true;
  auto t = am::ParseRfc3339Micro(renew->get_string());
  if (!t.ok()) t = am::ParseRfc3339(renew->get_string());
  if (!t.ok()) return true;
  return t->seconds + duration->get_int64() < now.seconds ||
         (t->seconds + duration->get_int64() == now.seconds && t->nanos < now.nanos);
}

}  // namespace

std::string IdentityFor(const std::string& hostname) {
  std::string data;
  AppendLengthPrefixed(data, hostname);
  AppendLengthPrefixed(data, kComponent);
  unsigned char hash[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), hash);
  return "apiserver-" + Base32Lower(hash, 16);
}

IdentityLeaseController::IdentityLeaseController(Config c)
    : c_(std::move(c)), name_(IdentityFor(c_.hostname)), holder_(name_ + "_" + am::NewUid()) {}

Task<Status> IdentityLeaseController::RenewOnce() {
  auto* getter = dynamic_cast<registry::Getter*>(c_.leases);
  auto* creater = dynamic_cast<registry::Creater*>(c_.leases);
  auto* updater = dynamic_cast<registry::Updater*>(c_.leases);
  if (!getter || !creater || !updater) co_return am::NewInternalError("leases are not served");
  const std::string now = am::FormatRfc3339Micro(am::Timestamp::FromTimePoint(c_.clock->Now()));
  auto fill = [this, &now](registry::Object& lease) {
    json::value& md = lease["metadata"];
    if (!md.is_object()) md = json::object();
    json::value& labels = md.get_object()["labels"];
    if (!labels.is_object()) labels = json::object();
    labels.get_object()[kIdentityLabel] = kComponent;
    labels.get_object()["kubernetes.io/hostname"] = c_.hostname;
    json::value& spec = lease["spec"];
    if (!spec.is_object()) spec = json::object();
    spec.get_object()["holderIdentity"] = holder_;
    spec.get_object()["leaseDurationSeconds"] = c_.lease_duration_seconds;
    spec.get_object()["renewTime"] = now;
  };
  registry::Context ctx = KubeSystem();
  auto existing = co_await getter->Get(ctx, name_, {});
  if (!existing.ok()) {
    if (!am::IsNotFound(existing.status())) co_return existing.TakeStatus();
    registry::Object lease;
    lease["apiVersion"] = "coordination.k8s.io/v1";
    lease["kind"] = "Lease";
    lease["metadata"] = json::object{{"name", name_}, {"namespace", kNamespace}};
    fill(lease);
    auto r = co_await creater->Create(ctx, std::move(lease), {});
    if (!r.ok() && !am::IsAlreadyExists(r.status())) co_return r.TakeStatus();
    co_return Status();
  }
  auto r = co_await updater->Update(
      ctx, name_,
      [this, fill](const registry::Object* cur) -> Task<StatusOr<registry::Object>> {
        if (!cur) co_return am::NewNotFound({"coordination.k8s.io", "leases"}, name_);
        registry::Object next = *cur;
        fill(next);
        co_return next;
      },
      {});
  co_return r.ok() ? Status() : r.TakeStatus();
}

Task<Status> IdentityLeaseController::CollectOnce() {
  auto* lister = dynamic_cast<registry::Lister*>(c_.leases);
  auto* getter = dynamic_cast<registry::Getter*>(c_.leases);
  auto* deleter = dynamic_cast<registry::GracefulDeleter*>(c_.leases);
  if (!lister || !getter || !deleter) co_return am::NewInternalError("leases are not served");
  registry::Context ctx = KubeSystem();
  registry::ListOptions lo;
  lo.label_selector = std::string(kIdentityLabel) + "=" + kComponent;
  auto list = co_await lister->List(ctx, lo);
  if (!list.ok()) co_return list.TakeStatus();
  for (const auto& item : list->items) {
    std::string name(am::GetName(item));
    const am::Timestamp now = am::Timestamp::FromTimePoint(c_.clock->Now());
    if (name == name_ || !Expired(item, now)) continue;
    // As kube: look again before deleting (the holder may have renewed meanwhile).
    auto fresh = co_await getter->Get(ctx, name, {});
    if (!fresh.ok() || !Expired(*fresh, now)) continue;
    registry::DeleteOptions d;
    d.precondition_resource_version = std::string(am::GetResourceVersion(*fresh));
    auto gone = co_await deleter->Delete(ctx, name, d);
    if (gone.ok()) {
      LogInfo("deleted an expired apiserver identity lease", {{"lease", name}});
    } else if (!am::IsNotFound(gone.status()) && !am::IsConflict(gone.status())) {
      LogWarn("apiserver identity lease garbage collection", {{"lease", name}, {"error", gone.status().message()}});
    }
  }
  co_return Status();
}

void IdentityLeaseController::Start() {
  thread_ = std::thread([this] {
    auto next_gc = std::chrono::steady_clock::now();
    for (;;) {
      Status st = SyncWait(RenewOnce());
      if (!st.ok()) LogWarn("apiserver identity lease", {{"lease", name_}, {"error", st.message()}});
      if (std::chrono::steady_clock::now() >= next_gc) {
        Status gc = SyncWait(CollectOnce());
        if (!gc.ok()) LogWarn("apiserver identity lease garbage collection", {{"error", gc.message()}});
        next_gc = std::chrono::steady_clock::now() + c_.gc_period;
      }
      std::unique_lock lock(mu_);
      if (cv_.wait_for(lock, c_.renew_interval, [this] { return stopping_; })) break;
    }
  });
}

void IdentityLeaseController::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    if (!thread_.joinable()) return;
  }
  cv_.notify_all();
  thread_.join();
}

}  // namespace capstan::api::coordination
