#include "api/apiextensions/crd_controller.h"

#include <algorithm>
#include <set>

#include "api/apiextensions/api_approval.h"
#include "api/apiextensions/crd_types.h"
#include "apimachinery/json_write.h"
#include "apimachinery/object_meta.h"
#include "endpoints/installer.h"
#include "util/log.h"
#include "util/task.h"

namespace capstan::api::apiextensions {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

const UserInfo& ApiserverUser() {
  static const UserInfo u{"system:apiserver", "", {"system:masters"}, {}};
  return u;
}

registry::Context MakeContext(const std::string& ns = "") {
  registry::Context ctx;
  ctx.namespace_ = ns;
  ctx.user = &ApiserverUser();
  return ctx;
}

std::string Str(const json::object* o, std::string_view key) {
  if (!o) return "";
  const auto* v = o->if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

const json::object* Obj(const json::object* o, std::string_view key) {
  if (!o) return nullptr;
  const auto* v = o->if_contains(key);
  return v && v->is_object() ? &v->get_object() : nullptr;
}

struct NameSets {
  std::set<std::string> resources, kinds;
};

// kube's equalToAcceptedOrFresh.
std::optional<std::string> Conflict(const std::string& requested, const std::string& accepted,
                                    const std::set<std::string>& used) {
  if (requested == accepted || !used.count(requested)) return std::nullopt;
  return "\"" + requested + "\" is already in use";
}

void AddNames(NameSets& sets, const CrdNames& n) {
  sets.resources.insert(n.plural);
  sets.resources.insert(n.singular);
  for (const auto& s : n.short_names) sets.resources.insert(s);
  sets.kinds.insert(n.kind);
  sets.kinds.insert(n.list_kind);
}

// The CRD's status after the naming step (kube's calculateNamesAndConditions).
void ComputeNames(Object& crd, const NameSets& used, const std::string& now) {
  const json::object* status = Obj(&crd, "status");
  CrdNames requested = ParseNames(Obj(Obj(&crd, "spec"), "names"));
  CrdNames accepted = ParseNames(Obj(status, "acceptedNames"));
  CrdNames names = accepted;
  std::string cond_status = "Unknown", reason, message;
  auto fail = [&](const char* r, std::string m) {
    cond_status = "False";
    reason = r;
    message = std::move(m);
  };
  if (auto c = Conflict(requested.plural, accepted.plural, used.resources)) {
    fail("PluralConflict", *c);
  } else {
    names.plural = requested.plural;
  }
  if (auto c = Conflict(requested.singular, accepted.singular, used.resources)) {
    fail("SingularConflict", *c);
  } else {
    names.singular = requested.singular;
  }
  if (requested.short_names != accepted.short_names) {
    std::vector<std::string> errs;
    std::set<std::string> mine(accepted.short_names.begin(), accepted.short_names.end());
    for (const auto& s : requested.short_names) {
      if (mine.count(s)) continue;
      if (auto c = Conflict(s, "", used.resources)) errs.push_back(*c);
    }
    if (!errs.empty()) {
      std::string m = errs.size() == 1 ? errs[0] : "[" + [&] {
        std::string j;
        for (size_t i = 0; i < errs.size(); ++i) j += (i ? ", " : "") + errs[i];
        return j;
      }() + "]";
      fail("ShortNamesConflict", m);
    } else {
      names.short_names = requested.short_names;
    }
  }
  if (auto c = Conflict(requested.kind, accepted.kind, used.kinds)) {
    fail("KindConflict", *c);
  } else {
    names.kind = requested.kind;
  }
  if (auto c = Conflict(requested.list_kind, accepted.list_kind, used.kinds)) {
    fail("ListKindConflict", *c);
  } else {
    names.list_kind = requested.list_kind;
  }
  names.categories = requested.categories;
  if (cond_status == "Unknown") {
    cond_status = "True";
    reason = "NoConflicts";
    message = "no conflicts found";
  }
  json::value& sv = crd["status"];
  if (!sv.is_object()) sv = json::object();
  sv.get_object()["acceptedNames"] = NamesToJson(names);
  SetCondition(crd, "NamesAccepted", cond_status, reason, message, now);
  if (!IsConditionTrue(crd, "Established")) {
    if (cond_status == "True") {
      SetCondition(crd, "Established", "False", "Installing", "the initial names have been accepted", now);
    } else if (!FindCondition(crd, "Established")) {
      SetCondition(crd, "Established", "False", "NotAccepted", "not all names are accepted", now);
    }
  }
}

// Writes `status` (taken from `desired`) over the CRD's current status.
Status WriteStatus(const endpoints::ResourceEntry& status_entry, const std::string& name, const Object& desired) {
  json::value st = desired.contains("status") ? desired.at("status") : json::value(json::object());
  registry::ObjectTransform t = [st](const Object* cur) -> Task<StatusOr<Object>> {
    if (!cur) co_return Status(404, "NotFound", "gone");
    Object o = *cur;
    o["status"] = st;
    co_return o;
  };
  auto r = SyncWait(status_entry.updater->Update(MakeContext(), name, std::move(t), {}));
  return r.ok() ? Status() : r.status();
}

}  // namespace

CrdController::CrdController(endpoints::ApiRegistry& apis, std::shared_ptr<CrdChangeSignal> signal, Options opts)
    : apis_(apis), signal_(signal ? std::move(signal) : std::make_shared<CrdChangeSignal>()), opts_(std::move(opts)) {}

CrdController::~CrdController() { Stop(); }

void CrdController::Start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { Loop(); });
}

