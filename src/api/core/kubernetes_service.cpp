#include "api/core/kubernetes_service.h"

#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "api/core/core_helpers.h"
#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"
#include "registry/ip_range.h"
#include "util/log.h"

namespace capstan::api::core {

namespace am = capstan::apimachinery;

namespace {

constexpr const char* kName = "kubernetes";

registry::Context DefaultNamespace() {
  registry::Context ctx;
  ctx.namespace_ = "default";
  return ctx;
}

json::array ServicePorts(int port) {
  return json::array{json::object{{"name", "https"}, {"protocol", "TCP"}, {"port", 443}, {"targetPort", port}}};
}

// The interface of the default IPv4 route, from /proc/net/route.
std::string DefaultRouteInterface() {
  std::ifstream f("/proc/net/route");
  std::string line;
  std::getline(f, line);  // header
  while (std::getline(f, line)) {
    std::istringstream in(line);
    std::string iface, dest;
    if (in >> iface >> dest && dest == "00000000") return iface;
  }
  return "";
}

}  // namespace

std::string KubernetesServiceController::ChoosePublicIp(const std::string& advertise_address, const std::string& bind_address) {
  if (auto a = registry::IpAddress::Parse(advertise_address); a && !a->IsUnspecified()) return a->String();
  if (auto b = registry::IpAddress::Parse(bind_address); b && !b->IsUnspecified() && !b->IsLoopback()) return b->String();
  std::string route_iface = DefaultRouteInterface();
  struct ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return "";
  std::string chosen, fallback;
  for (auto* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || (i->ifa_flags & IFF_LOOPBACK) || !(i->ifa_flags & IFF_UP)) continue;
    registry::IpAddress ip;
    const auto* sin = reinterpret_cast<const sockaddr_in*>(i->ifa_addr);
    std::memcpy(ip.bytes.data(), &sin->sin_addr, 4);
    if (ip.bytes[0] == 169 && ip.bytes[1] == 254) continue;
    if (fallback.empty()) fallback = ip.String();
    if (chosen.empty() && route_iface == i->ifa_name) chosen = ip.String();
  }
  freeifaddrs(list);
  return chosen.empty() ? fallback : chosen;
}

Task<Status> KubernetesServiceController::EnsureService() {
  auto* getter = dynamic_cast<registry::Getter*>(c_.services);
  auto* creater = dynamic_cast<registry::Creater*>(c_.services);
  auto* updater = dynamic_cast<registry::Updater*>(c_.services);
  if (!getter || !creater || !updater) co_return am::NewInternalError("services are not served");
  registry::Context ctx = DefaultNamespace();
  auto existing = co_await getter->Get(ctx, kName, {});
  if (!existing.ok()) {
    if (!am::IsNotFound(existing.status())) co_return existing.TakeStatus();
    registry::Object svc;
    svc["apiVersion"] = "v1";
    svc["kind"] = "Service";
    svc["metadata"] = json::object{{"name", kName},
                                   {"namespace", "default"},
                                   {"labels", json::object{{"component", "apiserver"}, {"provider", "kubernetes"}}}};
    json::object spec;
    spec["ports"] = ServicePorts(c_.port);
    spec["clusterIP"] = c_.cluster_ip;
    spec["sessionAffinity"] = "None";
    spec["type"] = "ClusterIP";
    svc["spec"] = std::move(spec);
    auto r = co_await creater->Create(ctx, std::move(svc), {});
    if (!r.ok() && !am::IsAlreadyExists(r.status())) co_return r.TakeStatus();
    co_return Status();
  }
  // kube resets the ports and the type when someone changed them.
  const auto* ports = PathAt(*existing, {"spec", "ports"});
  bool ports_ok = ports && ports->is_array() && ports->get_array().size() == 1 && ports->get_array()[0].is_object();
  if (ports_ok) {
    const auto& p = ports->get_array()[0].get_object();
    ports_ok = StrOf(p.if_contains("name")) == "https" && IntOf(p.if_contains("port")) == 443 &&
               StrOf(p.if_contains("protocol")) == "TCP" && IntOf(p.if_contains("targetPort")) == c_.port;
  }
  bool type_ok = StrOf(PathAt(*existing, {"spec", "type"})) == "ClusterIP";
  if (ports_ok && type_ok) co_return Status();
  LogWarn("resetting the kubernetes service", {{"port", std::to_string(c_.port)}});
  int port = c_.port;
  auto r = co_await updater->Update(
      ctx, kName,
      [port](const registry::Object* cur) -> Task<StatusOr<registry::Object>> {
        if (!cur) co_return am::NewNotFound({"", "services"}, kName);
        registry::Object next = *cur;
        json::object& spec = ObjectField(next, "spec");
        spec["ports"] = ServicePorts(port);
        spec["type"] = "ClusterIP";
        co_return next;
      },
      {});
  co_return r.ok() ? Status() : r.TakeStatus();
}

