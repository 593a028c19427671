// admission/admission_review.h: admission.k8s.io/v1 AdmissionReview, the body Capstan posts to an
// admission webhook and the answer it expects back.
//
// MakeReview builds the request kube sends: uid, kind, resource, subResource, requestKind/Resource/
// SubResource (the same: Capstan serves one version of each resource), name, namespace, operation,
// userInfo, object (null for DELETE), oldObject (UPDATE and DELETE), dryRun and options
// (CreateOptions/UpdateOptions/DeleteOptions). VerifyResponse checks an answer as kube's
// VerifyAdmissionResponse does, with kube's texts ("expected response.uid=...", "expected webhook
// response of admission.k8s.io/v1, Kind=AdmissionReview, got ...", "webhook returned response.patch
// but not response.patchType"). Pure functions; thread-safe.
#pragma once

#include <boost/json/object.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "admission/plugin.h"

namespace capstan::admission {

boost::json::object MakeReview(const Attributes& a, const std::string& uid, const registry::Object* object);

struct ReviewResult {
  bool allowed = false;
  std::optional<boost::json::value> result;  // response.status, a metav1.Status
  std::string patch;                         // decoded JSON patch, "" when none
  std::vector<std::string> warnings;
  std::map<std::string, std::string> audit_annotations;
};

// An error is the reason text (the caller wraps it as kube does: "received invalid webhook response: ...").
StatusOr<ReviewResult> VerifyResponse(const std::string& uid, bool mutating, std::string_view body);

// kube's webhookerrors.ToStatusErr: the webhook's refusal as the client sees it.
Status DeniedStatus(const std::string& webhook, const std::optional<boost::json::value>& result);

}  // namespace capstan::admission
