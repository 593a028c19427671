// endpoints/openapi_v3.h: the OpenAPI 3.0 documents kube-apiserver serves under /openapi/v3: one
// per service (openapi_routes.h: "api/v1", "apis/apps/v1", "apis/apps", "api", "apis", "version")
// with that service's paths and, under components.schemas, the definitions they reference
// (openapi_schema.h, v3 form), plus the BearerToken security scheme; and the index
// {"paths": {"<root>": {"serverRelativeURL": "/openapi/v3/<root>?hash=<etag>"}}}.
//
// Pure functions; thread-safe.
#pragma once

#include <boost/json/object.hpp>
#include <map>
#include <string>
#include <vector>

#include "endpoints/openapi_routes.h"
#include "endpoints/openapi_schema.h"
#include "endpoints/openapi_v2.h"

namespace capstan::endpoints {

// The document of one service. Definitions no source defines are appended to `missing`.
boost::json::object BuildOpenApiV3Document(const OpenApiService& service, const OpenApiDefinitions& defs,
                                           const OpenApiInfo& info, std::vector<std::string>* missing = nullptr);

// A route parameter in OpenAPI 3.0 form.
boost::json::object OpenApiV3Parameter(const OpenApiParam& p);

// "/openapi/v3/<root>?hash=<etag>", the query escaped as Go's url.Values.Encode does.
std::string V3ServerRelativeUrl(const std::string& root, const std::string& etag);

// The index document: root -> etag of that root's document.
boost::json::object BuildOpenApiV3Index(const std::map<std::string, std::string>& etags_by_root);

}  // namespace capstan::endpoints
