// api/core/service.cpp: core/v1 Services: kube's defaulting and validation, ClusterIP and NodePort
// allocation around every write (service_alloc.h: allocated before the object is validated and
// stored, released when the write fails or the service is deleted), the service printer
// (NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE SELECTOR), status and proxy subresources.
#include <algorithm>
#include <random>
#include <set>

#include "api/core/core.h"
#include "api/core/core_descriptions.h"
#include "api/core/core_helpers.h"
#include "api/core/core_resources.h"
#include "api/core/pod_internal.h"
#include "api/core/service_alloc.h"
#include "api/core/service_validation.h"
#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::api::core {

namespace am = capstan::apimachinery;

namespace {

const json::object& Spec(const Object& svc) {
  static const json::object kEmpty;
  const auto* s = svc.if_contains("spec");
  return s && s->is_object() ? s->get_object() : kEmpty;
}

class ServiceStrategy : public registry::DefaultStrategy {
 public:
  ServiceStrategy() : DefaultStrategy(Options{.namespaced = true, .name_validator = am::NameIsDNS1035Label}) {}
  bool AllowCreateOnUpdate() const override { return true; }

  void PrepareForCreate(const registry::Context&, Object& svc) const override {
    DefaultService(svc);
    svc["status"] = json::object{{"loadBalancer", json::object()}};
  }
  void PrepareForUpdate(const registry::Context&, Object& svc, const Object& old) const override {
    DefaultService(svc);
    if (const auto* s = old.if_contains("status")) {
      svc["status"] = *s;
    } else {
      svc.erase("status");
    }
    DropTypeDependentFields(svc, old);
  }
  ErrorList Validate(const registry::Context&, const Object& svc) const override { return ValidateService(svc); }
  ErrorList ValidateUpdate(const registry::Context&, const Object& svc, const Object& old) const override {
    return ValidateServiceUpdate(svc, old);
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Type", "string", "", kServiceSpecType, 0},
            {"Cluster-IP", "string", "", kServiceSpecClusterIP, 0},
            {"External-IP", "string", "", kServiceSpecExternalIPs, 0},
            {"Port(s)", "string", "", kServiceSpecPorts, 0},
            registry::AgeColumn(),
            {"Selector", "string", "", kServiceSpecSelector, 1}};
  }
  json::array TableCells(const Object& svc) const override {
    const json::object& spec = Spec(svc);
    std::string type = StrOf(spec.if_contains("type"));
    std::string cluster_ip = "<none>";
    if (const auto* ips = spec.if_contains("clusterIPs"); ips && ips->is_array() && !ips->get_array().empty()) {
      cluster_ip = StrOf(&ips->get_array()[0]);
    }
    std::vector<std::string> external;
    if (const auto* e = spec.if_contains("externalIPs"); e && e->is_array()) {
      for (const auto& x : e->get_array()) external.push_back(StrOf(&x));
    }
    std::string external_ip;
    if (type == "ClusterIP" || type == "NodePort") {
      external_ip = external.empty() ? "<none>" : Join(external, ",");
    } else if (type == "LoadBalancer") {
      std::set<std::string> lb;
      if (const auto* ing = PathAt(svc, {"status", "loadBalancer", "ingress"}); ing && ing->is_array()) {
        for (const auto& i : ing->get_array()) {
          if (!i.is_object()) continue;
          std::string ip = StrOf(i.get_object().if_contains("ip"));
          std::string host = StrOf(i.get_object().if_contains("hostname"));
          if (!ip.empty()) {
            lb.insert(ip);
          } else if (!host.empty()) {
            lb.insert(host);
          }
        }
      }
      std::vector<std::string> all(lb.begin(), lb.end());
      all.insert(all.end(), external.begin(), external.end());
      external_ip = all.empty() ? "<pending>" : Join(all, ",");
    } else if (type == "ExternalName") {
      external_ip = StrOf(spec.if_contains("externalName"));
    } else {
      external_ip = "<unknown>";
    }
    std::vector<std::string> pieces;
    if (const auto* ports = spec.if_contains("ports"); ports && ports->is_array()) {
      for (const auto& p : ports->get_array()) {
        if (!p.is_object()) continue;
        const auto& o = p.get_object();
        int64_t np = IntOf(o.if_contains("nodePort"));
        std::string s = std::to_string(IntOf(o.if_contains("port")));
        if (np > 0) s += ":" + std::to_string(np);
        pieces.push_back(s + "/" + StrOf(o.if_contains("protocol")));
      }
    }
    std::string ports = pieces.empty() ? "<none>" : Join(pieces, ",");
    const auto* sel = spec.if_contains("selector");
    return {json::value(am::GetName(svc)), json::value(type), json::value(cluster_ip), json::value(external_ip),
            json::value(ports), json::value(AgeCell(svc)),
            json::value(FormatLabels(sel && sel->is_object() ? &sel->get_object() : nullptr))};
  }

