// endpoints/openapi_routes.h: the routes kube-apiserver documents in OpenAPI, derived from the
// ApiRegistry snapshot: per installed resource, one route per verb its storage implements (the
// installer's actions: list, create, deletecollection, the deprecated watch paths, get, replace,
// patch, delete, and the all-namespaces list/watch of namespaced resources), plus the discovery
// routes (/api/, /apis/, /apis/<group>/, /<prefix>/<version>/) and /version/.
//
// Routes are grouped into services the way kube-apiserver groups them into web services: one per
// root path ("api/v1", "apis/apps/v1", "apis/apps", "api", "apis", "version"); the v3 document of
// a service is served at /openapi/v3/<root>. Operation ids, tags, descriptions, parameters,
// consumed and produced media types, responses, x-kubernetes-action and
// x-kubernetes-group-version-kind are kube's (kube-apiserver 1.32 options types; parameter
// descriptions are not published).
//
// Pure functions of the snapshot; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "apimachinery/gvk.h"
#include "endpoints/api_registry.h"

namespace capstan::endpoints {

struct OpenApiParam {
  std::string name;
  std::string in;        // "path", "query" or "body"
  std::string type;      // "string", "integer", "boolean" (not for body)
  std::string schema;    // body: the definition name
  bool required = false;
};

struct OpenApiResponse {
  int code = 200;
  std::string description;  // "OK", "Created", "Accepted"
  std::string schema;       // definition name
};

struct OpenApiRoute {
  std::string path;    // "/api/v1/namespaces/{namespace}/configmaps/{name}"
  std::string method;  // "get", "put", "post", "patch", "delete"
  std::string operation_id;
  std::vector<std::string> tags;
  std::string description;
  std::vector<OpenApiParam> params;  // in route order; the body (if any) among them
  std::vector<std::string> consumes;
  std::vector<std::string> produces;
  std::vector<OpenApiResponse> responses;
  std::string action;                                 // x-kubernetes-action ("" for discovery)
  std::optional<apimachinery::GroupVersionKind> gvk;  // x-kubernetes-group-version-kind
};

struct OpenApiService {
  std::string root;  // "api/v1", "apis/apps/v1", "apis/apps", "api", "apis", "version"
  std::vector<OpenApiRoute> routes;
};

// Every service of the snapshot, sorted by root.
std::vector<OpenApiService> BuildOpenApiServices(const ApiSnapshot& snap);
// The routes of one installed group/version (its resources and its discovery route).
OpenApiService GroupVersionService(const GroupVersionEntry& gv);

// kube's operation id and tags for a route: the verb prefix, then group and version from the path
// ("listCoreV1NamespacedConfigMap", tag "core_v1").
void OperationIdAndTags(const std::string& op, const std::string& path, std::string* id, std::vector<std::string>* tags);

// The definition name of a kind's list ("io.k8s.api.core.v1.ConfigMapList" for ConfigMap).
std::string ListDefinitionName(const registry::ResourceInfo& info);

// A path's parameters split as kube's builder does: those every route of the path has (non-body)
// go to the path item; the rest stay on each operation. Both lists sorted by (name, in).
struct PathParams {
  std::vector<OpenApiParam> common;
  std::vector<std::vector<OpenApiParam>> per_route;  // parallel to the routes given
};
PathParams SplitPathParams(const std::vector<const OpenApiRoute*>& routes);

}  // namespace capstan::endpoints
