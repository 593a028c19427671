#include "controllers/namespace/conditions.h"

#include <algorithm>
#include <boost/json.hpp>

#include "util/strings.h"

namespace capstan::controllers {

namespace json = boost::json;

namespace {

struct ConditionKind {
  const char* type;
  const char* ok_reason;
  const char* ok_message;
};

// kube's conditionTypes, in order, with their "ok" reason and message.
constexpr ConditionKind kKinds[] = {
    {"NamespaceDeletionDiscoveryFailure", "ResourcesDiscovered", "All resources successfully discovered"},
    {"NamespaceDeletionGroupVersionParsingFailure", "ParsedGroupVersions", "All legacy kube types successfully parsed"},
    {"NamespaceDeletionContentFailure", "ContentDeleted", "All content successfully deleted, may be waiting on finalization"},
    {"NamespaceContentRemaining", "ContentRemoved", "All content successfully removed"},
    {"NamespaceFinalizersRemaining", "ContentHasNoFinalizers", "All content-preserving finalizers finished"},
};

}  // namespace

void ConditionUpdater::DiscoveryFailed(const std::string& message) {
  failures_.push_back({"NamespaceDeletionDiscoveryFailure", "True", "DiscoveryFailed", message});
}

void ConditionUpdater::DeleteContentFailed(const std::string& message) { content_errors_.push_back(message); }

void ConditionUpdater::ContentTotals(const controllers::ContentTotals& totals) {
  if (!totals.gvr_to_remaining.empty()) {
    std::vector<std::string> parts;
    for (const auto& [gvr, n] : totals.gvr_to_remaining) {
      if (n == 0) continue;
      parts.push_back(gvr + " has " + std::to_string(n) + " resource instances");
    }
    std::sort(parts.begin(), parts.end());
    failures_.push_back({"NamespaceContentRemaining", "True", "SomeResourcesRemain",
                         "Some resources are remaining: " + Join(parts, ", ")});
  }
  if (!totals.finalizers_to_remaining.empty()) {
    std::vector<std::string> parts;
    for (const auto& [finalizer, n] : totals.finalizers_to_remaining) {
      if (n == 0) continue;
      parts.push_back(finalizer + " in " + std::to_string(n) + " resource instances");
    }
    std::sort(parts.begin(), parts.end());
    failures_.push_back({"NamespaceFinalizersRemaining", "True", "SomeFinalizersRemain",
                         "Some content in the namespace has finalizers remaining: " + Join(parts, ", ")});
  }
}

std::vector<NamespaceCondition> ConditionUpdater::Conditions() const {
  std::vector<NamespaceCondition> all = failures_;
  bool has_content_failure = std::any_of(all.begin(), all.end(), [](const NamespaceCondition& c) {
    return c.type == "NamespaceDeletionContentFailure";
  });
  if (!has_content_failure && !content_errors_.empty()) {
    std::vector<std::string> msgs = content_errors_;
    std::sort(msgs.begin(), msgs.end());
    all.push_back({"NamespaceDeletionContentFailure", "True", "ContentDeletionFailed",
                   "Failed to delete all resource types, " + std::to_string(msgs.size()) +
                       " remaining: " + Join(msgs, ", ")});
  }
  std::vector<NamespaceCondition> out;
  for (const auto& k : kKinds) {
    auto it = std::find_if(all.begin(), all.end(), [&](const NamespaceCondition& c) { return c.type == k.type; });
    if (it != all.end()) {
      out.push_back(*it);
    } else {
      out.push_back({k.type, "False", k.ok_reason, k.ok_message});
    }
  }
  return out;
}

bool ConditionUpdater::Apply(Object& ns, const std::string& now) const {
  json::value& status = ns["status"];
  if (!status.is_object()) status = json::object();
  json::value& conds = status.get_object()["conditions"];
  if (!conds.is_array()) conds = json::array();
  json::array& arr = conds.get_array();
  bool changed = false;
  for (const auto& c : Conditions()) {
    json::object* old = nullptr;
    for (auto& v : arr) {
      if (v.is_object() && v.get_object().contains("type") && v.get_object()["type"] == c.type.c_str()) {
        old = &v.get_object();
        break;
      }
    }
    auto str = [](const json::object& o, const char* k) {
      const json::value* v = o.if_contains(k);
      return v && v->is_string() ? std::string(v->get_string()) : std::string();
    };
    if (!old) {
      json::object n;
      n["type"] = c.type;
      n["status"] = c.status;
      n["lastTransitionTime"] = now;
      n["reason"] = c.reason;
      n["message"] = c.message;
      arr.push_back(std::move(n));
      changed = true;
      continue;
    }
    if (str(*old, "status") != c.status || str(*old, "message") != c.message || str(*old, "reason") != c.reason) {
      if (str(*old, "status") != c.status) (*old)["lastTransitionTime"] = now;
      (*old)["status"] = c.status;
      (*old)["reason"] = c.reason;
      (*old)["message"] = c.message;
      changed = true;
    }
  }
  return changed;
}

}  // namespace capstan::controllers
