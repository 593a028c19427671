// api/apiextensions/api_approval.h: kube's API review rule for CRDs in the community's protected
// groups (k8s.io, kubernetes.io and their subdomains): such a CRD must carry the annotation
// api-approved.kubernetes.io with the URL of its approval, or a reason starting with "unapproved";
// validation refuses a CRD without a valid value (unless the value is unchanged by an update), and
// the CRD's KubernetesAPIApprovalPolicyConformant condition says which case applies (kube's
// apiapproval controller). Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>

#include "apimachinery/field_errors.h"
#include "registry/rest.h"

namespace capstan::api::apiextensions {

inline constexpr const char* kApiApprovedAnnotation = "api-approved.kubernetes.io";

bool IsProtectedCommunityGroup(const std::string& group);

enum class ApiApprovalState { kInvalid, kApproved, kBypassed, kMissing };
// The state of the annotation's value (absent: empty) and kube's reason text for it.
ApiApprovalState GetApiApprovalState(const std::string& annotation, std::string* reason);

// validateAPIApproval: `old` is null on create.
ErrorList ValidateApiApproval(const registry::Object& crd, const registry::Object* old);

// Sets or leaves KubernetesAPIApprovalPolicyConformant on a CRD of a protected group; nothing for
// other groups.
void SetApiApprovalCondition(registry::Object& crd, const std::string& now);

}  // namespace capstan::api::apiextensions
