#include "admission/pod_security_factory.h"

#include "admission/builtin_plugins.h"
#include "admission/pod_security.h"

namespace capstan::admission {

StatusOr<std::unique_ptr<Plugin>> NewPodSecurityPlugin(const PluginDeps& deps) {
  std::optional<boost::json::value> config;
  if (deps.config) {
    auto c = deps.config->ConfigFor("PodSecurity");
    if (!c.ok()) return c.status();
    config = std::move(*c);
  }
  PodSecurityPlugin::Deps pd;
  pd.namespace_lookup = deps.namespace_lookup;
  if (deps.list) {
    ObjectLister list = deps.list;
    // A coroutine of its own, so the argument strings live until the list completes.
    pd.list_pods = [list](const std::string& ns) -> Task<StatusOr<std::vector<registry::Object>>> {
      co_return co_await list("", "v1", "pods", ns);
    };
  }
  pd.metrics = deps.webhook.metrics;
  auto p = PodSecurityPlugin::Create(config, std::move(pd));
  if (!p.ok()) return p.status();
  return std::unique_ptr<Plugin>(std::move(*p));
}

}  // namespace capstan::admission
