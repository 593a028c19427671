// aggregator/api_service_info.h: the pure parts of serving an APIService backed by a service, as
// kube-aggregator does: reading an APIService object, the request headers a proxied request carries
// (kube's front-proxy/request-header convention), ordering group/versions by priority, and turning an
// aggregated server's APIResourceList into an aggregated-discovery (apidiscovery.k8s.io) version entry.
// Thread-safety: pure functions and plain values.
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <vector>

#include "apimachinery/user_info.h"
#include "server/http/headers.h"

namespace capstan::aggregator {

struct ApiServiceInfo {
  std::string name;  // "<version>.<group>"
  std::string group;
  std::string version;
  bool remote = false;  // spec.service set
  std::string service_namespace, service_name;
  int port = 443;
  std::string ca_pem;  // spec.caBundle decoded
  bool insecure_skip_tls_verify = false;
  int64_t group_priority_minimum = 0;
  int64_t version_priority = 0;
  bool available = false;  // status condition Available == True
  std::string resource_version;
};

// Reads an APIService; nullopt when it names no group/version.
std::optional<ApiServiceInfo> ParseApiService(const boost::json::object& svc);

// Sets X-Remote-User, X-Remote-Group (one per group) and X-Remote-Extra-<escaped key> (one per value)
// after removing the client's Authorization, X-Remote-* and hop-by-hop headers.
void SetProxyHeaders(http::Headers& h, const UserInfo& user);

// Go's url.PathEscape as kube applies it to extra keys.
std::string EscapeExtraKey(const std::string& key);

// Groups in kube's /apis order: higher groupPriorityMinimum first (a group's priority is the highest of
// its APIServices), then by name. Versions of a group: higher versionPriority first, then kube's
// version order (GA > beta > alpha, higher numbers first; others alphabetically last).
struct GroupOrder {
  std::string group;
  std::vector<std::string> versions;  // preferred first
};
std::vector<GroupOrder> OrderGroups(const std::vector<ApiServiceInfo>& services);

// An APIResourceList (legacy discovery of one group/version) as an APIVersionDiscovery entry.
boost::json::object VersionDiscoveryFromResourceList(const boost::json::object& list, const std::string& group,
                                                     const std::string& version, bool stale);

}  // namespace capstan::aggregator
