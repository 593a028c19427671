// api/core/pod_validation.cpp: pod spec level checks, templates, tolerations and the update rule.
// Containers are in pod_validation_containers.cpp, volumes in pod_validation_volumes.cpp.
#include "api/core/pod_validation.h"

#include <algorithm>
#include <climits>
#include <set>

#include "api/core/core_helpers.h"
#include "api/core/pod_validation_internal.h"
#include "apimachinery/object_meta_validation.h"
#include "apimachinery/validation.h"
#include "util/strings.h"

namespace capstan::api::core {

namespace am = capstan::apimachinery;

std::string GoStringMap(const json::object* m) {
  if (!m || m->empty()) return "map[string]string(nil)";
  std::string out = "map[string]string{";
  bool first = true;
  for (const auto& k : SortedKeys(m)) {
    if (!first) out += ", ";
    first = false;
    out += GoQuote(k) + ":" + GoQuote(StrOf(m->if_contains(k)));
  }
  return out + "}";
}

std::vector<std::string> PortNameProblems(std::string_view port) {
  std::vector<std::string> errs;
  if (port.size() > 15) errs.push_back(am::MaxLenError(15));
  bool charset = !port.empty() && std::all_of(port.begin(), port.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
  if (!charset) errs.push_back("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (std::none_of(port.begin(), port.end(), [](char c) { return c >= 'a' && c <= 'z'; })) {
    errs.push_back("must contain at least one letter (a-z)");
  }
  if (port.find("--") != std::string_view::npos) errs.push_back("must not contain consecutive hyphens");
  if (!port.empty() && (port.front() == '-' || port.back() == '-')) errs.push_back("must not begin or end with a hyphen");
  return errs;
}

ErrorList ValidateTolerations(const json::value* tolerations, const FieldPath& path) {
  ErrorList errs;
  if (!tolerations || !tolerations->is_array()) return errs;
  const auto& arr = tolerations->get_array();
  for (size_t i = 0; i < arr.size(); ++i) {
    if (!arr[i].is_object()) continue;
    const auto& t = arr[i].get_object();
    FieldPath p = path.Index(i);
    std::string key = StrOf(t.if_contains("key"));
    std::string op = StrOf(t.if_contains("operator"));
    std::string value = StrOf(t.if_contains("value"));
    std::string effect = StrOf(t.if_contains("effect"));
    if (!key.empty()) {
      auto more = am::ValidateLabelName(key, p.Child("key"));
      errs.insert(errs.end(), more.begin(), more.end());
    }
    if (key.empty() && op != "Exists") {
      errs.push_back(InvalidError(p.Child("operator"), op,
                                  "operator must be Exists when `key` is empty, which means \"match all values and all keys\""));
    }
    if (t.contains("tolerationSeconds") && !t.at("tolerationSeconds").is_null() && effect != "NoExecute") {
      errs.push_back(InvalidError(p.Child("effect"), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    if (op == "Equal" || op.empty()) {
      auto problems = am::IsValidLabelValue(value);
      if (!problems.empty()) errs.push_back(InvalidError(p.Child("operator"), value, Join(problems, ";")));
    } else if (op == "Exists") {
      if (!value.empty()) {
        FieldError e = InvalidGoValue(p.Child("operator"),
                                      "core.Toleration{Key:" + GoQuote(key) + ", Operator:" + GoQuote(op) + ", Value:" +
                                          GoQuote(value) + ", Effect:" + GoQuote(effect) + ", TolerationSeconds:" +
                                          (t.contains("tolerationSeconds") ? "(*int64)(...)" : "(*int64)(nil)") + "}",
                                      "value must be empty when `operator` is 'Exists'");
        errs.push_back(std::move(e));
      }
    } else {
      errs.push_back(NotSupportedError(p.Child("operator"), op, {"Equal", "Exists"}));
    }
    if (!effect.empty() && effect != "NoSchedule" && effect != "PreferNoSchedule" && effect != "NoExecute") {
      errs.push_back(NotSupportedError(p.Child("effect"), effect, {"NoSchedule", "PreferNoSchedule", "NoExecute"}));
    }
  }
  return errs;
}

ErrorList ValidatePodSpec(const json::object& spec, const FieldPath& path) {
  ErrorList errs;
  auto add = [&](ErrorList more) { errs.insert(errs.end(), more.begin(), more.end()); };
  std::set<std::string> volumes;
  add(ValidateVolumes(spec.if_contains("volumes"), path.Child("volumes"), volumes));
  std::set<std::string> names;
  add(ValidateContainerList(spec.if_contains("containers"), path.Child("containers"), volumes, names, ContainerKind::kRegular));
  add(ValidateContainerList(spec.if_contains("initContainers"), path.Child("initContainers"), volumes, names,
                            ContainerKind::kInit));
  add(ValidateContainerList(spec.if_contains("ephemeralContainers"), path.Child("ephemeralContainers"), volumes, names,
                            ContainerKind::kEphemeral));

  std::string restart = StrOf(spec.if_contains("restartPolicy"));
  if (restart.empty()) {
    errs.push_back(RequiredError(path.Child("restartPolicy"), ""));
  } else if (restart != "Always" && restart != "OnFailure" && restart != "Never") {
    errs.push_back(NotSupportedError(path.Child("restartPolicy"), restart, {"Always", "OnFailure", "Never"}));
  }
  std::string dns = StrOf(spec.if_contains("dnsPolicy"));
  if (dns.empty()) {
    errs.push_back(RequiredError(path.Child("dnsPolicy"), ""));
  } else if (dns != "ClusterFirstWithHostNet" && dns != "ClusterFirst" && dns != "Default" && dns != "None") {
    errs.push_back(NotSupportedError(path.Child("dnsPolicy"), dns, {"ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"}));
  }
  if (dns == "None") {
    const auto* cfg = spec.if_contains("dnsConfig");
    if (!cfg || !cfg->is_object()) {
      errs.push_back(RequiredError(path.Child("dnsConfig"), "must provide `dnsConfig` when `dnsPolicy` is None"));
    } else if (CountAt(cfg->get_object(), "nameservers") == 0) {
      errs.push_back(RequiredError(path.Child("dnsConfig").Child("nameservers"),
                                   "must provide at least one DNS nameserver when `dnsPolicy` is None"));
    }
  }
  if (const auto* ns = spec.if_contains("nodeSelector"); ns && ns->is_object()) {
    add(am::ValidateLabels(PairsOf(&ns->get_object()), path.Child("nodeSelector")));
  }
  for (const char* field : {"serviceAccountName", "nodeName", "priorityClassName"}) {
    std::string v = StrOf(spec.if_contains(field));
    if (!v.empty()) add(ProblemsAt(am::IsDNS1123Subdomain(v), path.Child(field), v));
  }
  for (const char* field : {"hostname", "subdomain"}) {
    std::string v = StrOf(spec.if_contains(field));
    if (!v.empty()) add(ProblemsAt(am::IsDNS1123Label(v), path.Child(field), v));
  }
  if (const auto* ads = spec.if_contains("activeDeadlineSeconds"); ads && !ads->is_null()) {
    int64_t v = IntOf(ads);
    if (v < 1 || v > INT32_MAX) {
      errs.push_back(InvalidError(path.Child("activeDeadlineSeconds"), v, "must be between 1 and 2147483647, inclusive"));
    }
  }
  add(ValidateTolerations(spec.if_contains("tolerations"), path.Child("tolerations")));
  if (const auto* ips = spec.if_contains("imagePullSecrets"); ips && ips->is_array()) {
    for (size_t i = 0; i < ips->get_array().size(); ++i) {
      const auto& s = ips->get_array()[i];
      if (s.is_object() && StrOf(s.get_object().if_contains("name")).empty()) {
        errs.push_back(RequiredError(path.Child("imagePullSecrets").Index(i).Child("name"), ""));
      }
    }
  }
  if (const auto* gates = spec.if_contains("schedulingGates"); gates && gates->is_array()) {
    std::set<std::string> seen;
    for (size_t i = 0; i < gates->get_array().size(); ++i) {
      const auto& g = gates->get_array()[i];
      std::string name = g.is_object() ? StrOf(g.get_object().if_contains("name")) : "";
      FieldPath p = path.Child("schedulingGates").Index(i).Child("name");
      add(ProblemsAt(am::IsQualifiedName(name), p, name));
      if (!seen.insert(name).second) errs.push_back(DuplicateError(path.Child("schedulingGates").Index(i), name));
    }
  }
  return errs;
}

ErrorList ValidatePodTemplateSpec(const json::object& tmpl, const FieldPath& path) {
  ErrorList errs;
  auto add = [&](ErrorList more) { errs.insert(errs.end(), more.begin(), more.end()); };
  am::ObjectMeta md = am::ReadObjectMeta(tmpl);
  add(am::ValidateLabels(md.labels, path.Child("metadata").Child("labels")));
  add(am::ValidateAnnotations(md.annotations, path.Child("metadata").Child("annotations")));
  const auto* spec = tmpl.if_contains("spec");
  static const json::object kEmpty;
  const json::object& s = spec && spec->is_object() ? spec->get_object() : kEmpty;
  add(ValidatePodSpec(s, path.Child("spec")));
  if (CountAt(s, "ephemeralContainers") > 0) {
    errs.push_back(ForbiddenError(path.Child("spec").Child("ephemeralContainers"), "ephemeral containers not allowed in pod template"));
  }
  return errs;
}

namespace {

// Lines "- old" / "+ new" for the top-level fields of the spec that differ (kube prints a Go diff).
std::string SpecDiff(const json::object& old_spec, const json::object& munged) {
  std::string out = "  core.PodSpec{\n";
  std::set<std::string> keys;
  for (const auto& kv : old_spec) keys.insert(std::string(kv.key()));
  for (const auto& kv : munged) keys.insert(std::string(kv.key()));
  for (const auto& k : keys) {
    const auto* a = old_spec.if_contains(k);
    const auto* b = munged.if_contains(k);
    if (a && b && *a == *b) continue;
    if (a) out += "- \t" + k + ": " + json::serialize(*a) + ",\n";
    if (b) out += "+ \t" + k + ": " + json::serialize(*b) + ",\n";
  }
  return out + "  }\n";
}

}  // namespace

ErrorList ValidatePodSpecUpdate(const json::object& spec, const json::object& old_spec) {
  ErrorList errs;
  FieldPath sp("spec");
  // Images may change but not be cleared.
  for (const char* list : {"containers", "initContainers"}) {
    if (const auto* arr = spec.if_contains(list); arr && arr->is_array()) {
      for (size_t i = 0; i < arr->get_array().size(); ++i) {
        const auto& c = arr->get_array()[i];
        if (c.is_object() && StrOf(c.get_object().if_contains("image")).empty()) {
          errs.push_back(RequiredError(sp.Child(list).Index(i).Child("image"), ""));
        }
      }
    }
  }
  // activeDeadlineSeconds may be added or lowered, never removed or raised.
  const auto* ads = spec.if_contains("activeDeadlineSeconds");
  const auto* old_ads = old_spec.if_contains("activeDeadlineSeconds");
  bool has_ads = ads && !ads->is_null();
  bool had_ads = old_ads && !old_ads->is_null();
  if (had_ads) {
    if (!has_ads) {
      errs.push_back(InvalidError(sp.Child("activeDeadlineSeconds"), nullptr,
                                  "must not update from a positive integer to nil value"));
    } else if (IntOf(ads) > IntOf(old_ads)) {
      errs.push_back(InvalidError(sp.Child("activeDeadlineSeconds"), IntOf(ads),
                                  "must be less than or equal to previous value"));
    }
  }
  // Tolerations may only be added to.
  const auto* tol = spec.if_contains("tolerations");
  const auto* old_tol = old_spec.if_contains("tolerations");
  if (old_tol && old_tol->is_array()) {
    for (const auto& t : old_tol->get_array()) {
      bool kept = tol && tol->is_array() &&
                  std::find(tol->get_array().begin(), tol->get_array().end(), t) != tol->get_array().end();
      if (!kept) {
        errs.push_back(ForbiddenError(sp.Child("tolerations"), "existing toleration can not be modified except its tolerationSeconds"));
        break;
      }
    }
  }
  // Everything else must be as it was: replace what may change with the old values and compare.
  json::object munged = spec;
  for (const char* list : {"containers", "initContainers"}) {
    auto* arr = ArrayField(munged, list);
    const auto* old_arr = old_spec.if_contains(list);
    if (!arr || !old_arr || !old_arr->is_array()) continue;
    for (size_t i = 0; i < arr->size() && i < old_arr->get_array().size(); ++i) {
      if (!(*arr)[i].is_object() || !old_arr->get_array()[i].is_object()) continue;
      const auto* old_image = old_arr->get_array()[i].get_object().if_contains("image");
      if (old_image) {
        (*arr)[i].get_object()["image"] = *old_image;
      } else {
        (*arr)[i].get_object().erase("image");
      }
    }
  }
  auto restore = [&](const char* key) {
    if (const auto* v = old_spec.if_contains(key)) {
      munged[key] = *v;
    } else {
      munged.erase(key);
    }
  };
  restore("activeDeadlineSeconds");
  restore("tolerations");
  // terminationGracePeriodSeconds may go from a negative value to 1.
  if (const auto* g = old_spec.if_contains("terminationGracePeriodSeconds"); g && IntOf(g) < 0) {
    if (IntOf(munged.if_contains("terminationGracePeriodSeconds"), 0) == 1) restore("terminationGracePeriodSeconds");
  }
  // Scheduling gates may be removed.
  if (const auto* gates = spec.if_contains("schedulingGates"); !gates || (gates->is_array())) {
    const auto* old_gates = old_spec.if_contains("schedulingGates");
    bool subset = true;
    if (gates && gates->is_array()) {
      for (const auto& g : gates->get_array()) {
        if (!old_gates || !old_gates->is_array() ||
            std::find(old_gates->get_array().begin(), old_gates->get_array().end(), g) == old_gates->get_array().end()) {
          subset = false;
        }
      }
    }
    if (subset) restore("schedulingGates");
  }
  // The ephemeralcontainers subresource changes those; the main resource may not (kube keeps them).
  restore("ephemeralContainers");
  if (munged != old_spec) {
    errs.push_back(ForbiddenError(
        sp, "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,"
            "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),"
            "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n" +
                SpecDiff(old_spec, munged)));
  }
  return errs;
}

ErrorList ValidateEphemeralContainersUpdate(const json::object& spec, const json::object& old_spec) {
  ErrorList errs;
  FieldPath p = FieldPath("spec").Child("ephemeralContainers");
  const auto* cur = spec.if_contains("ephemeralContainers");
  const auto* old = old_spec.if_contains("ephemeralContainers");
  std::map<std::string, const json::value*> now;
  if (cur && cur->is_array()) {
    for (const auto& c : cur->get_array()) {
      if (c.is_object()) now[StrOf(c.get_object().if_contains("name"))] = &c;
    }
  }
  if (old && old->is_array()) {
    for (const auto& c : old->get_array()) {
      if (!c.is_object()) continue;
      std::string name = StrOf(c.get_object().if_contains("name"));
      auto it = now.find(name);
      if (it == now.end()) {
        errs.push_back(ForbiddenError(p, "existing ephemeral containers " + GoQuote(name) + " may not be removed\n"));
      } else if (*it->second != c) {
        errs.push_back(ForbiddenError(p, "existing ephemeral containers " + GoQuote(name) + " may not be changed\n"));
      }
    }
  }
  return errs;
}

}  // namespace capstan::api::core
