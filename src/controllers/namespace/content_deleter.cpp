#include "controllers/namespace/content_deleter.h"

#include <algorithm>
#include <boost/json.hpp>
#include <set>

#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/time_util.h"
#include "controllers/namespace/conditions.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::controllers {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

const Gvr kNamespaces{"", "v1", "namespaces"};

std::vector<std::string> SpecFinalizers(const Object& ns) {
  std::vector<std::string> out;
  if (const auto* f = JsonPath(ns, {"spec", "finalizers"}); f && f->is_array()) {
    for (const auto& x : f->get_array()) {
      if (x.is_string()) out.emplace_back(x.get_string());
    }
  }
  return out;
}

// Go's %v of a schema.GroupVersionResource.
std::string GoGvr(const Gvr& g) { return "{" + g.group + " " + g.version + " " + g.resource + "}"; }

}  // namespace

std::string NamespacedContentDeleter::Now() const {
  return am::FormatRfc3339(am::Timestamp::FromTimePoint(clock_.Now()));
}

Task<NamespacedContentDeleter::Outcome> NamespacedContentDeleter::Delete(const std::string& name) {
  auto ns = co_await client_.Get(kNamespaces, "", name);
  if (!ns.ok()) {
    if (am::IsNotFound(ns.status())) co_return Outcome{};
    co_return Outcome{ns.TakeStatus()};
  }
  if (!am::GetDeletionTimestamp(*ns)) co_return Outcome{};

  // The phase says Terminating (the registry sets it on delete; an older object may not).
  if (JsonString(*ns, {"status", "phase"}) != "Terminating") {
    auto updated = co_await client_.Mutate(
        kNamespaces, "", name,
        [](Object& o) -> StatusOr<bool> {
          if (!am::GetDeletionTimestamp(o) || JsonString(o, {"status", "phase"}) == "Terminating") return false;
          json::value& st = o["status"];
          if (!st.is_object()) st = json::object();
          st.get_object()["phase"] = "Terminating";
          return true;
        },
        "status");
    if (!updated.ok()) {
      if (am::IsNotFound(updated.status())) co_return Outcome{};
      co_return Outcome{updated.TakeStatus()};
    }
    ns = std::move(updated);
  }
  if (!am::GetDeletionTimestamp(*ns)) co_return Outcome{};
  // Already finalized by us: the registry deletes it once the other finalizers are gone.
  auto finalizers = SpecFinalizers(*ns);
  if (std::find(finalizers.begin(), finalizers.end(), kFinalizerKubernetes) == finalizers.end()) co_return Outcome{};

  Outcome content = co_await DeleteAllContent(*ns);
  if (!content.status.ok() || content.estimate > 0) co_return content;

  // Everything is gone: remove our token from spec.finalizers.
  auto finalized = co_await client_.Mutate(
      kNamespaces, "", name,
      [](Object& o) -> StatusOr<bool> {
        auto f = SpecFinalizers(o);
        std::set<std::string> rest;
        bool found = false;
        for (auto& x : f) {
          if (x == kFinalizerKubernetes) {
            found = true;
          } else {
            rest.insert(x);
          }
        }
        if (!found) return false;
        json::array arr;
        for (const auto& x : rest) arr.push_back(json::value(x));
        json::value& spec = o["spec"];
        if (!spec.is_object()) spec = json::object();
        spec.get_object()["finalizers"] = std::move(arr);
        return true;
      },
      "finalize");
  if (!finalized.ok() && !am::IsNotFound(finalized.status())) co_return Outcome{finalized.TakeStatus()};
  co_return Outcome{};
}

Task<NamespacedContentDeleter::Outcome> NamespacedContentDeleter::DeleteAllContent(const Object& ns) {
  const std::string name(am::GetName(ns));
  const std::string deleted_at(*am::GetDeletionTimestamp(ns));
  ConditionUpdater conditions;
  std::vector<std::string> errors;
  int64_t estimate = 0;
  ContentTotals totals;

  auto snap = client_.Snapshot();
  for (const auto& r : PreferredResources(*snap)) {
    if (!r.entry->info.namespaced || !SupportsVerbs(*r.entry, {"delete"})) continue;
    bool collection = r.entry->collection_deleter != nullptr;
    GvrResult res = co_await DeleteAllContentForResource(r.gvr, name, collection, deleted_at);
    if (!res.status.ok()) {
      errors.push_back(res.status.message());
      conditions.DeleteContentFailed(res.status.message());
    }
    estimate = std::max(estimate, res.estimate);
    if (res.remaining > 0) {
      totals.gvr_to_remaining[r.gvr.resource + "." + r.gvr.group] = res.remaining;
      for (const auto& [f, n] : res.finalizers) {
        if (n > 0) totals.finalizers_to_remaining[f] += n;
      }
    }
  }
  conditions.ContentTotals(totals);

  // The conditions are written on every pass, so a condition that cleared shows it.
  std::string now = Now();
  auto written = co_await client_.Mutate(
      kNamespaces, "", name, [&conditions, &now](Object& o) -> StatusOr<bool> { return conditions.Apply(o, now); },
      "status");
  if (!written.ok() && !am::IsNotFound(written.status())) {
    LogWarn("namespace controller: couldn't update status conditions",
            {{"namespace", name}, {"error", written.status().message()}});
  }
  if (!errors.empty()) {
    std::string msg = errors.size() == 1 ? errors[0] : "[" + Join(errors, ", ") + "]";
    co_return Outcome{Status(500, "InternalError", msg), estimate};
  }
  co_return Outcome{Status(), estimate};
}

