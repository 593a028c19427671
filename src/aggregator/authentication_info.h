// aggregator/authentication_info.h: the kube-system/extension-apiserver-authentication ConfigMap, as
// kube-apiserver publishes it for aggregated API servers (which read it to trust the client CA and
// the front-proxy's request headers): client-ca-file, and when request-header authentication is
// configured requestheader-client-ca-file, requestheader-allowed-names and the header names (JSON
// arrays, as kube writes them). Publish creates the ConfigMap or updates its data when it differs.
// Thread-safety: pure functions; Publish runs on the caller's coroutine.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <vector>

#include "endpoints/api_registry.h"

namespace capstan::aggregator {

struct AuthenticationInfo {
  std::string client_ca_pem;
  std::string requestheader_ca_pem;  // empty: request-header authentication not configured
  std::vector<std::string> allowed_names, username_headers, uid_headers, group_headers, extra_headers_prefix;
};

boost::json::object AuthenticationConfigMapData(const AuthenticationInfo& info);

Task<Status> PublishAuthenticationInfo(const endpoints::ApiRegistry& apis, const AuthenticationInfo& info);

}  // namespace capstan::aggregator
