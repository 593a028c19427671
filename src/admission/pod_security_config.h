// admission/pod_security_config.h: the PodSecurity plugin's configuration
// (pod-security.admission.config.k8s.io/v1, v1beta1 or v1alpha1 PodSecurityConfiguration): the
// default policy of namespaces without labels and the exempt usernames, runtime classes and
// namespaces. Decoded strictly (unknown fields are errors) and defaulted (a missing level is
// privileged, a missing version latest) as kube does, then validated. Value type; thread-safe.
#pragma once

#include <boost/json/value.hpp>
#include <string>
#include <vector>

#include "admission/pod_security_policy.h"
#include "apimachinery/status.h"

namespace capstan::admission::psa {

struct PodSecurityConfig {
  Policy defaults;  // privileged:latest for enforce, audit and warn unless configured
  std::vector<std::string> exempt_usernames;
  std::vector<std::string> exempt_runtime_classes;
  std::vector<std::string> exempt_namespaces;
};

// Decodes a configuration (null: none was given, the defaults). Errors carry kube's decoder texts
// ("Object 'Kind' is missing in ...", "strict decoding error: unknown field \"defaults.x\"").
StatusOr<PodSecurityConfig> DecodePodSecurityConfig(const boost::json::value* config);

// kube's CompleteConfiguration and ValidatePodSecurityConfiguration: bad default levels or versions,
// exempt namespaces that are not DNS labels, runtime classes that are not DNS subdomains, empty or
// duplicate entries. The message is the errors' aggregate.
Status ValidatePodSecurityConfig(const boost::json::value* config, const PodSecurityConfig& decoded);

}  // namespace capstan::admission::psa
