// api/discovery/kubernetes_endpoint_slice.cpp: the EndpointSlice kube-apiserver's endpoint reconciler
// keeps next to the default/kubernetes Endpoints (kube's EndpointsAdapter): built from the Endpoints
// object, written through the endpointslices storage so validation and watches see it as any write.
#include "api/common.h"
#include "api/discovery/discovery.h"
#include "api/networking/validators.h"
#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"

namespace capstan::api::discovery {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

bool IsIpv6(std::string_view ip) {
  auto parsed = catalog::ParseIp(ip);
  return parsed && parsed->v6;
}

json::array EndpointsFrom(const json::array* addresses, bool v6, bool ready) {
  json::array out;
  if (!addresses) return out;
  for (const auto& a : *addresses) {
    if (!a.is_object()) continue;
    const json::object& addr = a.get_object();
    std::string ip = StringAt(addr, "ip");
    if (IsIpv6(ip) != v6) continue;
    json::object ep;
    ep["addresses"] = json::array{json::value(ip)};
    ep["conditions"] = json::object{{"ready", ready}};
    if (const json::value* ref = addr.if_contains("targetRef"); ref && ref->is_object()) ep["targetRef"] = *ref;
    if (auto node = catalog::OptString(&addr, "nodeName")) ep["nodeName"] = *node;
    if (std::string host = StringAt(addr, "hostname"); !host.empty()) ep["hostname"] = host;
    out.push_back(std::move(ep));
  }
  return out;
}

// kube's EndpointsAdapter decides an update is needed when ports, endpoints or labels differ.
bool SliceMatches(const Object& current, const Object& want) {
  auto same = [&](std::string_view key) { return catalog::SameValue(current.if_contains(key), want.if_contains(key), true); };
  return same("ports") && same("endpoints") && am::GetLabels(current) == am::GetLabels(want);
}

}  // namespace

registry::Object EndpointSliceFromEndpoints(const registry::Object& endpoints) {
  Object slice;
  slice["apiVersion"] = "discovery.k8s.io/v1";
  slice["kind"] = "EndpointSlice";
  json::object md;
  md["name"] = std::string(am::GetName(endpoints));
  md["namespace"] = std::string(am::GetNamespace(endpoints));
  md["labels"] = json::object{{"kubernetes.io/service-name", std::string(am::GetName(endpoints))}};
  slice["metadata"] = std::move(md);
  std::string type = "IPv4";
  json::array ports;
  json::array eps;
  const json::array* subsets = ArrayAt(endpoints, "subsets");
  if (subsets && !subsets->empty() && subsets->front().is_object()) {
    const json::object& subset = subsets->front().get_object();
    if (const json::array* p = ArrayAt(subset, "ports")) {
      for (const auto& port : *p) {
        if (!port.is_object()) continue;
        json::object out;
        out["name"] = StringAt(port.get_object(), "name");
        out["protocol"] = StringAt(port.get_object(), "protocol");
        out["port"] = IntAt(port.get_object(), "port");
        ports.push_back(std::move(out));
      }
    }
    const json::array* ready = ArrayAt(subset, "addresses");
    const json::array* not_ready = ArrayAt(subset, "notReadyAddresses");
    bool all_v6 = false;
    size_t total = 0;
    for (const json::array* list : {ready, not_ready}) {
      if (!list) continue;
      for (const auto& a : *list) {
        ++total;
        all_v6 = (total == 1 || all_v6) && a.is_object() && IsIpv6(StringAt(a.get_object(), "ip"));
      }
    }
    if (total > 0 && all_v6) type = "IPv6";
    for (auto& e : EndpointsFrom(ready, type == "IPv6", true)) eps.push_back(std::move(e));
    for (auto& e : EndpointsFrom(not_ready, type == "IPv6", false)) eps.push_back(std::move(e));
  }
  slice["addressType"] = type;
  slice["endpoints"] = std::move(eps);
  if (!ports.empty()) slice["ports"] = std::move(ports);
  return slice;
}

namespace {

// One reconcile of the slice for `endpoints` (parameters by value: they live in the coroutine frame).
Task<Status> MirrorOnce(std::shared_ptr<registry::Storage> slices, Object endpoints) {
    auto* getter = dynamic_cast<registry::Getter*>(slices.get());
    auto* creater = dynamic_cast<registry::Creater*>(slices.get());
    auto* updater = dynamic_cast<registry::Updater*>(slices.get());
    auto* deleter = dynamic_cast<registry::GracefulDeleter*>(slices.get());
    if (!getter || !creater || !updater || !deleter) co_return am::NewInternalError("endpointslices are not served");
    Object want = EndpointSliceFromEndpoints(endpoints);
    registry::Context ctx;
    ctx.namespace_ = std::string(am::GetNamespace(endpoints));
    std::string name(am::GetName(endpoints));
    auto current = co_await getter->Get(ctx, name, {});
    if (!current.ok() && !am::IsNotFound(current.status())) co_return current.TakeStatus();
    if (current.ok() && StringAt(*current, "addressType") != StringAt(want, "addressType")) {
      // The address type is immutable: kube deletes the slice and creates it again.
      registry::DeleteOptions opts;
      opts.precondition_uid = std::string(am::GetUid(*current));
      auto deleted = co_await deleter->Delete(ctx, name, opts);
      if (!deleted.ok() && !am::IsNotFound(deleted.status())) co_return deleted.TakeStatus();
      current = am::NewNotFound({"discovery.k8s.io", "endpointslices"}, name);
    }
    if (!current.ok()) {
      auto created = co_await creater->Create(ctx, std::move(want), {});
      if (!created.ok() && !am::IsAlreadyExists(created.status())) co_return created.TakeStatus();
      co_return Status();
    }
    if (SliceMatches(*current, want)) co_return Status();
    auto updated = co_await updater->Update(
        ctx, name,
        [want](const Object* cur) -> Task<StatusOr<Object>> {
          Object next = cur ? *cur : want;
          next["endpoints"] = want.at("endpoints");
          if (const auto* p = want.if_contains("ports")) {
            next["ports"] = *p;
          } else {
            next.erase("ports");
          }
          json::object& md = am::MutableMetadata(next);
          md["labels"] = want.at("metadata").at("labels");
          co_return next;
        },
        {});
    if (!updated.ok() && !am::IsConflict(updated.status()) && !am::IsNotFound(updated.status())) {
      co_return updated.TakeStatus();
    }
    co_return Status();
}

}  // namespace

std::function<Task<Status>(const registry::Object& endpoints)> EndpointSliceMirror(std::shared_ptr<registry::Storage> slices) {
  return [slices](const registry::Object& endpoints) { return MirrorOnce(slices, endpoints); };
}

}  // namespace capstan::api::discovery