void CrdController::Stop() {
  signal_->Stop();
  if (thread_.joinable()) thread_.join();
}

void CrdController::Loop() {
  uint64_t seen = signal_->generation();
  while (!signal_->stopped()) {
    auto wrote = ReconcileOnce();
    if (!wrote.ok()) LogWarn("crd controller pass failed", {{"error", wrote.status().message()}});
    if (wrote.ok() && *wrote) continue;  // its own writes may unblock more (names freed, finalizers)
    seen = signal_->WaitAfter(seen, opts_.resync);
  }
}

std::vector<std::string> CrdController::Served() const {
  std::vector<std::string> out;
  for (const auto& [name, s] : served_) out.push_back(name);
  return out;
}

void CrdController::Uninstall(const ServedCrd& s) {
  for (const auto& v : s.versions) apis_.Remove(s.group, v, s.plural);
}

StatusOr<bool> CrdController::ReconcileOnce() {
  auto snap = apis_.Snapshot();
  const auto* crds = snap->FindResource(kGroup, "v1", "customresourcedefinitions", "");
  const auto* status = snap->FindResource(kGroup, "v1", "customresourcedefinitions", "status");
  if (!crds || !crds->lister || !status || !status->updater) {
    return Status(500, "InternalError", "customresourcedefinitions are not served");
  }
  auto list = SyncWait(crds->lister->List(MakeContext(), {}));
  if (!list.ok()) return list.status();
  std::vector<Object>& items = list->items;
  // Older CRDs claim names first.
  std::stable_sort(items.begin(), items.end(), [](const Object& a, const Object& b) {
    return Str(Obj(&a, "metadata"), "creationTimestamp") < Str(Obj(&b, "metadata"), "creationTimestamp");
  });
  std::map<std::string, NameSets> used;  // by group: accepted names
  // The built-in resources Capstan serves claim their names in their groups first: a CRD asking for
  // one is refused in NamesAccepted rather than shadowing (or being shadowed by) the built-in.
  std::map<std::string, NameSets> builtin;
  for (const auto& [gv, entry] : snap->versions) {
    for (const auto& [rname, r] : entry.resources) {
      if (r.custom || !r.info.subresource.empty() || rname.find('/') != std::string::npos) continue;
      NameSets& b = builtin[r.info.group];
      b.resources.insert(r.info.resource);
      if (!r.info.singular.empty()) b.resources.insert(r.info.singular);
      for (const auto& sn : r.info.short_names) b.resources.insert(sn);
      if (!r.info.kind.empty()) {
        b.kinds.insert(r.info.kind);
        b.kinds.insert(r.info.list_kind.empty() ? r.info.kind + "List" : r.info.list_kind);
      }
    }
  }
  for (const auto& [group, names] : builtin) used[group] = names;
  for (const auto& crd : items) {
    AddNames(used[Str(Obj(&crd, "spec"), "group")], ParseNames(Obj(Obj(&crd, "status"), "acceptedNames")));
  }
  const std::string now = NowRfc3339();
  bool wrote = false;
  std::set<std::string> present;
  for (const Object& crd : items) {
    const std::string name(am::GetName(crd));
    present.insert(name);
    const std::string group = Str(Obj(&crd, "spec"), "group");
    Object desired = crd;
    ComputeNames(desired, used[group], now);
    SetApiApprovalCondition(desired, now);
    AddNames(used[group], ParseNames(Obj(Obj(&desired, "status"), "acceptedNames")));

    // Serve under the accepted names.
    CrdNames accepted = ParseNames(Obj(Obj(&desired, "status"), "acceptedNames"));
    const bool shadows_builtin = builtin.count(group) && builtin[group].resources.count(accepted.plural);
    if (!accepted.plural.empty() && !accepted.kind.empty() && !shadows_builtin) {
      std::string key = std::string(am::GetUid(crd)) + "/" + std::to_string(am::GetGeneration(crd)) + "/" +
                        am::ToJson(json::value(NamesToJson(accepted)));
      auto it = served_.find(name);
      if (it == served_.end() || it->second.key != key) {
        Object serving = crd;
        serving["spec"].as_object()["names"] = NamesToJson(accepted);
        auto built = BuildCustomResource(opts_.deps, serving);
        if (!built.ok()) {
          LogWarn("cannot serve custom resource", {{"crd", name}, {"error", built.status().message()}});
        } else {
          ServedCrd s;
          s.key = key;
          s.group = group;
          s.plural = accepted.plural;
          s.terminating = built->terminating;
          for (const auto& v : ParseCrd(serving).versions) {
            if (v.served) s.versions.push_back(v.name);
            if (v.served && v.storage) s.storage_version = v.name;
          }
          if (it != served_.end()) {
            // Versions no longer served go; the others are replaced in place.
            for (const auto& v : it->second.versions) {
              if (it->second.plural != s.plural ||
                  std::find(s.versions.begin(), s.versions.end(), v) == s.versions.end()) {
                apis_.Remove(it->second.group, v, it->second.plural);
              }
            }
          }
          endpoints::InstallResources(apis_, std::move(built->resources), true);
          served_[name] = std::move(s);
          LogInfo("serving custom resource", {{"crd", name}});
        }
      }
      if (auto sit = served_.find(name); sit != served_.end() && sit->second.terminating) {
        sit->second.terminating->store(am::GetDeletionTimestamp(crd).has_value());
      }
      if (served_.count(name) && !IsConditionTrue(desired, "Established")) {
        SetCondition(desired, "Established", "True", "InitialNamesAccepted", "the initial names have been accepted", now);
      }
    }
    if (desired.at("status") != (crd.contains("status") ? crd.at("status") : json::value())) {
      Status st = WriteStatus(*status, name, desired);
      if (!st.ok() && st.code() != 404 && st.code() != 409) return st;
      wrote = true;
      continue;  // finalization runs on the next pass, from the written state
    }
    if (am::GetDeletionTimestamp(crd)) {
      auto f = am::GetFinalizers(crd);
      if (std::find(f.begin(), f.end(), kCleanupFinalizer) != f.end()) {
        auto done = Finalize(crd);
        if (!done.ok()) return done.status();
        wrote = wrote || *done;
      }
    }
  }
  for (auto it = served_.begin(); it != served_.end();) {
    if (present.count(it->first)) {
      ++it;
      continue;
    }
    Uninstall(it->second);
    LogInfo("stopped serving custom resource", {{"crd", it->first}});
    it = served_.erase(it);
  }
  return wrote;
}

