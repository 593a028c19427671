#include "admission/pod_security.h"

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <set>

#include "admission/pod_security_checks.h"
#include "admission/pod_security_json.h"
#include "apimachinery/errors.h"
#include "util/strings.h"

namespace capstan::admission {

namespace json = boost::json;
namespace am = capstan::apimachinery;
using namespace psa;
using psa::detail::Arr;
using psa::detail::Obj;
using psa::detail::StrOr;

namespace {

const char kExempt[] = "pod-security.kubernetes.io/exempt";
const char kEnforcePolicy[] = "pod-security.kubernetes.io/enforce-policy";
const char kAuditViolations[] = "pod-security.kubernetes.io/audit-violations";
const char kError[] = "pod-security.kubernetes.io/error";

bool IsCore(const Attributes& a, std::string_view resource) {
  return a.resource && a.resource->group.empty() && a.resource->resource == resource;
}

// The resources whose objects carry a pod template, and where the template is.
enum class Template { kNone, kPodTemplate, kSpecTemplate, kSpecTemplatePointer, kCronJob };
Template TemplateOf(const Attributes& a) {
  if (!a.resource) return Template::kNone;
  const auto& g = a.resource->group;
  const auto& r = a.resource->resource;
  if (g.empty()) {
    if (r == "podtemplates") return Template::kPodTemplate;
    if (r == "replicationcontrollers") return Template::kSpecTemplatePointer;
  } else if (g == "apps") {
    if (r == "deployments" || r == "replicasets" || r == "statefulsets" || r == "daemonsets") return Template::kSpecTemplate;
  } else if (g == "batch") {
    if (r == "jobs") return Template::kSpecTemplate;
    if (r == "cronjobs") return Template::kCronJob;
  }
  return Template::kNone;
}

Labels LabelsOf(const json::object* obj) {
  Labels out;
  if (const json::object* labels = Obj(Obj(obj, "metadata"), "labels")) {
    for (const auto& [k, v] : *labels) {
      if (v.is_string()) out.emplace(std::string(k), std::string(v.get_string()));
    }
  }
  return out;
}

bool Contains(const std::vector<std::string>& list, std::string_view s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

// kube's isSignificantPodUpdate: only image changes and added containers are checked again.
bool SignificantPodUpdate(const json::object& pod, const json::object& old) {
  const json::object* spec = Obj(&pod, "spec");
  const json::object* old_spec = Obj(&old, "spec");
  auto list = [](const json::object* s, const char* key) {
    static const json::array kEmpty;
    const json::array* a = Arr(s, key);
    return a ? a : &kEmpty;
  };
  for (const char* key : {"containers", "initContainers"}) {
    const json::array* n = list(spec, key);
    const json::array* o = list(old_spec, key);
    if (n->size() != o->size()) return true;
  }
  for (const char* key : {"containers", "initContainers"}) {
    const json::array* n = list(spec, key);
    const json::array* o = list(old_spec, key);
    for (size_t i = 0; i < n->size(); ++i) {
      const json::object* nc = (*n)[i].is_object() ? &(*n)[i].get_object() : nullptr;
      const json::object* oc = (*o)[i].is_object() ? &(*o)[i].get_object() : nullptr;
      if (StrOr(nc, "image") != StrOr(oc, "image")) return true;
    }
  }
  const json::array* old_eph = list(old_spec, "ephemeralContainers");
  for (const auto& c : *list(spec, "ephemeralContainers")) {
    const json::object* nc = c.is_object() ? &c.get_object() : nullptr;
    std::string name = StrOr(nc, "name");
    const json::object* match = nullptr;
    for (const auto& oc : *old_eph) {
      if (oc.is_object() && StrOr(&oc.get_object(), "name") == name) {
        match = &oc.get_object();
        break;
      }
    }
    if (!match || StrOr(nc, "image") != StrOr(match, "image")) return true;
  }
  return false;
}

Status Forbidden(const Attributes& a, const std::string& reason) { return ForbiddenFor(a, reason); }

}  // namespace

StatusOr<std::unique_ptr<PodSecurityPlugin>> PodSecurityPlugin::Create(const std::optional<json::value>& config, Deps deps) {
  const json::value* cfg = config ? &*config : nullptr;
  auto decoded = DecodePodSecurityConfig(cfg);
  if (!decoded.ok()) {
    return Status(400, "BadRequest", "couldn't init admission plugin \"PodSecurity\": " + decoded.status().message());
  }
  Status valid = ValidatePodSecurityConfig(cfg, *decoded);
  if (!valid.ok()) {
    return Status(400, "BadRequest", "failed to initialize admission plugin \"PodSecurity\": " + valid.message());
  }
  return std::unique_ptr<PodSecurityPlugin>(new PodSecurityPlugin(std::move(*decoded), std::move(deps)));
}

bool PodSecurityPlugin::ExemptNamespace(const std::string& ns) const {
  return !ns.empty() && Contains(config_.exempt_namespaces, ns);
}
bool PodSecurityPlugin::ExemptUser(const std::string& user) const {
  return !user.empty() && Contains(config_.exempt_usernames, user);
}
bool PodSecurityPlugin::ExemptRuntimeClass(const json::object& spec) const {
  std::string rc = StrOr(&spec, "runtimeClassName");
  return !rc.empty() && Contains(config_.exempt_runtime_classes, rc);
}

Task<Status> PodSecurityPlugin::Validate(const Attributes& a) {
  Decision d = co_await Decide(a);
  if (RequestScope* scope = a.scope) {
    for (auto& w : d.warnings) scope->AddWarning(std::move(w));
    for (auto& [k, v] : d.annotations) scope->AddAnnotation(k, std::move(v));
  }
  co_return std::move(d.status);
}

Task<PodSecurityPlugin::Decision> PodSecurityPlugin::Decide(const Attributes& a) const {
  if (IsCore(a, "namespaces")) co_return co_await DecideNamespace(a);
  if (IsCore(a, "pods")) co_return co_await DecidePod(a);
  if (TemplateOf(a) != Template::kNone) co_return co_await DecidePodController(a);
  co_return Decision{};
}

Task<PodSecurityPlugin::Decision> PodSecurityPlugin::DecideNamespace(const Attributes& a) const {
  Decision d;
  if (!a.subresource.empty() || !a.object) co_return d;
  Labels labels = LabelsOf(a.object);
  ErrorList new_errs;
  Policy new_policy = PolicyToEvaluate(labels, config_.defaults, &new_errs);
  std::string name = StrOr(Obj(a.object, "metadata"), "name");  // kube: the namespace object's name
  if (name.empty()) name = a.name;
  if (a.operation == "CREATE") {
    if (!new_errs.empty()) {
      d.status = am::NewInvalid({"", "Namespace"}, name, new_errs);
      co_return d;
    }
    // kube checks the request's namespace, which a namespace create does not have.
    if (ExemptNamespace(a.namespace_)) {
      std::string w = ExemptNamespaceWarning(name, new_policy, labels);
      if (!w.empty()) d.warnings.push_back(std::move(w));
    }
    co_return d;
  }
  if (a.operation != "UPDATE") co_return d;
  ErrorList old_errs;
  Policy old_policy = PolicyToEvaluate(LabelsOf(a.old_object), config_.defaults, &old_errs);
  if (!new_errs.empty()) {
    bool same = old_errs.size() == new_errs.size();
    for (size_t i = 0; same && i < new_errs.size(); ++i) same = new_errs[i].ToString() == old_errs[i].ToString();
    if (old_errs.empty() || !same) {
      d.status = am::NewInvalid({"", "Namespace"}, name, new_errs);
      co_return d;
    }
  }
  if (new_policy.enforce == old_policy.enforce) co_return d;
  if (new_policy.enforce.level == Level::kPrivileged) co_return d;
  if (new_policy.enforce.version == old_policy.enforce.version &&
      CompareLevels(new_policy.enforce.level, old_policy.enforce.level) < 1) {
    co_return d;
  }
  if (ExemptNamespace(a.namespace_.empty() ? name : a.namespace_)) {
    std::string w = ExemptNamespaceWarning(name, new_policy, labels);
    if (!w.empty()) d.warnings.push_back(std::move(w));
    co_return d;
  }
  d.warnings = co_await EvaluatePodsInNamespace(name, new_policy.enforce);
  co_return d;
}

Task<PodSecurityPlugin::Decision> PodSecurityPlugin::DecidePod(const Attributes& a) const {
  static const std::set<std::string, std::less<>> kIgnored = {"exec", "attach", "binding", "eviction",
                                                             "log",  "portforward", "proxy", "status"};
  Decision d;
  if (kIgnored.count(a.subresource)) co_return d;
  if (ExemptNamespace(a.namespace_)) {
    metrics_.RecordExemption(a);
    d.annotations[kExempt] = "namespace";
    co_return d;
  }
  if (a.user && ExemptUser(a.user->name)) {
    metrics_.RecordExemption(a);
    d.annotations[kExempt] = "user";
    co_return d;
  }
  auto ns = co_await deps_.namespace_lookup(a.namespace_);
  if (!ns.ok()) {
    metrics_.RecordError(true, a);
    std::string msg = "failed to lookup namespace " + GoQuote(a.namespace_);
    d.status = am::NewInternalError(msg);
    d.annotations[kError] = "Internal error occurred: " + msg + ": " + ns.status().message();
    co_return d;
  }
  ErrorList errs;
  Policy policy = PolicyToEvaluate(LabelsOf(&*ns), config_.defaults, &errs);
  if (errs.empty() && policy.FullyPrivileged()) {
    metrics_.RecordEvaluation("allow", policy.enforce, "enforce", a);
    d.annotations[kEnforcePolicy] = LevelVersion{Level::kPrivileged, Version::Latest()}.String();
    co_return d;
  }
  if (!a.object) {
    metrics_.RecordError(true, a);
    d.status = am::NewBadRequest("failed to decode object");
    co_return d;
  }
  if (a.operation == "UPDATE") {
    if (!a.old_object) {
      metrics_.RecordError(true, a);
      d.status = am::NewBadRequest("failed to decode old object");
      co_return d;
    }
    if (!SignificantPodUpdate(*a.object, *a.old_object)) co_return d;
  }
  static const json::object kEmpty;
  const json::object* spec = Obj(a.object, "spec");
  co_return EvaluatePod(policy, errs, Obj(a.object, "metadata"), spec ? *spec : kEmpty, a, true);
}

Task<PodSecurityPlugin::Decision> PodSecurityPlugin::DecidePodController(const Attributes& a) const {
  Decision d;
  if (!a.subresource.empty()) co_return d;
  if (ExemptNamespace(a.namespace_)) {
    metrics_.RecordExemption(a);
    d.annotations[kExempt] = "namespace";
    co_return d;
  }
  if (a.user && ExemptUser(a.user->name)) {
    metrics_.RecordExemption(a);
    d.annotations[kExempt] = "user";
    co_return d;
  }
  auto ns = co_await deps_.namespace_lookup(a.namespace_);
  if (!ns.ok()) {
    metrics_.RecordError(true, a);
    d.annotations[kError] = "failed to lookup namespace " + GoQuote(a.namespace_) + ": " + ns.status().message();
    co_return d;
  }
  ErrorList errs;
  Policy policy = PolicyToEvaluate(LabelsOf(&*ns), config_.defaults, &errs);
  if (errs.empty() && policy.warn.level == Level::kPrivileged && policy.audit.level == Level::kPrivileged) co_return d;
  if (!a.object) {
    metrics_.RecordError(true, a);
    d.annotations[kError] = "failed to decode object: no object";
    co_return d;
  }
  const json::object* spec_of_object = Obj(a.object, "spec");
  const json::object* tmpl = nullptr;
  static const json::object kEmpty;
  switch (TemplateOf(a)) {
    case Template::kPodTemplate: tmpl = Obj(a.object, "template"); break;
    case Template::kSpecTemplate: tmpl = Obj(spec_of_object, "template"); break;
    case Template::kSpecTemplatePointer:
      tmpl = Obj(spec_of_object, "template");
      if (!tmpl) co_return d;  // no template: nothing to check
      break;
    case Template::kCronJob: tmpl = Obj(Obj(Obj(spec_of_object, "jobTemplate"), "spec"), "template"); break;
    case Template::kNone: co_return d;
  }
  if (!tmpl) tmpl = &kEmpty;
  const json::object* spec = Obj(tmpl, "spec");
  co_return EvaluatePod(policy, errs, Obj(tmpl, "metadata"), spec ? *spec : kEmpty, a, false);
}

PodSecurityPlugin::Decision PodSecurityPlugin::EvaluatePod(const Policy& policy, const ErrorList& policy_errors,
                                                           const json::object* metadata, const json::object& spec,
                                                           const Attributes& a, bool enforce) const {
  Decision d;
  if (ExemptRuntimeClass(spec)) {
    metrics_.RecordExemption(a);
    d.annotations[kExempt] = "runtimeClass";
    return d;
  }
  if (!policy_errors.empty()) {
    d.annotations[kError] = "Failed to parse policy: " + AggregateMessage(policy_errors);
    metrics_.RecordError(false, a);
  }
  std::map<LevelVersion, AggregateResult> cache;
  auto evaluate = [&](const LevelVersion& lv) -> const AggregateResult& {
    auto it = cache.find(lv);
    if (it == cache.end()) it = cache.emplace(lv, Aggregate(psa::EvaluatePod(lv, metadata, spec))).first;
    return it->second;
  };
  if (enforce) {
    d.annotations[kEnforcePolicy] = policy.enforce.String();
    const AggregateResult& r = evaluate(policy.enforce);
    if (!r.allowed) {
      d.status = Forbidden(a, "violates PodSecurity " + GoQuote(policy.enforce.String()) + ": " + r.ForbiddenDetail());
    }
    metrics_.RecordEvaluation(r.allowed ? "allow" : "deny", policy.enforce, "enforce", a);
  }
  const AggregateResult& audit = evaluate(policy.audit);
  if (!audit.allowed) {
    d.annotations[kAuditViolations] =
        "would violate PodSecurity " + GoQuote(policy.audit.String()) + ": " + audit.ForbiddenDetail();
    metrics_.RecordEvaluation("deny", policy.audit, "audit", a);
  }
  if (d.status.ok()) {
    const AggregateResult& warn = evaluate(policy.warn);
    if (!warn.allowed) {
      d.warnings.push_back("would violate PodSecurity " + GoQuote(policy.warn.String()) + ": " + warn.ForbiddenDetail());
      metrics_.RecordEvaluation("deny", policy.warn, "warn", a);
    }
  }
  return d;
}

Task<std::vector<std::string>> PodSecurityPlugin::EvaluatePodsInNamespace(const std::string& ns,
                                                                          const LevelVersion& enforce) const {
  std::vector<std::string> warnings;
  if (!deps_.list_pods) co_return warnings;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  auto pods = co_await deps_.list_pods(ns);
  if (!pods.ok()) {
    warnings.push_back("failed to list pods while checking new PodSecurity enforce level");
    co_return warnings;
  }
  // kube's prioritizePods: one pod per controller first, the other replicas after; exempt runtime
  // classes skipped.
  std::vector<const json::object*> first, rest;
  std::set<std::string> controllers;
  for (const auto& pod : *pods) {
    const json::object* spec = Obj(&pod, "spec");
    static const json::object kEmpty;
    if (ExemptRuntimeClass(spec ? *spec : kEmpty)) continue;
    std::string controller_uid;
    if (const json::array* refs = Arr(Obj(&pod, "metadata"), "ownerReferences")) {
      for (const auto& r : *refs) {
        if (r.is_object() && psa::detail::Bool(&r.get_object(), "controller").value_or(false)) {
          controller_uid = StrOr(&r.get_object(), "uid");
          break;
        }
      }
    }
    if (controller_uid.empty() || controllers.insert(controller_uid).second) {
      first.push_back(&pod);
    } else {
      rest.push_back(&pod);
    }
  }
  first.insert(first.end(), rest.begin(), rest.end());
  size_t total = first.size();
  size_t to_check = std::min(total, kMaxPodsToCheck);
  size_t checked = to_check;
  struct Count {
    std::string pod;
    int n = 0;
  };
  std::vector<std::string> reasons;
  std::map<std::string, Count> counts;
  for (size_t i = 0; i < to_check; ++i) {
    const json::object& pod = *first[i];
    static const json::object kEmpty;
    const json::object* spec = Obj(&pod, "spec");
    AggregateResult r = Aggregate(psa::EvaluatePod(enforce, Obj(&pod, "metadata"), spec ? *spec : kEmpty));
    if (!r.allowed) {
      std::string reason = r.ForbiddenReason();
      std::string name = StrOr(Obj(&pod, "metadata"), "name");
      auto [it, inserted] = counts.try_emplace(reason);
      if (inserted) {
        it->second.pod = name;
        reasons.push_back(reason);
      } else if (name < it->second.pod) {
        it->second.pod = name;
      }
      it->second.n++;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      checked = i + 1;
      break;
    }
  }
  if (checked < total) {
    warnings.push_back("new PodSecurity enforce level only checked against the first " + std::to_string(checked) +
                       " of " + std::to_string(total) + " existing pods");
  }
  if (!reasons.empty()) {
    warnings.push_back("existing pods in namespace " + GoQuote(ns) + " violate the new PodSecurity enforce level " +
                       GoQuote(enforce.String()));
  }
  for (auto& reason : reasons) {
    const Count& c = counts[reason];
    if (c.n == 1) {
      reason = c.pod + ": " + reason;
    } else if (c.n == 2) {
      reason = c.pod + " (and 1 other pod): " + reason;
    } else {
      reason = c.pod + " (and " + std::to_string(c.n - 1) + " other pods): " + reason;
    }
  }
  std::sort(reasons.begin(), reasons.end());
  warnings.insert(warnings.end(), reasons.begin(), reasons.end());
  co_return warnings;
}

std::string PodSecurityPlugin::ExemptNamespaceWarning(const std::string& ns, const Policy& p, const Labels& labels) const {
  if (p.FullyPrivileged() || p.Equivalent(config_.defaults)) return "";
  std::string out;
  auto add = [&](const char* mode, const LevelVersion& lv, const char* level_label, const char* version_label) {
    if (lv.level == Level::kPrivileged || (!labels.count(level_label) && !labels.count(version_label))) return;
    if (!out.empty()) out += ", ";
    out += std::string(mode) + "=" + lv.String();
  };
  add("enforce", p.enforce, kEnforceLevelLabel, kEnforceVersionLabel);
  add("audit", p.audit, kAuditLevelLabel, kAuditVersionLabel);
  add("warn", p.warn, kWarnLevelLabel, kWarnVersionLabel);
  return "namespace " + GoQuote(ns) + " is exempt from Pod Security, and the policy (" + out + ") will be ignored";
}

}  // namespace capstan::admission
