// server/http/request_info.h: what a request is about, resolved from its method, path and query exactly
// as kube-apiserver's RequestInfoFactory does (verb, API prefix, group, version, namespace, resource,
// subresource, name; or a non-resource path). Pure function; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "apimachinery/status.h"
#include "server/http/query.h"

namespace capstan::http {

struct RequestInfo {
  bool is_resource_request = false;
  std::string path;
  // get, list, watch, create, update, patch, delete, deletecollection, proxy; for non-resource
  // requests the lowercased HTTP method.
  std::string verb;
  std::string api_prefix;  // "api" or "apis"
  std::string api_group;
  std::string api_version;
  std::string namespace_;
  std::string resource;
  std::string subresource;
  std::string name;
  std::vector<std::string> parts;
  std::string field_selector;
  std::string label_selector;
  // Decided once here, for every filter and the connection: IsLongRunning below.
  bool long_running = false;
};

// Resolves the request info (long_running included). A non-OK Status means the path is malformed for a resource request
// (kube answers such requests with 500 "unable to determine kind and namespace"); `info` then holds
// what was known before the failure.
Status ResolveRequestInfo(const std::string& method, const std::string& path, const Query& query, RequestInfo& info);

// Long-running requests (watches, and connect verbs such as exec/attach/log/proxy/portforward) are
// exempt from the request timeout and the in-flight limits, as kube's BasicLongRunningRequestCheck says.
bool IsLongRunning(const RequestInfo& info);

// The Kubernetes "name" rule for a path segment: not "." or "..", no "/" or "%".
bool IsValidPathSegmentName(const std::string& name);

}  // namespace capstan::http