  std::string UnsupportedFieldLabelMessage(std::string_view f) const override { return am::FieldLabelNotSupportedError(f); }
  std::vector<std::string> SelectableFieldNames() const override {
    return {"metadata.name", "metadata.namespace", "spec.clusterIP", "spec.type"};
  }
  am::FieldSet SelectableFields(const Object& svc) const override {
    am::FieldSet f = DefaultStrategy::SelectableFields(svc);
    f["spec.clusterIP"] = StrOf(Spec(svc).if_contains("clusterIP"));
    f["spec.type"] = StrOf(Spec(svc).if_contains("type"));
    return f;
  }
};

class ServiceStatusStrategy : public registry::StatusStrategy {
 public:
  using StatusStrategy::StatusStrategy;
  ErrorList ValidateUpdate(const registry::Context&, const Object& svc, const Object&) const override {
    return ValidateServiceStatus(svc);
  }
};

// Allocation around the generic writes, as kube's service REST does with BeginCreate, BeginUpdate and
// AfterDelete.
class ServiceStore : public CoreStore {
 public:
  ServiceStore(registry::StoreConfig c, std::shared_ptr<const registry::Strategy> s, const apimachinery::Schema* schema,
               std::shared_ptr<ServiceAllocator> alloc)
      : CoreStore(std::move(c), std::move(s), schema), alloc_(std::move(alloc)) {}

  Task<StatusOr<Object>> Create(const registry::Context& ctx, Object svc, const registry::CreateOptions& opts) override {
    const bool dry_run = ctx.dry_run || opts.dry_run;
    CO_RETURN_IF_ERROR(CanonicalizeQuantities(svc, schema_, c_.info.ApiVersion(), c_.info.kind));
    DefaultService(svc);
    NormalizeClusterIps(svc, nullptr);
    auto txn = co_await alloc_->AllocateCreate(svc, dry_run);
    if (!txn.ok()) co_return txn.TakeStatus();
    auto r = co_await OwningStore::Create(ctx, std::move(svc), opts);
    if (!r.ok()) co_await alloc_->Revert(*txn);
    co_return r;
  }

  Task<StatusOr<registry::UpdateOutcome>> Update(const registry::Context& ctx, const std::string& name,
                                                 registry::ObjectTransform transform,
                                                 const registry::UpdateOptions& opts) override {
    const bool dry_run = ctx.dry_run || opts.dry_run;
    // The transform may run more than once (conflicts): each attempt gives back what the previous took.
    auto txn = std::make_shared<std::optional<ServiceAllocator::Txn>>();
    auto alloc = alloc_;
    registry::ObjectTransform decoding = Decoding(std::move(transform));
    registry::ObjectTransform allocating = [decoding, txn, alloc, dry_run](const Object* cur) -> Task<StatusOr<Object>> {
      if (*txn) {
        co_await alloc->Revert(**txn);
        txn->reset();
      }
      auto svc = co_await decoding(cur);
      if (!svc.ok()) co_return svc.TakeStatus();
      DefaultService(*svc);
      if (!cur) {
        NormalizeClusterIps(*svc, nullptr);
        auto t = co_await alloc->AllocateCreate(*svc, dry_run);
        if (!t.ok()) co_return t.TakeStatus();
        *txn = std::move(*t);
        co_return std::move(*svc);
      }
      PatchAllocatedValues(*svc, *cur);
      NormalizeClusterIps(*svc, cur);
      auto t = co_await alloc->AllocateUpdate(*svc, *cur, dry_run);
      if (!t.ok()) co_return t.TakeStatus();
      *txn = std::move(*t);
      co_return std::move(*svc);
    };
    auto r = co_await OwningStore::Update(ctx, name, allocating, opts);
    if (!*txn) co_return r;
    if (!r.ok()) {
      co_await alloc_->Revert(**txn);
      co_return r;
    }
    co_await alloc_->Commit(**txn);
    // An update that completed a pending deletion released nothing yet.
    if (!dry_run && am::GetDeletionTimestamp(r->object) && am::GetFinalizers(r->object).empty()) {
      co_await alloc_->ReleaseAll(r->object);
    }
    co_return r;
  }

