#include "admission/validating_admission_policy.h"

#include <algorithm>
#include <boost/json.hpp>
#include <map>

#include "apimachinery/errors.h"
#include "apimachinery/json_write.h"
#include "apimachinery/object_meta.h"
#include "cel/schema_types.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::admission {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

constexpr char kGroup[] = "admissionregistration.k8s.io";
constexpr char kValidationFailure[] = "validation.policy.admission.k8s.io/validation_failure";
constexpr size_t kMaxAuditAnnotationValueLength = 10 * 1024;

int ReasonToCode(const std::string& reason) {
  if (reason == "Forbidden") return 403;
  if (reason == "Unauthorized") return 401;
  if (reason == "RequestEntityTooLarge") return 413;
  return 422;
}

std::string Fingerprint(const std::vector<registry::Object>& objs) {
  std::string fp;
  for (const auto& o : objs) {
    fp += am::GetName(o);
    fp += '@';
    fp += am::GetResourceVersion(o);
    fp += ';';
  }
  return fp;
}

// kube's IsExemptAdmissionConfigurationResource.
bool Exempt(const Attributes& a) {
  return a.resource->group == kGroup &&
         (a.resource->resource == "validatingwebhookconfigurations" || a.resource->resource == "mutatingwebhookconfigurations");
}

// The resource of a paramKind (kube asks its REST mapper; Capstan's built-in kinds are lower-case
// plurals of their kind).
std::string ParamResource(const std::string& kind) {
  std::string r = ToLower(kind);
  if (!r.empty() && r.back() == 'y') return r.substr(0, r.size() - 1) + "ies";
  if (!r.empty() && (r.back() == 's' || r.back() == 'x')) return r + "es";
  return r + "s";
}

std::pair<std::string, std::string> SplitApiVersion(const std::string& api_version) {
  size_t slash = api_version.find('/');
  if (slash == std::string::npos) return {"", api_version};
  return {api_version.substr(0, slash), api_version.substr(slash + 1)};
}

struct Denial {
  std::string policy, binding, message, reason;
};

}  // namespace

ValidatingAdmissionPolicyPlugin::ValidatingAdmissionPolicyPlugin(ObjectLister list, ObjectGetter get,
                                                                 NamespaceLookup namespace_lookup, MetricsRegistry* metrics)
    : source_(list), list_(std::move(list)), get_(std::move(get)), namespace_lookup_(std::move(namespace_lookup)) {
  if (!metrics) return;
  const std::vector<std::string> labels = {"policy", "policy_binding", "error_type", "enforcement_action"};
  checks_ = &metrics->NewCounterVec(
      "apiserver_validating_admission_policy_check_total",
      "Validation admission policy check total, labeled by policy and further identified by binding and enforcement "
      "action taken.",
      labels);
  latency_ = &metrics->NewHistogramVec(
      "apiserver_validating_admission_policy_check_duration_seconds",
      "Validation admission latency for individual validation expressions in seconds, labeled by policy and further "
      "including binding and enforcement action taken.",
      labels, {0.0000005, 0.001, 0.01, 0.1, 1.0});
}

void ValidatingAdmissionPolicyPlugin::Observe(const PolicyDecision& d, const std::string& policy,
                                              const std::string& binding, const char* action) const {
  if (!checks_) return;
  const LabelValues lv = {policy, binding, PolicyDecisionErrorType(d), action};
  checks_->With(lv)->Inc();
  latency_->With(lv)->Observe(d.elapsed_seconds);
}

Task<StatusOr<std::shared_ptr<const PolicySource::Snapshot>>> PolicySource::Current() {
  auto policies = co_await list_(kGroup, "v1", "validatingadmissionpolicies", "");
  if (!policies.ok()) co_return policies.status();
  auto bindings = co_await list_(kGroup, "v1", "validatingadmissionpolicybindings", "");
  if (!bindings.ok()) co_return bindings.status();
  std::string fp = Fingerprint(*policies) + "|" + Fingerprint(*bindings);
  {
    std::lock_guard lock(mu_);
    if (current_ && fingerprint_ == fp) co_return current_;
  }
  auto snap = std::make_shared<Snapshot>();
  for (const auto& p : *policies) snap->policies.push_back(CompilePolicy(p));
  for (const auto& b : *bindings) snap->bindings.push_back(ParseBinding(b));
  std::sort(snap->policies.begin(), snap->policies.end(), [](const auto& x, const auto& y) { return x->name < y->name; });
  std::sort(snap->bindings.begin(), snap->bindings.end(), [](const auto& x, const auto& y) { return x.name < y.name; });
  std::shared_ptr<const Snapshot> out = snap;
  std::lock_guard lock(mu_);
  fingerprint_ = std::move(fp);
  current_ = out;
  co_return out;
}