Task<Status> KubernetesServiceController::RefreshLease() {
  std::string key = c_.prefix + "/masterleases/" + c_.public_ip;
  const int64_t ttl = c_.lease_ttl.count();
  const std::string ip = c_.public_ip;
  auto r = co_await c_.store->GuaranteedUpdate(
      key, {}, true, [ip, ttl](const registry::Object* cur) -> Task<StatusOr<storage::UpdateResult>> {
        registry::Object lease = cur ? *cur : registry::Object();
        lease["kind"] = "Endpoints";
        lease["apiVersion"] = "v1";
        json::object& md = ObjectField(lease, "metadata");
        md["name"] = ip;
        // The store skips writes that change nothing; the generation makes each refresh a write (and so
        // renews the TTL), as kube's lease storage does.
        md["generation"] = IntOf(md.if_contains("generation")) + 1;
        lease["subsets"] = json::array{json::object{{"addresses", json::array{json::object{{"ip", ip}}}}}};
        co_return storage::UpdateResult{std::move(lease), ttl};
      });
  co_return r.ok() ? Status() : r.TakeStatus();
}

Task<Status> KubernetesServiceController::ReconcileEndpoints(bool remove_self) {
  auto* getter = dynamic_cast<registry::Getter*>(c_.endpoints);
  auto* creater = dynamic_cast<registry::Creater*>(c_.endpoints);
  auto* updater = dynamic_cast<registry::Updater*>(c_.endpoints);
  if (!getter || !creater || !updater) co_return am::NewInternalError("endpoints are not served");
  auto leases = co_await c_.store->GetList(c_.prefix + "/masterleases", {});
  if (!leases.ok()) co_return leases.TakeStatus();
  std::vector<std::string> ips;
  for (const auto& l : leases->items) {
    std::string ip(am::GetName(l));
    if (remove_self && ip == c_.public_ip) continue;
    if (!ip.empty()) ips.push_back(ip);
  }
  std::sort(ips.begin(), ips.end());
  ips.erase(std::unique(ips.begin(), ips.end()), ips.end());
  if (ips.empty() && !remove_self) {
    co_return am::NewInternalError("no API server IP addresses were listed in storage, refusing to erase all endpoints for the kubernetes Service");
  }
  json::array addresses;
  for (const auto& ip : ips) addresses.push_back(json::object{{"ip", ip}});
  json::array ports = json::array{json::object{{"name", "https"}, {"port", c_.port}, {"protocol", "TCP"}}};
  json::array subsets;
  if (!addresses.empty()) subsets.push_back(json::object{{"addresses", addresses}, {"ports", ports}});
  registry::Context ctx = DefaultNamespace();
  auto existing = co_await getter->Get(ctx, kName, {});
  if (!existing.ok() && !am::IsNotFound(existing.status())) co_return existing.TakeStatus();
  auto desired = [&](registry::Object ep) {
    ep["apiVersion"] = "v1";
    ep["kind"] = "Endpoints";
    json::object& md = ObjectField(ep, "metadata");
    md["name"] = kName;
    md["namespace"] = "default";
    ObjectField(md, "labels")["endpointslice.kubernetes.io/skip-mirror"] = "true";
    if (subsets.empty()) {
      ep.erase("subsets");
    } else {
      ep["subsets"] = subsets;
    }
    return ep;
  };
  registry::Object result;
  if (!existing.ok()) {
    auto r = co_await creater->Create(ctx, desired(registry::Object()), {});
    if (!r.ok() && !am::IsAlreadyExists(r.status())) co_return r.TakeStatus();
    if (r.ok()) result = std::move(*r);
  } else {
    registry::Object want = desired(*existing);
    if (want == *existing) {
      result = std::move(*existing);
    } else {
      auto r = co_await updater->Update(
          ctx, kName,
          [&](const registry::Object* cur) -> Task<StatusOr<registry::Object>> {
            if (!cur) co_return desired(registry::Object());
            co_return desired(*cur);
          },
          {});
      if (!r.ok()) co_return r.TakeStatus();
      result = std::move(r->object);
    }
  }
  if (c_.endpoint_slices && !result.empty()) CO_RETURN_IF_ERROR(co_await c_.endpoint_slices(result));
  co_return Status();
}

Task<Status> KubernetesServiceController::ReconcileOnce() {
  Status svc = co_await EnsureService();
  if (!svc.ok()) LogWarn("kubernetes service", {{"error", svc.message()}});
  if (c_.public_ip.empty() || !c_.reconcile_endpoints) co_return svc;
  CO_RETURN_IF_ERROR(co_await RefreshLease());
  CO_RETURN_IF_ERROR(co_await ReconcileEndpoints(false));
  co_return svc;
}

Task<Status> KubernetesServiceController::RemoveSelf() {
  if (c_.public_ip.empty() || !c_.reconcile_endpoints) co_return Status();
  auto d = co_await c_.store->Delete(c_.prefix + "/masterleases/" + c_.public_ip, {}, nullptr);
  if (!d.ok() && !d.status().IsStorage(StorageCode::kKeyNotFound)) co_return d.TakeStatus();
  co_return co_await ReconcileEndpoints(true);
}

void KubernetesServiceController::Start() {
  thread_ = std::thread([this] {
    for (;;) {
      Status st = SyncWait(ReconcileOnce());
      if (!st.ok()) LogWarn("kubernetes service endpoints", {{"error", st.message()}});
      std::unique_lock lock(mu_);
      if (cv_.wait_for(lock, c_.interval, [this] { return stopping_; })) break;
    }
  });
}

void KubernetesServiceController::Stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_ || !thread_.joinable()) {
      stopping_ = true;
      return;
    }
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
  Status st = SyncWait(RemoveSelf());
  if (!st.ok()) LogWarn("removing this server from the kubernetes endpoints", {{"error", st.message()}});
}

}  // namespace capstan::api::core