  Task<StatusOr<registry::DeleteOutcome>> Delete(const registry::Context& ctx, const std::string& name,
                                                 const registry::DeleteOptions& opts) override {
    auto existing = co_await OwningStore::Get(ctx, name, {});
    auto r = co_await OwningStore::Delete(ctx, name, opts);
    if (r.ok() && r->deleted && existing.ok() && !(ctx.dry_run || opts.dry_run)) co_await alloc_->ReleaseAll(*existing);
    co_return r;
  }

 private:
  std::shared_ptr<ServiceAllocator> alloc_;
};

// services/proxy: kube's service ResourceLocation: an address, at random, of an Endpoints subset
// that has the named port and whose target is a pod of the namespace holding that IP; dialed
// through the proxy transport.
class ServiceProxyStore : public registry::Connecter {
 public:
  ServiceProxyStore(registry::ResourceInfo info, std::shared_ptr<CoreStore> services, std::string prefix)
      : info_(std::move(info)), services_(std::move(services)), prefix_(std::move(prefix)) {}
  const registry::ResourceInfo& Info() const override { return info_; }
  std::vector<std::string> ConnectMethods() const override {
    return {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"};
  }
  Task<StatusOr<registry::ConnectResponse>> Connect(const registry::Context& ctx, const std::string& id,
                                                    const registry::ConnectRequest& req) override {
    auto split = SplitSchemeNamePort(id);
    if (!split) co_return am::NewBadRequest("invalid service request " + GoQuote(id));
    const std::string& name = split->name;
    std::string port = split->port;
    if (!port.empty() && std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      auto svc = co_await services_->Get(ctx, name, {});
      if (!svc.ok()) co_return svc.TakeStatus();
      bool found = false;
      if (const auto* ports = Spec(*svc).if_contains("ports"); ports && ports->is_array()) {
        for (const auto& p : ports->get_array()) {
          if (p.is_object() && std::to_string(IntOf(p.get_object().if_contains("port"))) == port) {
            port = StrOf(p.get_object().if_contains("name"));
            found = true;
            break;
          }
        }
      }
      if (!found) co_return am::NewServiceUnavailable("no service port " + split->port + " found for service " + GoQuote(name));
    }
    storage::ObjectStore& store = *services_->config().storage;
    auto eps = co_await store.Get(prefix_ + "/services/endpoints/" + ctx.namespace_ + "/" + name, {});
    if (!eps.ok()) {
      if (eps.status().IsStorage(StorageCode::kKeyNotFound)) co_return am::NewNotFound({"", "endpoints"}, name);
      co_return eps.TakeStatus();
    }
    const auto* subsets = eps->if_contains("subsets");
    if (!subsets || !subsets->is_array() || subsets->get_array().empty()) {
      co_return am::NewServiceUnavailable("no endpoints available for service " + GoQuote(name));
    }
    const auto& list = subsets->get_array();
    thread_local std::minstd_rand rng{std::random_device{}()};
    size_t ss_seed = rng() % list.size();
    for (size_t si = 0; si < list.size(); ++si) {
      const auto& ss = list[(ss_seed + si) % list.size()];
      const auto* addrs = ss.is_object() ? ss.get_object().if_contains("addresses") : nullptr;
      const auto* ports = ss.is_object() ? ss.get_object().if_contains("ports") : nullptr;
      if (!addrs || !addrs->is_array() || addrs->get_array().empty() || !ports || !ports->is_array()) continue;
      for (const auto& p : ports->get_array()) {
        if (!p.is_object() || StrOf(p.get_object().if_contains("name")) != port) continue;
        const auto& as = addrs->get_array();
        size_t seed = rng() % as.size();
        for (size_t t = 0; t < as.size(); ++t) {
          const auto& addr = as[(seed + t) % as.size()];
          if (!addr.is_object()) continue;
          std::string ip = StrOf(addr.get_object().if_contains("ip"));
          if (!co_await IsPodAddress(ctx, addr.get_object(), ip)) continue;
          registry::ConnectLocation loc;
          loc.transport = registry::ConnectTransport::kProxy;
          loc.base = (split->scheme.empty() ? "http" : split->scheme) + "://" +
                     JoinHostPort(ip, std::to_string(IntOf(p.get_object().if_contains("port"))));
          loc.path = req.path;
          registry::ConnectResponse r;
          r.location = std::move(loc);
          co_return r;
        }
      }
    }
    co_return am::NewServiceUnavailable("no endpoints available for service " + GoQuote(id));
  }

 private:
  // kube's isValidAddress: only addresses that are pods of this namespace holding the IP.
  Task<bool> IsPodAddress(const registry::Context& ctx, const json::object& addr, const std::string& ip) {
    const auto* ref = addr.if_contains("targetRef");
    if (!ref || !ref->is_object()) co_return false;
    if (StrOf(ref->get_object().if_contains("namespace")) != ctx.namespace_) co_return false;
    std::string pod_name = StrOf(ref->get_object().if_contains("name"));
    auto pod = co_await services_->config().storage->Get(prefix_ + "/pods/" + ctx.namespace_ + "/" + pod_name, {});
    if (!pod.ok()) co_return false;
    if (const auto* ips = PathAt(*pod, {"status", "podIPs"}); ips && ips->is_array()) {
      for (const auto& i : ips->get_array()) {
        if (i.is_object() && StrOf(i.get_object().if_contains("ip")) == ip) co_return true;
      }
    }
    co_return false;
  }

  registry::ResourceInfo info_;
  std::shared_ptr<CoreStore> services_;
  std::string prefix_;
};

}  // namespace

