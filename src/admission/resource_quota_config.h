// admission/resource_quota_config.h: the ResourceQuota plugin's configuration from
// --admission-control-config-file (kube's ResourceQuotaConfiguration, apiserver.config.k8s.io/v1, or
// Configuration of resourcequota.admission.k8s.io/v1beta1 and v1alpha1): limitedResources, the
// resources (apiGroup, resource) whose usage is only allowed when a quota covers it. A usage name
// containing one of matchContains (e.g. "requests.cpu" for "cpu") that no matching quota tracks is
// refused ("insufficient quota to consume: requests.cpu"); an object matching one of matchScopes
// that no matching quota's scopes cover is refused ("insufficient quota to match these scopes:
// [{PriorityClass In [cluster-services]}]"). Immutable value; thread-safe.
#pragma once

#include <boost/json/value.hpp>
#include <optional>
#include <string>
#include <vector>

#include "admission/resource_quota_evaluator.h"
#include "apimachinery/status.h"

namespace capstan::admission::quota {

struct LimitedResource {
  std::string api_group;
  std::string resource;
  std::vector<std::string> match_contains;
  std::vector<ScopeRequirement> match_scopes;
};

struct QuotaConfiguration {
  std::vector<LimitedResource> limited_resources;
};

// The plugin's configuration as given (nullopt or null: the defaults, nothing limited). Errors are
// kube's start-up texts: an unknown apiVersion/kind, or "limitedResources[0].resource: Required value".
StatusOr<QuotaConfiguration> ParseQuotaConfiguration(const std::optional<boost::json::value>& config);

// Go's %v of a []ScopedResourceSelectorRequirement: "[{PriorityClass In [a b]}]".
std::string FormatScopes(const std::vector<ScopeRequirement>& scopes);

}  // namespace capstan::admission::quota
