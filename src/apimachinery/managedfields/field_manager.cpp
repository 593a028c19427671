// apimachinery/managedfields/field_manager.cpp: Update and Apply bookkeeping of managedFields.
#include "apimachinery/managedfields/field_manager.h"

#include <boost/json.hpp>
#include <algorithm>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "apimachinery/go_normalize.h"
#include "apimachinery/json_parse.h"
#include "apimachinery/json_write.h"

namespace capstan::apimachinery::managedfields {

namespace json = boost::json;

namespace {

const json::value* ManagedFieldsOf(const json::object& o) {
  const auto* md = o.if_contains("metadata");
  if (!md || !md->is_object()) return nullptr;
  return md->get_object().if_contains("managedFields");
}

void SetManagedFields(json::object& o, const Managers& m) {
  auto* md = o.if_contains("metadata");
  if (!md || !md->is_object()) {
    if (m.empty()) return;
    md = &(o["metadata"] = json::object());
  }
  if (m.empty()) {
    md->get_object().erase("managedFields");
  } else {
    md->get_object()["managedFields"] = EncodeManagedFields(m);
  }
}

// apiVersion, kind and the metadata the server sets are never owned (kube's stripped fields).
const FieldSet& StripSet() {
  static const FieldSet s = [] {
    FieldSet f;
    auto field = [](const char* n) { return PathElement::Field(n); };
    f.Insert({field("apiVersion")});
    f.Insert({field("kind")});
    f.Insert({field("metadata")});
    for (const char* n : {"name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName", "generation",
                          "managedFields", "resourceVersion"}) {
      f.Insert({field("metadata"), field(n)});
    }
    return f;
  }();
  return s;
}

// Drops what this endpoint cannot own: status on the main resource, all but status (and metadata)
// on the status subresource.
FieldSet Filter(const FieldSet& s, ResetScope r) {
  if (r == ResetScope::kNone) return s;
  FieldSet out;
  for (const auto& [e, c] : s.children) {
    bool is_status = e.kind == PathElement::Kind::kField && e.name == "status";
    bool is_meta = e.kind == PathElement::Kind::kField && e.name == "metadata";
    if (r == ResetScope::kStatus && is_status) continue;
    if (r == ResetScope::kAllButStatus && !is_status && !is_meta) continue;
    out.children.emplace(e, c);
  }
  return out;
}

Comparison FilteredCompare(const FieldManagerScope& scope, const json::object& lhs, const json::object& rhs) {
  Comparison c = CompareObjects(&lhs, &rhs, scope.schema);
  if (scope.reset != ResetScope::kNone) {
    c.added = Filter(c.added, scope.reset);
    c.modified = Filter(c.modified, scope.reset);
    c.removed = Filter(c.removed, scope.reset);
  }
  return c;
}

const json::object& EmptyObject(const FieldManagerScope& scope) {
  static const json::object* none = new json::object();
  return scope.empty_object ? *scope.empty_object : *none;
}

// Others lose what changed (kube's forced update) and what was removed; empty managers go.
// With `conflicts`, collects instead the fields others own that changed.
void TakeFrom(Managers& m, const ManagerId* self, const Comparison& c,
              std::vector<std::pair<ManagerId, Path>>* conflicts) {
  FieldSet changed = c.modified.Union(c.added);
  for (auto& [mid, e] : m) {
    const ManagerId& id = mid;
    if (self && id == *self) continue;
    FieldSet lost = e.fields.Intersection(changed);
    if (conflicts) {
      lost.Iterate([&](const Path& p) { conflicts->emplace_back(id, p); });
      continue;
    }
    if (!lost.Empty()) e.fields = e.fields.Difference(lost);
    if (!c.removed.Empty()) e.fields = e.fields.Difference(c.removed);
  }
}

void DropEmpty(Managers& m) {
  for (auto it = m.begin(); it != m.end();) {
    if (it->second.fields.Empty()) {
      it = m.erase(it);
    } else {
      ++it;
    }
  }
}

// kube's cap on Update managers: the oldest merge into one "ancient-changes" entry per apiVersion.
void CapUpdateManagers(Managers& m) {
  std::vector<ManagerId> updaters;
  for (const auto& [id, e] : m) {
    if (id.operation == "Update") updaters.push_back(id);
  }
  if (updaters.size() <= kMaxUpdateManagers) return;
  std::stable_sort(updaters.begin(), updaters.end(), [&](const ManagerId& a, const ManagerId& b) {
    std::string ta = m[a].time.value_or(""), tb = m[b].time.value_or("");
    if (ta != tb) return ta < tb;
    return a < b;
  });
  size_t length = updaters.size();
  std::map<std::string, ManagerId> first_of_version;
  for (size_t i = 0; i < updaters.size() && length > kMaxUpdateManagers; ++i) {
    const ManagerId& id = updaters[i];
    ManagedEntry entry = m[id];
    ManagerId bucket{"ancient-changes", "Update", entry.api_version, ""};
    auto first = first_of_version.find(entry.api_version);
    if (first == first_of_version.end()) {
      first_of_version.emplace(entry.api_version, id);
      continue;
    }
    if (!m.count(bucket)) {
      ManagedEntry moved = m[first->second];
      m.erase(first->second);
      m[bucket] = std::move(moved);
    }
    ManagedEntry& b = m[bucket];
    b.fields = entry.fields.Union(b.fields);
    b.time = entry.time;
    m.erase(id);
    --length;
  }
}

// One Update by `manager` from `lhs` to `rhs` on `m` (kube's managedFieldsUpdater over the updater).
void UpdateManagers(const FieldManagerScope& scope, Managers& m, const json::object& lhs, const json::object& rhs,
                    const std::string& manager, const std::string& now) {
  Comparison c = FilteredCompare(scope, lhs, rhs);
  TakeFrom(m, nullptr, c, nullptr);
  FieldSet mine = c.modified.Union(c.added).Difference(StripSet());
  if (!mine.Empty()) {
    ManagerId id{manager, "Update", scope.api_version, scope.subresource};
    ManagedEntry& e = m[id];
    e.fields = mine.Union(e.fields);
    e.api_version = scope.api_version;
    e.time = now;
  }
  DropEmpty(m);
  CapUpdateManagers(m);
}

void AddGoNulls(json::value& v, const Schema* s, int depth) {
  if (!v.is_object() || !s || depth > 64) return;
  const Schema& d = s->Deref();
  for (const auto& [name, ps] : d.properties) {
    if (auto* cur = v.get_object().if_contains(name)) {
      AddGoNulls(*cur, ps, depth + 1);
    } else if (ps->proto && !ps->proto->omitempty) {
      v.get_object()[name] = nullptr;
    }
  }
}

constexpr std::string_view kLastApplied = "kubectl.kubernetes.io/last-applied-configuration";

const json::string* LastAppliedOf(const json::object& o) {
  const auto* md = o.if_contains("metadata");
  if (!md || !md->is_object()) return nullptr;
  const auto* an = md->get_object().if_contains("annotations");
  if (!an || !an->is_object()) return nullptr;
  const auto* v = an->get_object().if_contains(kLastApplied);
  return v && v->is_string() && !v->get_string().empty() ? &v->get_string() : nullptr;
}

// The fields a client-side apply's annotation still describes truthfully: kubectl's server-side apply
// may take them from kubectl-client-side-apply without a conflict (kube's lastAppliedManager).
std::optional<FieldSet> AllowedFromLastApplied(const FieldManagerScope& scope, const json::object& live) {
  const json::string* text = LastAppliedOf(live);
  if (!text) return std::nullopt;
  auto parsed = ParseJsonValue(std::string_view(*text));
  if (!parsed.ok() || !parsed->is_object()) return std::nullopt;
  const auto* av = parsed->get_object().if_contains("apiVersion");
  if (!av || !av->is_string() || av->get_string() != scope.api_version) return std::nullopt;
  FieldSet set = ToFieldSet(*parsed, scope.schema);
  Comparison c = CompareObjects(&parsed->get_object(), &live, scope.schema);
  return set.Difference(c.modified).Difference(c.added).Difference(c.removed);
}

json::value SortedKeys(const json::value& v) {
  if (v.is_object()) {
    std::vector<std::pair<std::string, const json::value*>> kv;
    for (const auto& e : v.get_object()) kv.emplace_back(std::string(e.key()), &e.value());
    std::sort(kv.begin(), kv.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    json::object out;
    for (const auto& [k, x] : kv) out.emplace(k, SortedKeys(*x));
    return out;
  }
  if (v.is_array()) {
    json::array out;
    for (const auto& x : v.get_array()) out.push_back(SortedKeys(x));
    return out;
  }
  return v;
}

// kubectl's server-side apply keeps a client-side apply annotation in step (kube's
// lastAppliedUpdater): the annotation becomes the applied configuration.
void SyncLastApplied(json::object& out, const json::object& config) {
  if (!LastAppliedOf(out)) return;
  json::value c = config;
  if (auto* md = c.get_object().if_contains("metadata"); md && md->is_object()) {
    if (auto* an = md->get_object().if_contains("annotations"); an && an->is_object()) {
      an->get_object().erase(kLastApplied);
    }
  }
  out["metadata"].get_object()["annotations"].get_object()[kLastApplied] = ToJson(SortedKeys(c)) + "\n";
}

}  // namespace

const json::object& GoZeroObject(const Schema* schema) {
  static std::mutex mu;
  static auto* cache = new std::unordered_map<const Schema*, std::unique_ptr<json::object>>();
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = (*cache)[schema];
  if (!slot) {
    json::value v = json::object();
    if (schema) {
      NormalizeAsGo(v, schema);
      AddGoNulls(v, schema, 0);
    }
    slot = std::make_unique<json::object>(std::move(v.get_object()));
  }
  return *slot;
}

Status ConflictError(const std::vector<std::pair<ManagerId, Path>>& conflicts) {
  std::string message;
  if (conflicts.size() == 1) {
    message = "Apply failed with 1 conflict: conflict with " + DescribeManager(conflicts[0].first) + ": " +
              PathToString(conflicts[0].second);
  } else {
    // Grouped by manager identifier, in order.
    std::map<std::string, std::pair<ManagerId, std::vector<std::string>>> by;
    for (const auto& [id, p] : conflicts) {
      auto& slot = by[id.Identifier()];
      slot.first = id;
      slot.second.push_back(PathToString(p));
    }
    std::string lines;
    for (const auto& [key, v] : by) {
      if (!lines.empty()) lines += "\n";
      lines += "conflicts with " + DescribeManager(v.first) + ":";
      for (const auto& p : v.second) lines += "\n- " + p;
    }
    message = "Apply failed with " + std::to_string(conflicts.size()) + " conflicts: " + lines;
  }
  Status st(409, "Conflict", message);
  StatusDetails d;
  for (const auto& [id, p] : conflicts) {
    d.causes.push_back({"FieldManagerConflict", "conflict with " + DescribeManager(id), PathToString(p)});
  }
  st.WithDetails(std::move(d));
  return st;
}

void RecordUpdate(const FieldManagerScope& scope, const json::object* live, json::object& obj,
                  const std::string& manager, const std::string& now) {
  const json::value* requested = ManagedFieldsOf(obj);
  Managers m;
  auto from_live = [&] {
    if (!live) return Managers();
    auto d = DecodeManagedFields(ManagedFieldsOf(*live));
    return d.ok() ? std::move(*d) : Managers();
  };
  if (manager.empty()) {
    // Writes without a manager (in-process, or an apply that did its own bookkeeping) keep the
    // ownership they carry, or else the stored one.
    auto d = DecodeManagedFields(requested);
    m = d.ok() && !d->empty() ? std::move(*d) : from_live();
    SetManagedFields(obj, m);
    return;
  }
  if (!scope.subresource.empty()) {
    m = from_live();
  } else if (IsResetManagedFields(requested)) {
    m = Managers();
  } else {
    auto d = DecodeManagedFields(requested);
    if (d.ok() && !d->empty()) {
      m = std::move(*d);
    } else {
      m = from_live();
    }
  }
  // Objects that were never tracked stay so until an apply (kube's skip of non-applied objects).
  if (live && m.empty()) {
    SetManagedFields(obj, m);
    return;
  }
  UpdateManagers(scope, m, live ? *live : EmptyObject(scope), obj, manager, now);
  SetManagedFields(obj, m);
}

StatusOr<json::object> Apply(const FieldManagerScope& scope, const json::object* live, const json::object& config,
                             const std::string& manager, bool force, const std::string& now) {
  const json::object& empty = EmptyObject(scope);
  const json::object& live_o = live ? *live : empty;
  Managers m;
  if (live) {
    auto d = DecodeManagedFields(ManagedFieldsOf(*live));
    if (!d.ok()) return Status(500, "InternalError", "failed to decode managed fields: " + d.status().message());
    m = std::move(*d);
    if (m.empty()) {
      // What the object holds before its first apply belongs to "before-first-apply".
      UpdateManagers(scope, m, empty, *live, "before-first-apply", now);
    }
  }
  json::value config_v(config);
  FieldSet applied = Filter(ToFieldSet(config_v, scope.schema), scope.reset).Difference(StripSet());
  ManagerId self{manager, "Apply", "", scope.subresource};
  std::optional<FieldSet> last;
  std::optional<std::string> last_time;
  if (auto it = m.find(self); it != m.end()) {
    last = std::move(it->second.fields);
    last_time = it->second.time;
  }
  m[self] = ManagedEntry{std::move(applied), scope.api_version, last_time};

  json::value merged(live_o);
  MergeInto(merged, config_v, scope.schema);
  if (!merged.is_object()) return Status(400, "BadRequest", "the apply configuration is not an object");
  if (last && !last->Empty()) {
    std::vector<const FieldSet*> owners;
    for (const auto& [id, e] : m) owners.push_back(&e.fields);
    PruneUnowned(merged, *last, owners, scope.schema);
  }
  Comparison c = FilteredCompare(scope, live_o, merged.get_object());
  if (!force) {
    std::vector<std::pair<ManagerId, Path>> conflicts;
    TakeFrom(m, &self, c, &conflicts);
    if (!conflicts.empty() && manager == "kubectl" && live) {
      // Conflicts over fields a client-side apply's annotation still describes are no conflicts
      // for kubectl itself.
      if (auto allowed = AllowedFromLastApplied(scope, *live)) {
        std::erase_if(conflicts, [&](const auto& cf) { return allowed->Has(cf.second); });
      }
    }
    if (!conflicts.empty()) return ConflictError(conflicts);
  }
  TakeFrom(m, &self, c, nullptr);
  DropEmpty(m);
  if (!c.IsSame() && m.count(self)) m[self].time = now;
  json::object out = std::move(merged.get_object());
  if (manager == "kubectl") SyncLastApplied(out, config);
  SetManagedFields(out, m);
  return out;
}

}  // namespace capstan::apimachinery::managedfields
