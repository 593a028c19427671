#include "cmd/webhook_setup.h"

#include <boost/json.hpp>

#include "apimachinery/errors.h"

namespace capstan::cmd {

namespace json = boost::json;

namespace {

const json::array* ArrayOf(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_array() ? &v->as_array() : nullptr;
}

std::string StringOf(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

}  // namespace

std::shared_ptr<admission::WebhookSource> MakeWebhookSource(const endpoints::ApiRegistry& apis) {
  return std::make_shared<admission::ListingWebhookSource>(
      [&apis](bool mutating) -> Task<StatusOr<std::vector<registry::Object>>> {
        auto snap = apis.Snapshot();
        const auto* r = snap->FindResource("admissionregistration.k8s.io", "v1",
                                           mutating ? "mutatingwebhookconfigurations" : "validatingwebhookconfigurations",
                                           "");
        if (!r || !r->lister) co_return std::vector<registry::Object>();
        // resourceVersion 0: what the watch cache holds now, without waiting for it to prove itself
        // current (a consistent read would wait for the store's progress on every admitted write).
        registry::Context ctx;
        registry::ListOptions opts;
        opts.resource_version = "0";
        auto list = co_await r->lister->List(ctx, opts);
        if (!list.ok()) co_return list.status();
        co_return std::move(list->items);
      });
}

admission::ServiceResolver MakeServiceResolver(const endpoints::ApiRegistry& apis) {
  return [&apis](const std::string& ns, const std::string& name, int port) -> Task<StatusOr<std::string>> {
    auto snap = apis.Snapshot();
    const auto* services = snap->FindResource("", "v1", "services", "");
    const auto* endpoints = snap->FindResource("", "v1", "endpoints", "");
    if (!services || !services->getter || !endpoints || !endpoints->getter) {
      co_return Status(503, "ServiceUnavailable", "services are not served");
    }
    registry::Context ctx;
    ctx.namespace_ = ns;
    auto svc = co_await services->getter->Get(ctx, name, {});
    if (!svc.ok()) co_return Status(503, "ServiceUnavailable", "service \"" + name + "\" not found");
    // The service port the webhook names, and the endpoint port it targets (by name when it has one).
    std::string port_name;
    int target = port;
    if (const auto* spec = svc->if_contains("spec"); spec && spec->is_object()) {
      if (const json::array* ports = ArrayOf(spec->as_object(), "ports")) {
        for (const auto& p : *ports) {
          if (!p.is_object()) continue;
          const auto* pv = p.as_object().if_contains("port");
          if (!pv || !pv->is_int64() || pv->as_int64() != port) continue;
          port_name = StringOf(p.as_object(), "name");
          if (const auto* tp = p.as_object().if_contains("targetPort"); tp && tp->is_int64()) {
            target = static_cast<int>(tp->as_int64());
          }
        }
      }
    }
    auto eps = co_await endpoints->getter->Get(ctx, name, {});
    if (eps.ok()) {
      if (const json::array* subsets = ArrayOf(*eps, "subsets")) {
        for (const auto& sub : *subsets) {
          if (!sub.is_object()) continue;
          const json::array* addrs = ArrayOf(sub.as_object(), "addresses");
          const json::array* ports = ArrayOf(sub.as_object(), "ports");
          if (!addrs || addrs->empty() || !addrs->front().is_object()) continue;
          std::string ip = StringOf(addrs->front().as_object(), "ip");
          int ep_port = target;
          if (ports) {
            for (const auto& p : *ports) {
              if (!p.is_object()) continue;
              const auto* pv = p.as_object().if_contains("port");
              if (!pv || !pv->is_int64()) continue;
              if (ports->size() == 1 || StringOf(p.as_object(), "name") == port_name) {
                ep_port = static_cast<int>(pv->as_int64());
              }
            }
          }
          if (ip.find(':') != std::string::npos) ip = "[" + ip + "]";
          co_return ip + ":" + std::to_string(ep_port);
        }
      }
    }
    co_return Status(503, "ServiceUnavailable", "no endpoints available for service \"" + name + "\"");
  };
}

admission::ObjectGetter MakeObjectGetter(const endpoints::ApiRegistry& apis) {
  return [&apis](const std::string& group, const std::string& version, const std::string& resource,
                 const std::string& ns, const std::string& name) -> Task<StatusOr<registry::Object>> {
    auto snap = apis.Snapshot();
    const auto* r = snap->FindResource(group, version, resource, "");
    if (!r || !r->getter) co_return Status(404, "NotFound", "the server could not find the requested resource");
    registry::Context ctx;
    ctx.namespace_ = ns;
    co_return co_await r->getter->Get(ctx, name, {});
  };
}

admission::ObjectLister MakeObjectLister(const endpoints::ApiRegistry& apis) {
  return [&apis](const std::string& group, const std::string& version, const std::string& resource,
                 const std::string& ns) -> Task<StatusOr<std::vector<registry::Object>>> {
    auto snap = apis.Snapshot();
    const auto* r = snap->FindResource(group, version, resource, "");
    if (!r || !r->lister) co_return Status(404, "NotFound", "the server could not find the requested resource");
    registry::Context ctx;
    ctx.namespace_ = ns;
    registry::ListOptions opts;
    opts.resource_version = "0";  // from the watch cache as it is
    auto list = co_await r->lister->List(ctx, opts);
    if (!list.ok()) co_return list.status();
    co_return std::move(list->items);
  };
}

}  // namespace capstan::cmd
