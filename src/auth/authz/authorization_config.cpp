#include "auth/authz/authorization_config.h"

#include <boost/json.hpp>
#include <algorithm>
#include <cctype>
#include <filesystem>

#include "apimachinery/field_errors.h"
#include "apimachinery/validation.h"
#include "apimachinery/config_document.h"
#include "auth/authz/webhook_match_conditions.h"
#include "util/duration.h"
#include "util/strings.h"

namespace capstan::authz {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

constexpr char kSchemeName[] = "k8s.io/apiserver/pkg/apis/apiserver/load/load.go:32";
constexpr char kLoadPrefix[] = "failed to load AuthorizationConfiguration from file: ";
// modes.AuthorizationModeChoices, sorted as sets.List sorts them.
const std::vector<std::string> kKnownTypes = {"ABAC", "AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook"};

Status LoadError(const std::string& msg) { return Status(400, "BadRequest", kLoadPrefix + msg); }

WebhookAuthorizerConfig DecodeWebhook(am::ConfigDecoder& d, const json::object& o, const std::string& prefix) {
  WebhookAuthorizerConfig w;
  d.Unknown(o, prefix, {"authorizedTTL", "unauthorizedTTL", "timeout", "subjectAccessReviewVersion",
                        "matchConditionSubjectAccessReviewVersion", "failurePolicy", "connectionInfo", "matchConditions"});
  const std::string go = "WebhookConfiguration.authorizers.webhook.";
  d.Duration(o, "authorizedTTL", go + "authorizedTTL", w.authorized_ttl);
  d.Duration(o, "unauthorizedTTL", go + "unauthorizedTTL", w.unauthorized_ttl);
  d.Duration(o, "timeout", go + "timeout", w.timeout);
  d.String(o, "subjectAccessReviewVersion", go + "subjectAccessReviewVersion", w.subject_access_review_version);
  d.String(o, "matchConditionSubjectAccessReviewVersion", go + "matchConditionSubjectAccessReviewVersion",
           w.match_condition_subject_access_review_version);
  d.String(o, "failurePolicy", go + "failurePolicy", w.failure_policy);
  if (const json::object* ci = d.Object(o, "connectionInfo", go + "connectionInfo", "v1.WebhookConnectionInfo")) {
    d.Unknown(*ci, prefix + "connectionInfo.", {"type", "kubeConfigFile"});
    d.String(*ci, "type", "WebhookConnectionInfo.authorizers.webhook.connectionInfo.type", w.connection_type);
    if (const json::value* kc = ci->if_contains("kubeConfigFile"); kc && !kc->is_null()) {
      std::string file;
      d.String(*ci, "kubeConfigFile", "WebhookConnectionInfo.authorizers.webhook.connectionInfo.kubeConfigFile", file);
      w.kubeconfig_file = std::move(file);
    }
  }
  if (const json::array* mcs = d.Array(o, "matchConditions", go + "matchConditions", "[]v1.WebhookMatchCondition")) {
    for (size_t i = 0; i < mcs->size(); ++i) {
      const json::value& mc = (*mcs)[i];
      if (!mc.is_object()) {
        d.TypeError(mc, go + "matchConditions", "v1.WebhookMatchCondition");
        continue;
      }
      d.Unknown(mc.get_object(), prefix + "matchConditions[" + std::to_string(i) + "].", {"expression"});
      std::string e;
      d.String(mc.get_object(), "expression", "WebhookMatchCondition.authorizers.webhook.matchConditions.expression", e);
      w.match_conditions.push_back(std::move(e));
    }
  }
  // SetDefaults_WebhookConfiguration.
  if (w.authorized_ttl.count() == 0) w.authorized_ttl = std::chrono::minutes(5);
  if (w.unauthorized_ttl.count() == 0) w.unauthorized_ttl = std::chrono::seconds(30);
  return w;
}

// kube's ValidateWebhookConfiguration; `path` is the authorizer's (kube reports webhook fields there).
void ValidateWebhook(const WebhookAuthorizerConfig& c, const FieldPath& path, ErrorList& errs) {
  if (c.timeout.count() == 0) {
    errs.push_back(RequiredError(path.Child("timeout"), ""));
  } else if (c.timeout > std::chrono::seconds(30) || c.timeout.count() < 0) {
    errs.push_back(InvalidError(path.Child("timeout"), FormatGoDuration(c.timeout), "must be > 0s and <= 30s"));
  }
  if (c.authorized_ttl.count() < 0) {
    errs.push_back(InvalidError(path.Child("authorizedTTL"), FormatGoDuration(c.authorized_ttl), "must be > 0s"));
  }
  if (c.unauthorized_ttl.count() < 0) {
    errs.push_back(InvalidError(path.Child("unauthorizedTTL"), FormatGoDuration(c.unauthorized_ttl), "must be > 0s"));
  }
  if (c.subject_access_review_version.empty()) {
    errs.push_back(RequiredError(path.Child("subjectAccessReviewVersion"), ""));
  } else if (c.subject_access_review_version != "v1" && c.subject_access_review_version != "v1beta1") {
    errs.push_back(NotSupportedError(path.Child("subjectAccessReviewVersion"), c.subject_access_review_version, {"v1", "v1beta1"}));
  }
  if (c.match_condition_subject_access_review_version.empty()) {
    if (!c.match_conditions.empty()) {
      errs.push_back(RequiredError(path.Child("matchConditionSubjectAccessReviewVersion"),
                                   "required if match conditions are specified"));
    }
  } else if (c.match_condition_subject_access_review_version != "v1") {
    errs.push_back(NotSupportedError(path.Child("matchConditionSubjectAccessReviewVersion"),
                                     c.match_condition_subject_access_review_version, {"v1"}));
  }
  if (c.failure_policy.empty()) {
    errs.push_back(RequiredError(path.Child("failurePolicy"), ""));
  } else if (c.failure_policy != "NoOpinion" && c.failure_policy != "Deny") {
    errs.push_back(NotSupportedError(path.Child("failurePolicy"), c.failure_policy, {"NoOpinion", "Deny"}));
  }
  const FieldPath kc = path.Child("connectionInfo").Child("kubeConfigFile");
  if (c.connection_type.empty()) {
    errs.push_back(RequiredError(path.Child("connectionInfo").Child("type"), ""));
  } else if (c.connection_type == "InClusterConfig") {
    if (c.kubeconfig_file) errs.push_back(InvalidError(kc, *c.kubeconfig_file, "can only be set when type=KubeConfigFile"));
  } else if (c.connection_type == "KubeConfigFile") {
    std::error_code ec;
    if (!c.kubeconfig_file || c.kubeconfig_file->empty()) {
      errs.push_back(RequiredError(kc, ""));
    } else if (!std::filesystem::path(*c.kubeconfig_file).is_absolute()) {
      errs.push_back(InvalidError(kc, *c.kubeconfig_file, "must be an absolute path"));
    } else if (auto st = std::filesystem::status(*c.kubeconfig_file, ec); ec || !std::filesystem::exists(st)) {
      errs.push_back(InvalidError(kc, *c.kubeconfig_file,
                                  "error loading file: stat " + *c.kubeconfig_file + ": no such file or directory"));
    } else if (!std::filesystem::is_regular_file(st)) {
      errs.push_back(InvalidError(kc, *c.kubeconfig_file, "must be a regular file"));
    }
  } else {
    errs.push_back(NotSupportedError(path.Child("connectionInfo").Child("type"), c.connection_type,
                                     {"InClusterConfig", "KubeConfigFile"}));
  }
  auto compiled = WebhookMatchConditions::Compile(c.match_conditions, path);
  for (auto& e : compiled.errors) errs.push_back(std::move(e));
}

// kube's ValidateAuthorizationConfiguration (known types: kube-apiserver's modes; Webhook repeatable).
ErrorList Validate(const AuthorizationConfiguration& c) {
  ErrorList errs;
  const FieldPath root;
  if (c.authorizers.empty()) {
    errs.push_back(RequiredError(root.Child("authorizers"), "at least one authorization mode must be defined"));
  }
  std::set<std::string> seen_types, seen_names;
  for (size_t i = 0; i < c.authorizers.size(); ++i) {
    const AuthorizerConfig& a = c.authorizers[i];
    const FieldPath p = root.Child("authorizers").Index(i);
    if (a.type.empty()) {
      errs.push_back(RequiredError(p.Child("type"), ""));
      continue;
    }
    if (std::find(kKnownTypes.begin(), kKnownTypes.end(), a.type) == kKnownTypes.end()) {
      errs.push_back(NotSupportedError(p.Child("type"), a.type, kKnownTypes));
      continue;
    }
    if (seen_types.count(a.type) && a.type != "Webhook") {
      errs.push_back(DuplicateError(p.Child("type"), a.type));
      continue;
    }
    seen_types.insert(a.type);
    if (a.name.empty()) {
      errs.push_back(RequiredError(p.Child("name"), ""));
    } else if (seen_names.count(a.name)) {
      errs.push_back(DuplicateError(p.Child("name"), a.name));
    } else if (auto problems = am::IsDNS1123Subdomain(a.name); !problems.empty()) {
      errs.push_back(InvalidError(p.Child("name"), a.name, "authorizer name is invalid: " + Join(problems, ", ")));
    }
    seen_names.insert(a.name);
    if (a.type == "Webhook") {
      if (!a.webhook) {
        errs.push_back(RequiredError(p.Child("webhook"), "required when type=Webhook"));
        continue;
      }
      ValidateWebhook(*a.webhook, p, errs);
    } else if (a.webhook) {
      errs.push_back(InvalidError(p.Child("webhook"), "non-null", "may only be specified when type=Webhook"));
    }
  }
  return errs;
}

}  // namespace

