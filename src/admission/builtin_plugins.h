// admission/builtin_plugins.h: the admission plugins by name, and the chain --enable-admission-plugins /
// --disable-admission-plugins select, on top of kube-apiserver's default-enabled set, in kube's order.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "admission/admission_config.h"
#include "admission/authorize.h"
#include "admission/owner_references.h"
#include "admission/chain.h"
#include "admission/image_policy_webhook.h"
#include "admission/namespace_lifecycle.h"
#include "admission/webhook_caller.h"
#include "admission/webhook_source.h"
#include "util/clock.h"

namespace capstan::admission {

// Reads other objects through the API's REST storages (ServiceAccount, DefaultStorageClass).
using ObjectGetter = std::function<Task<StatusOr<registry::Object>>(
    const std::string& group, const std::string& version, const std::string& resource, const std::string& ns,
    const std::string& name)>;
using ObjectLister = std::function<Task<StatusOr<std::vector<registry::Object>>>(
    const std::string& group, const std::string& version, const std::string& resource, const std::string& ns)>;

// Writes an object through the API's REST storage (ResourceQuota: resourcequotas/status); the
// object's resourceVersion is the precondition (409 Conflict when stale).
using ObjectUpdater = std::function<Task<StatusOr<registry::Object>>(
    const std::string& group, const std::string& version, const std::string& resource,
    const std::string& subresource, const std::string& ns, registry::Object obj)>;

struct PluginDeps {
  NamespaceLookup namespace_lookup;
  ObjectGetter get;    // none: the plugins that need it are reported as not implemented
  ObjectLister list;
  ObjectUpdater update;  // none: ResourceQuota is reported as not implemented
  // MutatingAdmissionWebhook and ValidatingAdmissionWebhook: where the configurations come from and
  // how webhooks are reached (the caller's namespace_lookup is taken from above). No source: the two
  // plugins are reported as not implemented.
  std::shared_ptr<WebhookSource> webhook_source;
  WebhookCallerDeps webhook;
  // The server's authorizer (CertificateApproval, CertificateSigning); none: those two are reported as
  // not implemented.
  AuthorizeFunc authorize;
  // The served kinds (OwnerReferencesPermissionEnforcement, with `authorize`); none: reported as not implemented.
  KindMapper map_kind;
  // NamespaceAutoProvision; none: reported as not implemented.
  NamespaceCreator create_namespace;
  // --admission-control-config-file: each plugin's configuration (none: every plugin's defaults).
  std::shared_ptr<const AdmissionConfig> config;
  // DefaultTolerationSeconds: --default-not-ready-toleration-seconds, --default-unreachable-toleration-seconds.
  int64_t not_ready_toleration_seconds = 300;
  int64_t unreachable_toleration_seconds = 300;
  // ImagePolicyWebhook: reads its kubeConfigFile (none: the plugin cannot be built).
  std::function<StatusOr<WebhookEndpoint>(const std::string& path)> load_webhook_kubeconfig;
  // EventRateLimit's buckets refill by this clock (none: the real one).
  const Clock* clock = nullptr;
};

struct ChainBuild {
  std::unique_ptr<Chain> chain;
  std::vector<std::string> not_implemented;  // enabled plugins Capstan does not have yet
};

// 400-style error for a plugin name kube does not know.
StatusOr<ChainBuild> BuildChain(const std::vector<std::string>& enable, const std::vector<std::string>& disable,
                                const PluginDeps& deps);

// kube-apiserver 1.32's plugins in the order it runs them, and which are on by default.
const std::vector<std::string>& AllPluginsInOrder();
const std::vector<std::string>& DefaultOnPlugins();

}  // namespace capstan::admission
