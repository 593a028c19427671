// auth/authn/object_getter.h: how authenticators read the API objects behind a credential (the
// service account, secret, pod or node a service-account token is bound to; a bootstrap-token
// secret). cmd/ implements it with the served REST storages (the same path a GET takes, without
// admission or authorization), so authn does not depend on the registry. A missing object is a
// 404 NotFound Status with kube's message (`secrets "x" not found`). Must be safe to call concurrently.
#pragma once

#include <boost/json/object.hpp>
#include <functional>
#include <string>

#include "apimachinery/status.h"
#include "util/task.h"

namespace capstan::authn {

// resource: "serviceaccounts", "secrets", "pods" or "nodes"; namespace_ empty for nodes.
using ObjectGetter = std::function<Task<StatusOr<boost::json::object>>(
    const std::string& resource, const std::string& namespace_, const std::string& name)>;

}  // namespace capstan::authn
