// cmd/webhook_setup.h: what the admission webhook plugins need from the running server: the webhook
// configurations as served by admissionregistration.k8s.io/v1 (read through the REST storages of the
// API registry, so from the watch cache), and where a webhook's service reference leads (the
// service's endpoints: the first address and the port the service port targets; Capstan has no
// cluster network for ClusterIPs); and the object reads the built-in plugins make. Thread-safety: the returned objects are safe from any thread.
#pragma once

#include <memory>

#include "admission/builtin_plugins.h"
#include "admission/webhook_caller.h"
#include "admission/webhook_source.h"
#include "endpoints/api_registry.h"

namespace capstan::cmd {

std::shared_ptr<admission::WebhookSource> MakeWebhookSource(const endpoints::ApiRegistry& apis);
admission::ServiceResolver MakeServiceResolver(const endpoints::ApiRegistry& apis);

// Reads for the built-in plugins (ServiceAccount, DefaultStorageClass) through the REST storages; a
// resource that is not served is a 404.
admission::ObjectGetter MakeObjectGetter(const endpoints::ApiRegistry& apis);
admission::ObjectLister MakeObjectLister(const endpoints::ApiRegistry& apis);

}  // namespace capstan::cmd
