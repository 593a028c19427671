#include "cmd/authorization/bootstrap_reconcile.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <boost/json.hpp>

#include "auth/authz/bootstrap_policy.h"
#include "auth/authz/rbac_policy.h"
#include "controllers/api_client.h"
#include "util/log.h"

namespace capstan::authz {

namespace json = boost::json;
namespace ctl = capstan::controllers;

namespace {

UserInfo ApiServerUser() {
  UserInfo u;
  u.name = "system:apiserver";
  u.groups = {kSystemPrivilegedGroup, kAllAuthenticated};
  return u;
}

json::object& Metadata(json::object& o) {
  if (!o["metadata"].is_object()) o["metadata"] = json::object{};
  return o["metadata"].get_object();
}

bool AutoUpdateDisabled(const json::object& o) {
  const auto* md = o.if_contains("metadata");
  if (!md || !md->is_object()) return false;
  const auto* ann = md->get_object().if_contains("annotations");
  if (!ann || !ann->is_object()) return false;
  const auto* v = ann->get_object().if_contains(kAutoUpdateAnnotation);
  return v && v->is_string() && v->get_string() == "false";
}

// Adds the expected labels and annotations the object lacks; true when something changed.
bool MergeMeta(json::object& existing, const json::object& expected) {
  bool changed = false;
  const auto& emd = expected.at("metadata").get_object();
  auto& md = Metadata(existing);
  for (const char* field : {"labels", "annotations"}) {
    const auto* want = emd.if_contains(field);
    if (!want || !want->is_object()) continue;
    if (!md[field].is_object()) md[field] = json::object{};
    auto& have = md[field].get_object();
    for (const auto& [k, v] : want->get_object()) {
      if (!have.contains(k)) {
        have[k] = v;
        changed = true;
      }
    }
  }
  return changed;
}

bool MergeRole(json::object& existing, const json::object& expected) {
  bool changed = MergeMeta(existing, expected);
  std::vector<PolicyRule> have = PolicyRulesFromJson(existing.if_contains("rules"));
  std::vector<PolicyRule> want = PolicyRulesFromJson(expected.if_contains("rules"));
  std::vector<PolicyRule> missing;
  if (!Covers(have, want, &missing)) {
    for (auto& m : missing) have.push_back(std::move(m));
    existing["rules"] = PolicyRulesToJson(have);
    changed = true;
  }
  if (const auto* want_agg = expected.if_contains("aggregationRule"); want_agg && want_agg->is_object()) {
    if (!existing["aggregationRule"].is_object()) existing["aggregationRule"] = json::object{};
    auto& agg = existing["aggregationRule"].get_object();
    if (!agg["clusterRoleSelectors"].is_array()) agg["clusterRoleSelectors"] = json::array{};
    auto& sels = agg["clusterRoleSelectors"].get_array();
    for (const auto& s : want_agg->get_object().at("clusterRoleSelectors").get_array()) {
      if (std::find(sels.begin(), sels.end(), s) == sels.end()) {
        sels.push_back(s);
        changed = true;
      }
    }
  }
  return changed;
}

bool MergeBinding(json::object& existing, const json::object& expected) {
  bool changed = MergeMeta(existing, expected);
  const auto* want = expected.if_contains("subjects");
  if (want && want->is_array()) {
    if (!existing["subjects"].is_array()) existing["subjects"] = json::array{};
    auto& have = existing["subjects"].get_array();
    for (const auto& s : want->get_array()) {
      json::value one = json::array{s};
      auto parsed = SubjectsFromJson(&one);
      if (parsed.empty()) continue;
      const Subject& ws = parsed.front();
      bool found = false;
      for (const auto& h : SubjectsFromJson(&existing["subjects"])) {
        if (h == ws) found = true;
      }
      if (!found) {
        have.push_back(s);
        changed = true;
      }
    }
  }
  return changed;
}

Status Reconcile(ctl::ApiClient& client, const ctl::Gvr& gvr, const json::object& expected, bool binding,
                 ReconcileReport& report) {
  const auto& md = expected.at("metadata").get_object();
  std::string ns = md.contains("namespace") ? std::string(md.at("namespace").get_string()) : "";
  std::string name(md.at("name").get_string());
  auto current = SyncWait(client.Get(gvr, ns, name));
  if (!current.ok()) {
    if (current.status().code() != 404) return current.status();
    auto created = SyncWait(client.Create(gvr, ns, expected));
    if (!created.ok() && created.status().reason() != "AlreadyExists") return created.status();
    report.created++;
    return Status();
  }
  if (AutoUpdateDisabled(*current)) return Status();
  if (binding) {
    RoleRef have = RoleRefFromJson(current->if_contains("roleRef") && current->at("roleRef").is_object()
                                       ? &current->at("roleRef").get_object()
                                       : nullptr);
    RoleRef want = RoleRefFromJson(&expected.at("roleRef").get_object());
    if (!(have == want)) {
      registry::DeleteOptions opts;
      auto del = SyncWait(client.Delete(gvr, ns, name, opts));
      if (!del.ok() && del.status().code() != 404) return del.status();
      json::object fresh = expected;
      MergeBinding(fresh, *current);  // keep the subjects it had
      auto created = SyncWait(client.Create(gvr, ns, std::move(fresh)));
      if (!created.ok()) return created.status();
      report.recreated++;
      return Status();
    }
  }
  bool changed = false;
  auto updated = SyncWait(client.Mutate(gvr, ns, name, [&](ctl::Object& obj) -> StatusOr<bool> {
    changed = binding ? MergeBinding(obj, expected) : MergeRole(obj, expected);
    return changed;
  }));
  if (!updated.ok()) return updated.status();
  if (changed) report.updated++;
  return Status();
}

}  // namespace

StatusOr<ReconcileReport> ReconcileBootstrapPolicy(const endpoints::ApiRegistry& registry) {
  ctl::ApiClient client(registry, ApiServerUser(), "kube-apiserver");
  const auto& p = DefaultBootstrapPolicy();
  struct Item {
    ctl::Gvr gvr;
    const json::object* obj;
    bool binding;
  };
  std::vector<Item> items;
  const std::string g = kRbacGroup;
  for (const auto& o : p.cluster_roles) items.push_back({{g, "v1", "clusterroles"}, &o, false});
  for (const auto& o : p.cluster_role_bindings) items.push_back({{g, "v1", "clusterrolebindings"}, &o, true});
  for (const auto& o : p.roles) items.push_back({{g, "v1", "roles"}, &o, false});
  for (const auto& o : p.role_bindings) items.push_back({{g, "v1", "rolebindings"}, &o, true});
  // The objects are independent (a binding may name a role not created yet), so several threads
  // reconcile them at once: each write waits for a commit, and a cold start writes them all.
  std::atomic<size_t> next{0};
  std::mutex mu;
  ReconcileReport report;
  Status first_error;
  auto worker = [&] {
    for (size_t i = next++; i < items.size(); i = next++) {
      ReconcileReport mine;
      Status st = Reconcile(client, items[i].gvr, *items[i].obj, items[i].binding, mine);
      std::lock_guard lock(mu);
      report.created += mine.created;
      report.updated += mine.updated;
      report.recreated += mine.recreated;
      if (!st.ok() && first_error.ok()) {
        first_error = Status(st.code(), st.reason(),
                             "unable to reconcile " + items[i].gvr.resource + " " +
                                 std::string(items[i].obj->at("metadata").get_object().at("name").get_string()) + ": " +
                                 st.message());
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  if (!first_error.ok()) return first_error;
  return report;
}

}  // namespace capstan::authz
