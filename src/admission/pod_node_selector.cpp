#include "admission/pod_node_selector.h"

#include <boost/json.hpp>

#include "admission/builtin_plugins.h"
#include "admission/default_toleration_seconds.h"
#include "admission/plugin_config_decode.h"
#include "apimachinery/errors.h"
#include "apimachinery/field_errors.h"
#include "apimachinery/validation.h"
#include "util/strings.h"

namespace capstan::admission {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

constexpr char kNodeSelectorAnnotation[] = "scheduler.alpha.kubernetes.io/node-selector";
constexpr char kClusterDefault[] = "clusterDefaultNodeSelector";

// labels.Conflicts: a key both sets have, with different values.
bool Conflicts(const LabelSet& a, const LabelSet& b) {
  for (const auto& [k, v] : a) {
    if (auto it = b.find(k); it != b.end() && it->second != v) return true;
  }
  return false;
}

// An empty superset allows everything.
bool IsSubset(const LabelSet& sub, const LabelSet& super) {
  if (super.empty()) return true;
  for (const auto& [k, v] : sub) {
    auto it = super.find(k);
    if (it == super.end() || it->second != v) return false;
  }
  return true;
}

bool IsPodWithObject(const Attributes& a) { return IsPod(a) && a.object; }

LabelSet PodNodeSelectorOf(const json::object& pod) {
  LabelSet out;
  const json::value* spec = pod.if_contains("spec");
  const json::value* sel = spec && spec->is_object() ? spec->get_object().if_contains("nodeSelector") : nullptr;
  if (!sel || !sel->is_object()) return out;
  for (const auto& kv : sel->get_object()) {
    out[std::string(kv.key())] = kv.value().is_string() ? std::string(kv.value().get_string()) : std::string();
  }
  return out;
}

std::string PodName(const json::object& pod) {
  const json::value* meta = pod.if_contains("metadata");
  const json::value* name = meta && meta->is_object() ? meta->get_object().if_contains("name") : nullptr;
  return name && name->is_string() ? std::string(name->get_string()) : std::string();
}

Status PodForbidden(const json::object& pod, const char* reason) {
  return am::NewForbidden(am::GroupResource{"", "pods"}, PodName(pod), reason);
}

}  // namespace

StatusOr<LabelSet> ConvertSelectorToLabelsMap(std::string_view selector) {
  LabelSet out;
  if (selector.empty()) return out;
  for (const auto& label : Split(selector, ',')) {
    std::vector<std::string> kv = Split(label, '=');
    if (kv.size() != 2) return PlainError("invalid selector: [" + Join(kv, " ") + "]");
    std::string key(TrimSpace(kv[0]));
    if (auto errs = am::IsQualifiedName(key); !errs.empty()) {
      // kube validates with no field path: its String() is "<nil>".
      return PlainError(InvalidError(FieldPath("<nil>"), key, Join(errs, "; ")).ToString());
    }
    std::string value(TrimSpace(kv[1]));
    if (auto errs = am::IsValidLabelValue(value); !errs.empty()) {
      return PlainError(InvalidError(FieldPath().Key(key), value, Join(errs, "; ")).ToString());
    }
    out[key] = value;
  }
  return out;
}

std::map<std::string, std::string> ParsePodNodeSelectorConfig(const std::optional<json::value>& config) {
  std::map<std::string, std::string> out;
  if (!config || !config->is_object()) return out;
  const json::object& o = config->get_object();
  // encoding/json: the exact name first, else any that matches ignoring case.
  const json::value* m = o.if_contains("podNodeSelectorPluginConfig");
  for (auto it = o.begin(); !m && it != o.end(); ++it) {
    if (EqualFold(it->key(), "podNodeSelectorPluginConfig")) m = &it->value();
  }
  if (!m || !m->is_object()) return out;
  // A value that is not a string decodes as "" (encoding/json stores the map entry's zero value).
  for (const auto& kv : m->get_object()) {
    out[std::string(kv.key())] = kv.value().is_string() ? std::string(kv.value().get_string()) : std::string();
  }
  return out;
}

Task<StatusOr<LabelSet>> PodNodeSelector::NamespaceSelector(const std::string& ns) const {
  auto got = co_await lookup_(ns);
  // kube falls back from its namespace cache to a live GET, and any failure of that reads so.
  if (!got.ok()) co_return am::NewInternalError("namespace " + ns + " does not exist");
  const json::value* meta = got->if_contains("metadata");
  const json::value* ann = meta && meta->is_object() ? meta->get_object().if_contains("annotations") : nullptr;
  const json::value* sel = ann && ann->is_object() ? ann->get_object().if_contains(kNodeSelectorAnnotation) : nullptr;
  if (sel) co_return ConvertSelectorToLabelsMap(sel->is_string() ? std::string_view(sel->get_string()) : "");
  auto def = cluster_.find(kClusterDefault);
  co_return ConvertSelectorToLabelsMap(def == cluster_.end() ? "" : def->second);
}

Task<StatusOr<LabelSet>> PodNodeSelector::CheckedNamespaceSelector(const Attributes& a) const {
  auto ns_selector = co_await NamespaceSelector(a.namespace_);
  if (!ns_selector.ok()) co_return ns_selector.status();
  if (Conflicts(*ns_selector, PodNodeSelectorOf(*a.object))) {
    co_return PodForbidden(*a.object, "pod node label selector conflicts with its namespace node label selector");
  }
  co_return ns_selector;
}

Task<Status> PodNodeSelector::Admit(Attributes& a) {
  if (!IsPodWithObject(a)) co_return Status();
  auto ns_selector = co_await CheckedNamespaceSelector(a);
  if (!ns_selector.ok()) co_return ns_selector.status();
  // The pod's own labels win (labels.Merge); kube writes the map, which omits itself when empty.
  LabelSet merged = *ns_selector;
  for (const auto& [k, v] : PodNodeSelectorOf(*a.object)) merged[k] = v;
  json::value& spec = (*a.object)["spec"];
  if (!spec.is_object()) spec = json::object();
  if (merged.empty()) {
    spec.get_object().erase("nodeSelector");
  } else {
    json::object sel;
    for (const auto& [k, v] : merged) sel[k] = v;
    spec.get_object()["nodeSelector"] = std::move(sel);
  }
  co_return co_await Validate(a);
}

Task<Status> PodNodeSelector::Validate(const Attributes& a) {
  if (!IsPodWithObject(a)) co_return Status();
  auto ns_selector = co_await CheckedNamespaceSelector(a);
  if (!ns_selector.ok()) co_return ns_selector.status();
  auto entry = cluster_.find(a.namespace_);
  auto whitelist = ConvertSelectorToLabelsMap(entry == cluster_.end() ? "" : entry->second);
  if (!whitelist.ok()) co_return whitelist.status();
  if (!IsSubset(PodNodeSelectorOf(*a.object), *whitelist)) {
    co_return PodForbidden(*a.object, "pod node label selector labels conflict with its namespace whitelist");
  }
  co_return Status();
}

StatusOr<std::unique_ptr<Plugin>> NewPodNodeSelectorPlugin(const PluginDeps& deps) {
  if (!deps.namespace_lookup) return std::unique_ptr<Plugin>();
  std::optional<json::value> config;
  if (deps.config) {
    ASSIGN_OR_RETURN(config, deps.config->ConfigFor("PodNodeSelector"));
  }
  return std::unique_ptr<Plugin>(
      std::make_unique<PodNodeSelector>(ParsePodNodeSelectorConfig(config), deps.namespace_lookup));
}

}  // namespace capstan::admission
