// api/core/service_validation.h: kube's Service defaulting (SetDefaults_Service) and validation
// (ValidateService, ValidateServiceUpdate, ValidateServiceClusterIPsRelatedFields, the status update)
// with kube's field paths and messages. Pure functions; thread-safe.
#pragma once

#include <boost/json/object.hpp>

#include "apimachinery/field_errors.h"

namespace capstan::api::core {

// SetDefaults_Service: type ClusterIP, sessionAffinity None (and ClientIP's timeout), protocol TCP
// and targetPort = port on every port, externalTrafficPolicy Cluster for external types,
// internalTrafficPolicy Cluster, allocateLoadBalancerNodePorts for LoadBalancers.
void DefaultService(boost::json::object& svc);
// kube's dropTypeDependentFields: what an update's new type makes meaningless and the user left as it was.
void DropTypeDependentFields(boost::json::object& svc, const boost::json::object& old);
ErrorList ValidateService(const boost::json::object& svc);
ErrorList ValidateServiceUpdate(const boost::json::object& svc, const boost::json::object& old);
ErrorList ValidateServiceStatus(const boost::json::object& svc);
// ValidateServiceClusterIPsRelatedFields (also run by allocation before it allocates).
ErrorList ValidateServiceClusterIps(const boost::json::object& svc);

}  // namespace capstan::api::core
