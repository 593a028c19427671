// api/admissionregistration/admission_validation.h: kube's admissionregistration.k8s.io/v1 defaulting and
// validation (pkg/apis/admissionregistration/v1/defaults.go, validation/validation.go) for webhook
// configurations, ValidatingAdmissionPolicies and their bindings: webhook names (fully qualified),
// clientConfig (exactly one of an https URL without user info, query or fragment and a service with
// name, namespace, port and path segments), rules (operations, groups, versions, resources and
// subresources with their wildcard rules, scope), failure/match/reinvocation policies, sideEffects
// (None or NoneOnDryRun for new objects), timeouts of 1-30s, admissionReviewVersions (v1 or v1beta1),
// selectors, match conditions, paramKind, paramRef, match resources and validation actions.
//
// matchConditions are compiled in kube's admission environment (cel/admission_expressions.h): a
// syntax or type error, or a result that is not bool, is kube's Invalid error on the expression; so
// are a policy's variables, validations (bool), messageExpressions (string) and audit annotation
// valueExpressions (string or null). Update rules follow kube: what
// an object already stored breaks (side effects, review versions, duplicate names, selector values)
// stays allowed. Pure functions; thread-safe.
#pragma once

#include <boost/json/object.hpp>
#include <string_view>

#include "apimachinery/field_errors.h"

namespace capstan::api::admissionregistration {

// SetDefaults_* for each webhook of a configuration (`mutating`: also reinvocationPolicy).
void DefaultWebhooks(boost::json::object& config, bool mutating);
// SetDefaults_* of a ValidatingAdmissionPolicy's spec or a binding's spec.
void DefaultPolicy(boost::json::object& policy);
void DefaultBinding(boost::json::object& binding);

// ValidateMutating/ValidatingWebhookConfiguration (old: the stored object on update, else null).
ErrorList ValidateWebhookConfiguration(const boost::json::object& config, const boost::json::object* old,
                                       bool mutating);
ErrorList ValidatePolicy(const boost::json::object& policy, const boost::json::object* old);
ErrorList ValidatePolicyStatus(const boost::json::object& policy);
ErrorList ValidateBinding(const boost::json::object& binding);

// kube's webhook.ValidateWebhookURL with https forced (Go's url.Parse errors, scheme, host, user
// info, query, fragment); also used for CRD conversion webhooks.
ErrorList ValidateWebhookUrl(const FieldPath& p, std::string_view url);

}  // namespace capstan::api::admissionregistration
