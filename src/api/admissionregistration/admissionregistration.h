// api/admissionregistration/admissionregistration.h: admissionregistration.k8s.io/v1
// (mutatingwebhookconfigurations, validatingwebhookconfigurations, validatingadmissionpolicies with
// status, validatingadmissionpolicybindings) and the group's install list. The objects are stored and
// validated here; enforcing them is the admission chain's work.
#pragma once

#include <vector>

#include "registry/rest_resource.h"

namespace capstan::api::admissionregistration {

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps);

// webhook_configurations.cpp and validating_admission_policy.cpp.
std::vector<registry::RestResource> MutatingWebhookConfigurations(const registry::GroupDeps& deps);
std::vector<registry::RestResource> ValidatingWebhookConfigurations(const registry::GroupDeps& deps);
std::vector<registry::RestResource> ValidatingAdmissionPolicies(const registry::GroupDeps& deps);
std::vector<registry::RestResource> ValidatingAdmissionPolicyBindings(const registry::GroupDeps& deps);

}  // namespace capstan::api::admissionregistration