Task<StatusOr<int64_t>> NamespacedContentDeleter::EstimateGracefulTermination(const Gvr& gvr, const std::string& ns,
                                                                              const std::string& deleted_at) {
  int64_t estimate = 0;
  if (gvr.group == "" && gvr.resource == "pods") {
    auto pods = co_await client_.ListAll(gvr, ns, {});
    if (!pods.ok()) co_return pods.TakeStatus();
    for (const auto& pod : pods->items) {
      std::string phase = JsonString(pod, {"status", "phase"});
      if (phase == "Succeeded" || phase == "Failed") continue;
      if (const auto* g = JsonPath(pod, {"spec", "terminationGracePeriodSeconds"}); g && g->is_int64()) {
        estimate = std::max<int64_t>(estimate, g->get_int64());
      }
    }
  }
  // Time already spent since the namespace was deleted counts towards the estimate.
  auto t = am::ParseRfc3339(deleted_at);
  if (t.ok()) {
    auto since = std::chrono::duration_cast<std::chrono::seconds>(clock_.Now() - t->ToTimePoint()).count();
    if (since >= estimate) estimate = 0;
  }
  co_return estimate;
}

Task<Status> NamespacedContentDeleter::DeleteEachItem(const Gvr& gvr, const std::string& ns) {
  auto list = co_await client_.ListAll(gvr, ns, {});
  if (!list.ok()) {
    if (am::IsMethodNotSupported(list.status()) || am::IsNotFound(list.status())) co_return Status();
    co_return list.TakeStatus();
  }
  registry::DeleteOptions opts;
  opts.propagation_policy = "Background";
  for (const auto& item : list->items) {
    auto r = co_await client_.Delete(gvr, ns, std::string(am::GetName(item)), opts);
    if (!r.ok() && !am::IsNotFound(r.status()) && !am::IsMethodNotSupported(r.status())) co_return r.TakeStatus();
  }
  co_return Status();
}

Task<NamespacedContentDeleter::GvrResult> NamespacedContentDeleter::DeleteAllContentForResource(
    const Gvr& gvr, const std::string& ns, bool collection, const std::string& deleted_at) {
  GvrResult out;
  auto estimate = co_await EstimateGracefulTermination(gvr, ns, deleted_at);
  if (!estimate.ok()) {
    out.status = estimate.TakeStatus();
    co_return out;
  }
  out.estimate = *estimate;

  bool deleted = false;
  if (collection) {
    registry::DeleteOptions opts;
    opts.propagation_policy = "Background";
    auto r = co_await client_.DeleteCollection(gvr, ns, opts, {});
    if (r.ok()) {
      deleted = true;
    } else if (!am::IsMethodNotSupported(r.status()) && !am::IsNotFound(r.status())) {
      out.status = r.TakeStatus();
      co_return out;
    }
  }
  if (!deleted) {
    Status st = co_await DeleteEachItem(gvr, ns);
    if (!st.ok()) {
      out.status = std::move(st);
      co_return out;
    }
  }

  // What is left: items held by finalizers (or pods in their grace period).
  auto left = co_await client_.ListAll(gvr, ns, {});
  if (!left.ok()) {
    if (am::IsMethodNotSupported(left.status()) || am::IsNotFound(left.status())) co_return out;
    out.status = left.TakeStatus();
    co_return out;
  }
  out.remaining = static_cast<int>(left->items.size());
  for (const auto& item : left->items) {
    for (const auto& f : am::GetFinalizers(item)) out.finalizers[f]++;
  }
  if (out.remaining == 0 || out.estimate != 0) co_return out;
  if (!out.finalizers.empty()) {
    out.estimate = kFinalizerEstimateSeconds;
    co_return out;
  }
  out.status = Status(500, "InternalError",
                      "unexpected items still remain in namespace: " + ns + " for gvr: " + GoGvr(gvr));
  co_return out;
}

}  // namespace capstan::controllers