std::string AuthorizerNameForMode(std::string_view mode) {
  std::string s(mode);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

StatusOr<AuthorizationConfiguration> LoadAuthorizationConfiguration(std::string_view data,
                                                                    const std::set<std::string>& required_types) {
  static const std::set<std::string> kVersions = {"apiserver.config.k8s.io/v1", "apiserver.config.k8s.io/v1beta1",
                                                  "apiserver.config.k8s.io/v1alpha1"};
  auto doc = am::DecodeConfigDocument(data, "AuthorizationConfiguration", kVersions, kSchemeName);
  if (!doc.ok()) return LoadError(doc.status().message());
  const json::object& o = doc->object;

  am::ConfigDecoder d;
  d.Unknown(o, "", {"apiVersion", "kind", "authorizers"});
  AuthorizationConfiguration c;
  if (const json::array* list = d.Array(o, "authorizers", "AuthorizationConfiguration.authorizers", "[]v1.AuthorizerConfiguration")) {
    for (size_t i = 0; i < list->size(); ++i) {
      const json::value& x = (*list)[i];
      if (!x.is_object()) {
        d.TypeError(x, "AuthorizationConfiguration.authorizers", "v1.AuthorizerConfiguration");
        continue;
      }
      const std::string prefix = "authorizers[" + std::to_string(i) + "].";
      AuthorizerConfig a;
      d.Unknown(x.get_object(), prefix, {"type", "name", "webhook"});
      d.String(x.get_object(), "type", "AuthorizerConfiguration.authorizers.type", a.type, "v1.AuthorizerType");
      d.String(x.get_object(), "name", "AuthorizerConfiguration.authorizers.name", a.name);
      if (const json::object* w = d.Object(x.get_object(), "webhook", "AuthorizerConfiguration.authorizers.webhook",
                                           "v1.WebhookConfiguration")) {
        a.webhook = DecodeWebhook(d, *w, prefix + "webhook.");
      }
      c.authorizers.push_back(std::move(a));
    }
  }
  if (!d.type_error.empty()) return LoadError(d.type_error);
  if (std::string strict = am::StrictDecodingError(d.unknown, doc->strict_errors); !strict.empty()) return LoadError(strict);

  if (ErrorList errs = Validate(c); !errs.empty()) return Status(400, "BadRequest", AggregateMessage(errs));
  // kube-apiserver's own checks (LoadAndValidateData).
  std::vector<std::string> errors;
  std::set<std::string> seen;
  for (const auto& a : c.authorizers) {
    if (a.type == "Webhook") continue;
    seen.insert(a.type);
    std::string expected = AuthorizerNameForMode(a.type);
    if (a.name != expected) {
      errors.push_back("expected name " + expected + " for authorizer " + a.type + " instead of " + a.name);
    }
  }
  std::vector<std::string> missing;
  for (const auto& t : required_types) {
    if (!seen.count(t)) missing.push_back(t);
  }
  if (!missing.empty()) errors.push_back("missing required types: [" + Join(missing, " ") + "]");
  if (!errors.empty()) return Status(400, "BadRequest", AggregateErrors(errors));
  return c;
}

}  // namespace capstan::authz