Task<Status> ValidatingAdmissionPolicyPlugin::Validate(const Attributes& a) {
  if (!a.resource || Exempt(a)) co_return Status();
  auto snap = co_await source_.Current();
  if (!snap.ok()) co_return ForbiddenFor(a, "not yet ready to handle request");
  if ((*snap)->policies.empty() || (*snap)->bindings.empty()) co_return Status();

  // The request's namespace, read once and only when a policy needs it.
  bool ns_loaded = false;
  std::optional<registry::Object> ns;
  auto load_namespace = [&]() -> Task<void> {
    if (ns_loaded) co_return;
    ns_loaded = true;
    bool is_namespace = a.resource->group.empty() && a.resource->resource == "namespaces";
    if (!a.resource->namespaced || a.namespace_.empty() || is_namespace || !namespace_lookup_) co_return;
    auto got = co_await namespace_lookup_(a.namespace_);
    if (got.ok()) ns = std::move(*got);
  };
  std::optional<cel::AdmissionValues> base;
  std::vector<Denial> denials;
  RequestScope* scope = a.scope;

  for (const auto& policy : (*snap)->policies) {
    co_await load_namespace();
    const registry::Object* ns_obj = ns ? &*ns : nullptr;
    if (!PolicyMatches(policy->match_constraints, a, ns_obj)) continue;
    const bool fail = policy->failure_policy != "Ignore";
    auto config_error = [&](const std::string& binding, const std::string& why) {
      if (fail) denials.push_back({policy->name, binding, "failed to configure binding: " + why, ""});
    };
    std::map<std::string, std::vector<std::string>> annotations;  // key -> distinct values
    for (const auto& binding : (*snap)->bindings) {
      if (binding.policy_name != policy->name) continue;
      if (binding.has_match_resources) {
        if (!binding.match_resources.invalid.empty()) {
          config_error(binding.name, binding.match_resources.invalid);
          continue;
        }
        if (!PolicyMatches(binding.match_resources, a, ns_obj)) continue;
      }
      // The parameters: one evaluation per param (none without paramKind).
      std::vector<cel::Value> params;
      if (!policy->param_kind) {
        params.push_back(cel::Value::Null());
      } else if (!binding.has_param_ref) {
        config_error(binding.name, "paramRef is required when paramKind is set");
        continue;
      } else {
        auto [group, version] = SplitApiVersion(policy->param_kind->first);
        std::string resource = ParamResource(policy->param_kind->second);
        std::string param_ns = binding.param_namespace.empty() ? a.namespace_ : binding.param_namespace;
        std::vector<registry::Object> found;
        if (!binding.param_name.empty()) {
          if (get_) {
            auto got = co_await get_(group, version, resource, param_ns, binding.param_name);
            if (got.ok()) found.push_back(std::move(*got));
          }
        } else if (list_) {
          auto listed = co_await list_(group, version, resource, param_ns);
          if (listed.ok()) {
            for (auto& o : *listed) {
              if (!binding.param_selector || binding.param_selector->Matches(LabelsOf(&o))) found.push_back(std::move(o));
            }
          }
        }
        if (found.empty()) {
          if (binding.parameter_not_found_action == "Deny") {
            config_error(binding.name, "no params found for policy binding with `Deny` parameterNotFoundAction");
          }
          continue;
        }
        for (auto& o : found) {
          o["apiVersion"] = policy->param_kind->first;
          o["kind"] = policy->param_kind->second;
          params.push_back(cel::JsonToValue(json::value(std::move(o)), nullptr, false));
        }
      }
      if (!base) {
        base = AdmissionValuesFor(a);
        if (ns) base->namespace_object = cel::JsonToValue(json::value(*ns), nullptr, false);
      }
      for (const auto& param : params) {
        cel::AdmissionValues values = *base;
        values.params = param;
        PolicyResult result = EvaluatePolicy(*policy, std::move(values));
        for (const auto& d : result.decisions) {
          if (d.audit_annotation_error) {
            denials.push_back({policy->name, binding.name, d.message, d.reason});
            Observe(d, policy->name, binding.name, "deny");
            continue;
          }
          if (d.action != PolicyDecision::kDeny) {
            if (d.eval_error) Observe(d, policy->name, binding.name, "allow");
            continue;
          }
          for (const auto& action : binding.validation_actions) {
            if (action == "Deny") {
              denials.push_back({policy->name, binding.name, d.message, d.reason});
              Observe(d, policy->name, binding.name, "deny");
            } else if (action == "Warn") {
              Observe(d, policy->name, binding.name, "warn");
              if (!scope) continue;
              scope->AddWarning("Validation failed for ValidatingAdmissionPolicy '" + policy->name + "' with binding '" +
                                binding.name + "': " + d.message);
            } else if (action == "Audit") {
              Observe(d, policy->name, binding.name, "audit");
              if (!scope) continue;
              json::array actions;
              for (const auto& x : binding.validation_actions) actions.emplace_back(x);
              json::object failure{{"message", d.message},
                                   {"policy", binding.policy_name},
                                   {"binding", binding.name},
                                   {"expressionIndex", static_cast<int64_t>(d.expression_index)},
                                   {"validationActions", std::move(actions)}};
              scope->AddAnnotation(kValidationFailure, am::ToJson(json::array{std::move(failure)}));
            }
          }
        }
        for (auto& ann : result.audit_annotations) {
          std::string value = ann.value.size() > kMaxAuditAnnotationValueLength
                                  ? ann.value.substr(0, kMaxAuditAnnotationValueLength)
                                  : ann.value;
          auto& values_for_key = annotations[ann.key];
          if (std::find(values_for_key.begin(), values_for_key.end(), value) == values_for_key.end()) {
            values_for_key.push_back(std::move(value));
          }
        }
      }
    }
    if (scope) {
      for (const auto& [key, values] : annotations) scope->AddAnnotation(policy->name + "/" + key, Join(values, ", "));
    }
  }
  if (denials.empty()) co_return Status();
  const Denial& d = denials.front();
  std::string message = "ValidatingAdmissionPolicy '" + d.policy + "' with binding '" + d.binding +
                        "' denied request: " + d.message;
  Status forbidden = ForbiddenFor(a, message);
  std::string reason = d.reason.empty() ? "Invalid" : d.reason;
  StatusDetails details = forbidden.details();
  details.causes.push_back(StatusCause{"", message, ""});
  Status out(ReasonToCode(reason), reason, forbidden.message());
  out.WithDetails(std::move(details));
  co_return out;
}

}  // namespace capstan::admission
