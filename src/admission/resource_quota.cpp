#include "admission/resource_quota.h"

#include <boost/json.hpp>
#include <charconv>
#include <set>

#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"
#include "util/strings.h"

namespace capstan::admission {

namespace json = boost::json;
namespace am = capstan::apimachinery;
using quota::ResourceList;

namespace {

const json::value* StatusField(const registry::Object& q, std::string_view key) {
  const json::value* st = q.if_contains("status");
  return st && st->is_object() ? st->get_object().if_contains(key) : nullptr;
}

ResourceList Hard(const registry::Object& q) { return quota::ResourceListFromJson(StatusField(q, "hard")); }
ResourceList Used(const registry::Object& q) { return quota::ResourceListFromJson(StatusField(q, "used")); }

// kube's hasUsageStats: every hard resource of interest has a used value.
bool HasUsageStats(const registry::Object& q, const std::vector<std::string>& interesting) {
  std::set<std::string> want(interesting.begin(), interesting.end());
  const json::value* used = StatusField(q, "used");
  for (const auto& [name, v] : Hard(q)) {
    if (!want.count(name)) continue;
    if (!used || !used->is_object() || !used->get_object().contains(name)) return false;
  }
  return true;
}

std::optional<uint64_t> ResourceVersionOf(const registry::Object& o) {
  std::string rv(am::GetResourceVersion(o));
  uint64_t v = 0;
  auto r = std::from_chars(rv.data(), rv.data() + rv.size(), v);
  if (rv.empty() || r.ec != std::errc() || r.ptr != rv.data() + rv.size()) return std::nullopt;
  return v;
}

bool IsNamespaceCreate(const Attributes& a) {
  return a.operation == "CREATE" && a.resource && a.resource->group.empty() && a.resource->resource == "namespaces";
}

}  // namespace

StatusOr<std::vector<registry::Object>> CheckQuotaRequest(const std::vector<registry::Object>& quotas,
                                                           const Attributes& a, const quota::Evaluator& e,
                                                           quota::Clock::time_point now,
                                                           const std::vector<quota::LimitedResource>& limited) {
  if (!a.object || !e.Handles(a.operation, a.subresource, a.object, a.old_object)) return quotas;
  const json::object& obj = *a.object;
  // The configuration's limited scopes the object matches, and its usage names that must be covered.
  std::vector<quota::ScopeRequirement> limited_scopes;
  std::set<std::string> limited_names;
  for (const auto& lr : limited) {
    auto m = e.MatchingScopes(obj, lr.match_scopes);
    limited_scopes.insert(limited_scopes.end(), m.begin(), m.end());
    if (!a.resource || lr.api_group != a.resource->group || lr.resource != a.resource->resource) continue;
    for (const auto& [name, v] : e.Usage(obj, now)) {
      if (v.Sign() <= 0) continue;
      for (const auto& part : lr.match_contains) {
        if (name.find(part) != std::string::npos) {
          limited_names.insert(name);
          break;
        }
      }
    }
  }
  std::vector<size_t> interesting;
  std::set<std::string> restricted_names;
  std::vector<quota::ScopeRequirement> restricted_scopes;
  for (size_t i = 0; i < quotas.size(); ++i) {
    const registry::Object& q = quotas[i];
    auto scopes = e.MatchingScopes(obj, quota::ScopeRequirementsOf(q));
    restricted_scopes.insert(restricted_scopes.end(), scopes.begin(), scopes.end());
    if (!e.Matches(q, obj)) continue;
    std::vector<std::string> restricted = e.MatchingResources(quota::Names(Hard(q)));
    std::string name(am::GetName(q));
    if (auto err = e.Constraints(restricted, obj)) return ForbiddenFor(a, "failed quota: " + name + ": " + *err);
    if (!HasUsageStats(q, restricted)) {
      return ForbiddenFor(a, "status unknown for quota: " + name + ", resources: " + quota::PrettyPrintNames(restricted));
    }
    interesting.push_back(i);
    restricted_names.insert(restricted.begin(), restricted.end());
  }
  ResourceList input = e.Usage(obj, now);
  if (auto neg = quota::IsNegative(input); !neg.empty()) {
    return ForbiddenFor(a, "quota usage is negative for resource(s): " + quota::PrettyPrintNames(neg));
  }
  std::map<size_t, ResourceList> delta;
  for (size_t i : interesting) delta[i] = input;
  ResourceList unquoted;  // the usage when no quota matches (kube's deltaUsageWhenNoInterestingQuota)
  if (a.operation == "CREATE" && interesting.empty()) unquoted = input;
  if (a.operation == "UPDATE") {
    if (!a.old_object) {
      return ForbiddenFor(a, "unable to get previous usage since prior version of object was not found");
    }
    if (!am::GetResourceVersion(*a.old_object).empty()) {
      ResourceList d = quota::SubtractNonNegative(input, e.Usage(*a.old_object, now));
      if (interesting.empty()) unquoted = d;
      for (size_t i : interesting) {
        if (e.Matches(quotas[i], *a.old_object)) delta[i] = d;
      }
    } else if (interesting.empty()) {
      unquoted = input;
    }
  }
  for (auto it = delta.begin(); it != delta.end();) {
    it->second = quota::RemoveZeros(it->second);
    it = it->second.empty() ? delta.erase(it) : std::next(it);
  }
  if (interesting.empty() ? quota::RemoveZeros(unquoted).empty() : delta.empty()) return quotas;

  std::vector<std::string> uncovered_names;
  for (const auto& n : limited_names) {
    if (!restricted_names.count(n)) uncovered_names.push_back(n);
  }
  if (!uncovered_names.empty()) {
    return ForbiddenFor(a, "insufficient quota to consume: " + Join(uncovered_names, ","));
  }
  std::vector<quota::ScopeRequirement> uncovered_scopes;
  for (const auto& s : limited_scopes) {
    bool covered = false;
    for (const auto& r : restricted_scopes) covered = covered || r.scope_name == s.scope_name;
    if (!covered) uncovered_scopes.push_back(s);
  }
  if (!uncovered_scopes.empty() && e.Resource() == "pods" && e.Group().empty()) {
    // kube returns a plain error here, which the API answers as a 500 with reason Unknown.
    return Status(500, "", "insufficient quota to match these scopes: " + quota::FormatScopes(uncovered_scopes));
  }
  if (interesting.empty()) return quotas;

  std::vector<registry::Object> out = quotas;
  for (size_t i : interesting) {
    auto d = delta.find(i);
    if (d == delta.end()) continue;
    ResourceList hard = Hard(out[i]), used = Used(out[i]);
    ResourceList requested = quota::Mask(d->second, quota::Names(hard));
    ResourceList next = quota::Add(used, requested);
    if (a.subresource != "status") {
      std::vector<std::string> exceeded;
      if (!quota::LessThanOrEqual(quota::Mask(next, quota::Names(requested)), hard, &exceeded)) {
        return ForbiddenFor(a, "exceeded quota: " + std::string(am::GetName(out[i])) +
                                   ", requested: " + quota::PrettyPrint(quota::Mask(requested, exceeded)) +
                                   ", used: " + quota::PrettyPrint(quota::Mask(used, exceeded)) +
                                   ", limited: " + quota::PrettyPrint(quota::Mask(hard, exceeded)));
      }
    }
    json::value& st = out[i]["status"];
    if (!st.is_object()) st = json::object();
    st.get_object()["used"] = quota::ResourceListToJson(next);
  }
  return out;
}

void ResourceQuotaPlugin::Remember(const std::string& ns, const registry::Object& q) {
  std::lock_guard<std::mutex> l(mu_);
  written_[ns][std::string(am::GetName(q))] = q;
}

Task<StatusOr<std::vector<registry::Object>>> ResourceQuotaPlugin::Quotas(const std::string& ns) {
  auto listed = co_await list_("", "v1", "resourcequotas", ns);
  if (!listed.ok()) co_return am::NewInternalError(listed.status().message());
  std::vector<registry::Object> out = std::move(*listed);
  std::lock_guard<std::mutex> l(mu_);
  auto w = written_.find(ns);
  if (w == written_.end()) co_return out;
  std::set<std::string> present;
  for (auto& q : out) {
    std::string name(am::GetName(q));
    present.insert(name);
    auto c = w->second.find(name);
    if (c == w->second.end()) continue;
    auto listed_rv = ResourceVersionOf(q), cached_rv = ResourceVersionOf(c->second);
    if (listed_rv && cached_rv && *cached_rv > *listed_rv && am::GetUid(q) == am::GetUid(c->second)) {
      q = c->second;  // the cache has not seen our write yet
    } else {
      w->second.erase(c);
    }
  }
  for (auto it = w->second.begin(); it != w->second.end();) {
    it = present.count(it->first) ? std::next(it) : w->second.erase(it);
  }
  if (w->second.empty()) written_.erase(w);
  co_return out;
}

Task<void> ResourceQuotaPlugin::CheckQuotas(const std::string& ns, std::vector<registry::Object> quotas,
                                            Batch& batch, int retries) {
  const std::vector<registry::Object> original = quotas;
  bool changed = false;
  auto now = quota::Clock::now();
  for (auto& w : batch) {
    if (w->result) continue;  // decided in an earlier round
    auto next = CheckQuotaRequest(quotas, *w->attrs, *w->evaluator, now, config_.limited_resources);
    if (!next.ok()) {
      w->result = next.status();
      continue;
    }
    bool charged = false;
    for (size_t i = 0; i < quotas.size() && !charged; ++i) {
      charged = !quota::Equals(Used(quotas[i]), Used((*next)[i]));
    }
    if (w->attrs->dry_run || !charged) {
      w->result = Status();
      continue;
    }
    changed = true;
    quotas = std::move(*next);
  }
  if (!changed) co_return;
  std::vector<std::string> failed;
  Status last;
  for (size_t i = 0; i < quotas.size(); ++i) {
    if (quota::Equals(Used(original[i]), Used(quotas[i]))) continue;
    auto r = co_await update_("", "v1", "resourcequotas", "status", ns, quotas[i]);
    if (r.ok()) {
      Remember(ns, *r);
    } else {
      failed.emplace_back(am::GetName(quotas[i]));
      last = r.status();
    }
  }
  auto settle = [&](const Status& st) {
    for (auto& w : batch) {
      if (!w->result) w->result = st;
    }
  };
  if (failed.empty() || retries <= 0) {
    settle(failed.empty() ? Status() : last);
    co_return;
  }
  // Read the quotas whose write failed again and charge the undecided requests to them again.
  std::vector<registry::Object> again;
  for (const auto& name : failed) {
    auto q = co_await get_("", "v1", "resourcequotas", ns, name);
    if (q.ok()) {
      again.push_back(std::move(*q));
    } else if (q.status().code() != 404) {
      settle(last);
      co_return;
    }
  }
  co_await CheckQuotas(ns, std::move(again), batch, retries - 1);
  settle(Status());
}

Task<void> ResourceQuotaPlugin::CheckBatch(const std::string& ns, Batch& batch) {
  auto quotas = co_await Quotas(ns);
  if (!quotas.ok()) {
    for (auto& w : batch) w->result = quotas.status();
    co_return;
  }
  if (!quotas->empty() || !config_.limited_resources.empty()) co_await CheckQuotas(ns, std::move(*quotas), batch, 3);
  for (auto& w : batch) {
    if (!w->result) w->result = Status();
  }
}

Task<void> ResourceQuotaPlugin::Work(std::string ns) {
  for (;;) {
    Batch batch;
    {
      std::lock_guard<std::mutex> l(mu_);
      auto it = queued_.find(ns);
      if (it->second.empty()) {
        queued_.erase(it);  // the next request starts a new worker
        co_return;
      }
      batch.swap(it->second);
    }
    co_await CheckBatch(ns, batch);
    for (auto& w : batch) w->done(std::move(*w->result));  // the request resumes on its own executor
  }
}

Task<Status> ResourceQuotaPlugin::Validate(const Attributes& a) {
  if (a.namespace_.empty() || IsNamespaceCreate(a) || !a.resource) co_return Status();
  if (quota::IgnoredByQuota(a.resource->group, a.resource->resource)) co_return Status();
  auto e = quota::EvaluatorFor(a.resource->group, a.resource->resource);
  if (!a.object || !e->Handles(a.operation, a.subresource, a.object, a.old_object)) co_return Status();
  {
    // Most namespaces have no quota: answer them without queueing.
    auto any = co_await list_("", "v1", "resourcequotas", a.namespace_);
    if (any.ok() && any->empty() && config_.limited_resources.empty()) co_return Status();
  }
  co_return co_await Await<Status>([this, &a, e](std::function<void(Status)> done) {
    auto w = std::make_shared<Waiter>();
    w->attrs = &a;
    w->evaluator = e;
    w->done = std::move(done);
    bool start;
    {
      std::lock_guard<std::mutex> l(mu_);
      auto [it, fresh] = queued_.try_emplace(a.namespace_);
      it->second.push_back(std::move(w));
      start = fresh;
    }
    if (start) Spawn(Work(a.namespace_));
  });
}

StatusOr<std::unique_ptr<Plugin>> NewResourceQuotaPlugin(const PluginDeps& deps) {
  std::optional<json::value> raw;
  if (deps.config) {
    auto c = deps.config->ConfigFor("ResourceQuota");
    if (!c.ok()) return c.status();
    raw = std::move(*c);
  }
  auto config = quota::ParseQuotaConfiguration(raw);
  if (!config.ok()) return config.status();
  return std::unique_ptr<Plugin>(
      std::make_unique<ResourceQuotaPlugin>(deps.get, deps.list, deps.update, std::move(*config)));
}

}  // namespace capstan::admission
