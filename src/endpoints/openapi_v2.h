// endpoints/openapi_v2.h: the Swagger 2.0 document kube-apiserver serves at /openapi/v2: every
// route of every service (openapi_routes.h) under "paths", the definitions they reference
// (transitively, openapi_schema.h) under "definitions", kube's shared "parameters" (each parameter
// that is not specific to one kind is written once and referenced as "#/parameters/<name>-<hash>"),
// and the BearerToken security definition with its 401 response on every operation.
//
// Pure function of its inputs; thread-safe.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <vector>

#include "endpoints/openapi_routes.h"
#include "endpoints/openapi_schema.h"

namespace capstan::endpoints {

struct OpenApiInfo {
  std::string title = "Kubernetes";
  std::string version;  // the server's gitVersion
};

// The Swagger document of `services`. Definitions no source defines are appended to `missing`.
boost::json::object BuildSwaggerDocument(const std::vector<OpenApiService>& services, const OpenApiDefinitions& defs,
                                         const OpenApiInfo& info, std::vector<std::string>* missing = nullptr);

// The name kube gives a shared parameter: "<name>-<8 characters of URL-safe base64 of the
// FNV-1 64-bit hash of its JSON>".
std::string SharedParameterName(const std::string& param_name, const std::string& param_json);

// A route parameter in Swagger 2.0 form.
boost::json::object SwaggerParameter(const OpenApiParam& p);

// The parts both documents share: the security scheme and the 401 every operation may answer.
boost::json::object BearerTokenScheme();

}  // namespace capstan::endpoints
