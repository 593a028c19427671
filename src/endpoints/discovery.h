// endpoints/discovery.h: API discovery as kube serves it: legacy (/api, /api/v1, /apis, /apis/<g>,
// /apis/<g>/<v>) and aggregated (APIGroupDiscoveryList, apidiscovery.k8s.io v2 and v2beta1), built
// from the same snapshot the REST handlers route with. Pure functions of the snapshot.
#pragma once

#include <boost/json/object.hpp>
#include <string>

#include "endpoints/api_registry.h"

namespace capstan::endpoints {

boost::json::object ApiVersionsJson(const ApiSnapshot& s);                        // /api
boost::json::object ApiGroupListJson(const ApiSnapshot& s);                       // /apis
std::optional<boost::json::object> ApiGroupJson(const ApiSnapshot& s, const std::string& group);  // /apis/<g>
std::optional<boost::json::object> ResourceListJson(const ApiSnapshot& s, const std::string& group,
                                                    const std::string& version);  // /api/v1, /apis/<g>/<v>
// Aggregated discovery for /api (core == true) or /apis; `version` is "v2" or "v2beta1".
boost::json::object AggregatedDiscoveryJson(const ApiSnapshot& s, bool core, const std::string& version);

// kube's discovery.StorageVersionHash: base64 of the first 8 bytes of sha256("<group>/<version>/<kind>"),
// the APIResource's storageVersionHash (legacy discovery) of a resource stored as that kind.
std::string StorageVersionHash(const std::string& group, const std::string& version, const std::string& kind);

// The aggregated discovery version an Accept header asks for ("v2", "v2beta1"), or "" for legacy.
std::string AggregatedDiscoveryVersion(std::string_view accept);

}  // namespace capstan::endpoints
