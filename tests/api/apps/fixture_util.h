// tests/api/apps/fixture_util.h: making the upstream fixtures (every field filled with "<field>Value")
// acceptable to validation while keeping every field kube keeps: valid names and enum values, a
// selector that matches the template's labels. Shared by the workload groups' fixture tests.
#pragma once

#include <boost/json.hpp>
#include <string>

namespace capstan::api::testing {

namespace fjson = boost::json;

inline void ForEachIn(fjson::object& o, const char* key, const std::function<void(fjson::object&, size_t)>& fn) {
  auto* v = o.if_contains(key);
  if (!v || !v->is_array()) return;
  for (size_t i = 0; i < v->get_array().size(); ++i) {
    if (v->get_array()[i].is_object()) fn(v->get_array()[i].get_object(), i);
  }
}

// A fixture label selector made valid: operator In.
inline void SanitizeSelector(fjson::object& sel) {
  ForEachIn(sel, "matchExpressions", [](fjson::object& e, size_t) { e["operator"] = "In"; });
}

// Labels that satisfy the fixture selector (matchLabels plus one value per In expression).
inline fjson::object LabelsFor(const fjson::object& sel) {
  fjson::object labels;
  if (const auto* ml = sel.if_contains("matchLabels"); ml && ml->is_object()) labels = ml->get_object();
  if (const auto* me = sel.if_contains("matchExpressions"); me && me->is_array()) {
    for (const auto& e : me->get_array()) {
      const auto& o = e.get_object();
      labels[o.at("key").as_string()] = o.at("values").as_array()[0];
    }
  }
  return labels;
}

// A fixture pod template made valid for a workload kind with `restart` as its restart policy.
inline void SanitizePodTemplate(fjson::object& tmpl, const std::string& restart, bool keep_active_deadline,
                                const fjson::object* selector) {
  fjson::object& md = tmpl["metadata"].as_object();
  if (selector) {
    fjson::object labels = md.contains("labels") ? md["labels"].as_object() : fjson::object();
    for (const auto& kv : LabelsFor(*selector)) labels[kv.key()] = kv.value();
    md["labels"] = std::move(labels);
  }
  fjson::object& spec = tmpl["spec"].as_object();
  auto fix_container = [](fjson::object& c, const std::string& name) {
    c["name"] = name;
    c["imagePullPolicy"] = "Always";
    c["terminationMessagePolicy"] = "File";
    ForEachIn(c, "ports", [](fjson::object& p, size_t i) {
      p["name"] = "http" + std::to_string(i);
      p["protocol"] = "TCP";
    });
    ForEachIn(c, "volumeMounts", [](fjson::object& m, size_t) { m["name"] = "vol"; });
  };
  ForEachIn(spec, "containers", [&](fjson::object& c, size_t i) { fix_container(c, "c" + std::to_string(i)); });
  ForEachIn(spec, "initContainers", [&](fjson::object& c, size_t i) { fix_container(c, "i" + std::to_string(i)); });
  spec.erase("ephemeralContainers");  // not allowed in templates
  ForEachIn(spec, "volumes", [](fjson::object& v, size_t) { v["name"] = "vol"; });
  spec["restartPolicy"] = restart;
  spec["dnsPolicy"] = "ClusterFirst";
  spec["serviceAccountName"] = "sa";
  spec["hostname"] = "host";
  spec["subdomain"] = "sub";
  if (!keep_active_deadline) spec.erase("activeDeadlineSeconds");
}

}  // namespace capstan::api::testing