StatusOr<bool> CrdController::Finalize(const Object& crd) {
  auto snap = apis_.Snapshot();
  const auto* main = snap->FindResource(kGroup, "v1", "customresourcedefinitions", "");
  const auto* status = snap->FindResource(kGroup, "v1", "customresourcedefinitions", "status");
  const std::string name(am::GetName(crd));
  const std::string now = NowRfc3339();
  Object desired = crd;
  const json::object* term = FindCondition(crd, "Terminating");
  if (!term || Str(term, "status") != "True" || Str(term, "reason") != "InstanceDeletionInProgress") {
    SetCondition(desired, "Terminating", "True", "InstanceDeletionInProgress", "CustomResource deletion is in progress", now);
    Status st = WriteStatus(*status, name, desired);
    if (!st.ok() && st.code() != 404 && st.code() != 409) return st;
    return true;
  }
  auto it = served_.find(name);
  if (IsConditionTrue(crd, "Established") && it != served_.end() && !it->second.versions.empty()) {
    // The storage version when served (no conversion webhook in the way), else the first served.
    const std::string& version = it->second.storage_version.empty() ? it->second.versions.front() : it->second.storage_version;
    const auto* cr = snap->FindResource(it->second.group, version, it->second.plural, "");
    if (cr && cr->lister && cr->deleter) {
      auto items = SyncWait(cr->lister->List(MakeContext(), {}));
      if (!items.ok()) {
        SetCondition(desired, "Terminating", "True", "InstanceDeletionFailed",
                     "could not list instances: " + items.status().message(), now);
        (void)WriteStatus(*status, name, desired);
        return items.status();
      }
      for (const auto& item : items->items) {
        auto r = SyncWait(cr->deleter->Delete(MakeContext(std::string(am::GetNamespace(item))),
                                              std::string(am::GetName(item)), {}));
        if (!r.ok() && r.status().code() != 404) {
          SetCondition(desired, "Terminating", "True", "InstanceDeletionFailed",
                       "could not issue all deletes: " + r.status().message(), now);
          (void)WriteStatus(*status, name, desired);
          return r.status();
        }
      }
      auto left = SyncWait(cr->lister->List(MakeContext(), {}));
      if (!left.ok() || !left->items.empty()) return false;  // finalizers of custom resources: next pass
    }
    SetCondition(desired, "Terminating", "False", "InstanceDeletionCompleted", "removed all instances", now);
  } else {
    SetCondition(desired, "Terminating", "False", "NeverEstablished", "resource was never established", now);
  }
  Status st = WriteStatus(*status, name, desired);
  if (!st.ok()) return st.code() == 404 || st.code() == 409 ? StatusOr<bool>(true) : StatusOr<bool>(st);
  registry::ObjectTransform drop = [](const Object* cur) -> Task<StatusOr<Object>> {
    if (!cur) co_return Status(404, "NotFound", "gone");
    Object o = *cur;
    auto f = am::GetFinalizers(o);
    f.erase(std::remove(f.begin(), f.end(), std::string(kCleanupFinalizer)), f.end());
    am::SetFinalizers(o, f);
    co_return o;
  };
  auto r = SyncWait(main->updater->Update(MakeContext(), name, std::move(drop), {}));
  if (!r.ok() && r.status().code() != 404 && r.status().code() != 409) return r.status();
  return true;
}

}  // namespace capstan::api::apiextensions