std::vector<registry::RestResource> Services(const registry::GroupDeps& deps, const CoreOptions& opts) {
  auto info = MakeInfo({"", "v1", "services", "service", "Service", true, {"svc"}, {"all"}, "io.k8s.api.core.v1.Service"});
  auto alloc = ServiceAllocator::Create(*deps.store, deps.prefix, opts.service_cluster_ip_range, opts.service_node_port_range);
  if (!alloc.ok()) {
    // Options are checked at start (cmd/); this is a last resort with kube's defaults.
    LogError("bad service ranges; using the defaults", {{"error", alloc.status().message()}});
    alloc = ServiceAllocator::Create(*deps.store, deps.prefix, "10.0.0.0/24", "30000-32767");
  }
  std::shared_ptr<ServiceAllocator> allocator = std::move(*alloc);
  auto strategy = std::make_shared<ServiceStrategy>();
  const apimachinery::Schema* schema = SchemaFor(deps, info);
  registry::StoreConfig c = CoreStoreConfig(deps, info, "services/specs");
  c.return_deleted_object = true;
  auto store = std::make_shared<ServiceStore>(c, strategy, schema, allocator);
  std::vector<registry::RestResource> out;
  out.push_back({info, store, schema, true});
  registry::StoreConfig sc = c;
  sc.info.subresource = "status";
  out.push_back({sc.info, std::make_shared<CoreSubresourceStore>(sc, std::make_shared<ServiceStatusStrategy>(strategy), schema),
                 schema, true});
  registry::ResourceInfo proxy = info;
  proxy.subresource = "proxy";
  proxy.kind = "ServiceProxyOptions";
  proxy.list_kind.clear();
  proxy.short_names.clear();
  proxy.categories.clear();
  proxy.definition = "io.k8s.api.core.v1.ServiceProxyOptions";
  out.push_back({proxy, std::make_shared<ServiceProxyStore>(proxy, store, deps.prefix), nullptr, true});
  return out;
}

}  // namespace capstan::api::core
