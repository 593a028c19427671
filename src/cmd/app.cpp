#include "cmd/app.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <boost/json.hpp>
#include <filesystem>
#include <set>
#include <thread>

#include "admission/builtin_plugins.h"
#include "api/apiextensions/crd_controller.h"
#include "api/apiextensions/crd_resource.h"
#include "api/apps/apps.h"
#include "api/authorization/authorization.h"
#include "api/rbac/rbac.h"
#include "cmd/authorization/authorization_setup.h"
#include "cmd/authorization/webhook_config.h"
#include "api/autoscaling/autoscaling.h"
#include "api/batch/batch.h"
#include "api/catalog.h"
#include "aggregator/aggregator.h"
#include "api/coordination/coordination.h"
#include "api/coordination/identity_lease.h"
#include "api/core/capabilities.h"
#include "api/core/component_status.h"
#include "api/core/core.h"
#include "api/core/core_resources.h"
#include "api/core/kubernetes_service.h"
#include "api/discovery/discovery.h"
#include "api/policy/policy.h"
#include "api/schemas/builtin_schemas.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/protobuf_codec.h"
#include "apimachinery/schema_registry.h"
#include "controllers/controller_manager.h"
#include "controllers/discovery.h"
#include "endpoints/api_handler.h"
#include "endpoints/connect_proxy.h"
#include "endpoints/watch_writer.h"
#include "endpoints/installer.h"
#include "endpoints/openapi_handler.h"
#include "storage/backend_object_store.h"
#include "storage/cacher/cacher_factory.h"
#include "storage/embedded/embedded_backend.h"
#include "cmd/storage_setup.h"
#include "storage/transformers/config_reloader.h"
#include "cmd/audit_setup.h"
#include "cmd/authentication.h"
#include "cmd/flowcontrol_setup.h"
#include "cmd/kubeconfig.h"
#include "cmd/pki.h"
#include "cmd/runtime_config.h"
#include "cmd/serving_cert.h"
#include "cmd/version.h"
#include "cmd/webhook_setup.h"
#include "server/handler_chain.h"
#include "server/healthz.h"
#include "server/http_server.h"
#include "server/nonresource.h"
#include "server/pprof.h"
#include "server/router.h"
#include "server/tls_cipher_suites.h"
#include "registry/ip_range.h"
#include "util/feature_gate.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::cmd {

struct App::State {
  Options opts;
  RuntimeConfig runtime_config;  // --runtime-config: the group/versions and resources served
  MetricsRegistry metrics;
  MetricsRegistry sli_metrics;  // /metrics/slis: the health checks' results
  std::unique_ptr<server::RequestMetrics> request_metrics;
  server::RequestWaitGroup wait_group;
  std::unique_ptr<AuthenticationSetup> authentication;
  std::unique_ptr<authz::AuthorizationSetup> authorization;  // --authorization-mode
  server::HealthChecks health;
  server::Router router;
  // API Priority and Fairness: the dispatcher the chain uses (outlives the server) and its config
  // thread (stopped before the API it reads goes: in Shutdown and ~App).
  std::unique_ptr<ApfSetup> apf;
  std::unique_ptr<server::HttpServer> http;
  std::atomic<bool> shutting_down{false};
  // Set once every watch cache has had its first list: like kube's post-start hooks, the check then
  // stays passed (caches created later, for a new CRD or a lazily used resource, must not flip readiness).
  std::atomic<bool> storage_ready{false};

  // The built-in kinds' protobuf codec (bodies, responses, storage values): it outlives the storage
  // and the watch caches that decode with it.
  std::unique_ptr<const apimachinery::ProtobufCodec> protobuf;
  std::unique_ptr<storage::Backend> backend;
  // Encryption at rest, health checks and the etcd compactor for `backend`; destroyed before it.
  std::unique_ptr<StorageSetup> storage;
  std::unique_ptr<storage::ObjectStore> objects;
  std::unique_ptr<storage::CacherFactory> caches;  // the watch cache in front of each resource
  std::unique_ptr<apimachinery::SchemaRegistry> schemas;
  endpoints::ApiRegistry apis;
  std::unique_ptr<endpoints::WatchEventMetrics> watch_event_metrics;
  std::unique_ptr<endpoints::ConnectClients> connect_clients;  // kubelets, pods and services
  std::unique_ptr<endpoints::ApiHandler> api_handler;
  // APIServices backed by a service: proxy, discovery merging, availability loop.
  std::unique_ptr<aggregator::Aggregator> aggregator;
  // The default/kubernetes Service and Endpoints (kube's bootstrap controller).
  std::unique_ptr<api::core::KubernetesServiceController> kubernetes_service;
  std::unique_ptr<api::coordination::IdentityLeaseController> identity_lease;
  // componentstatuses' probes (set once the control loops exist).
  std::shared_ptr<api::core::ComponentStatusSources> component_statuses =
      std::make_shared<api::core::ComponentStatusSources>();
  std::unique_ptr<endpoints::OpenApiHandler> openapi;
  std::unique_ptr<admission::Chain> admission;
  // Auditing (--audit-*) and the per-request scopes admission reports warnings and annotations to.
  std::unique_ptr<AuditSetup> audit;
  // CRDs: the change signal their storage raises and the loop that serves custom resources.
  std::shared_ptr<api::apiextensions::CrdChangeSignal> crd_signal;
  std::unique_ptr<api::apiextensions::CrdController> crd_controller;
  // Last: stopped and destroyed before the API and storage it uses.
  std::unique_ptr<controllers::ControllerManager> controllers;

  // The steps of App::Start, in order (cmd/app.cpp).
  Status BuildSecurity(const Pki& pki);
  Status OpenStorage();
  Status LoadBuiltinSchemas();
  Status BuildAudit();
  Status BuildAdmission();
  Status InstallApi();
  Status MakeConnectClients();
  void StartAggregator(const Pki& pki);
  void InstallApiRoutes();
  void InstallHealthAndMetrics();
  http::Handler BuildChain();
  Status Serve(const Pki& pki, http::Handler root, const std::string& kubeconfig_path);
  void StartKubernetesService();
  Status StartControlLoops(const Pki& pki);
  void SetComponentStatuses();
};

App::App(Options options) : s_(std::make_unique<State>()) { s_->opts = std::move(options); }
App::~App() {
  if (s_ && s_->apf) s_->apf->Stop();
}

int App::port() const { return s_->http ? s_->http->port() : 0; }

namespace {

Status MakeDir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status(500, "InternalError", "cannot create " + dir + ": " + ec.message());
  ::chmod(dir.c_str(), 0700);
  return Status();
}

std::string ServerUrl(const std::string& bind_address, int port) {
  std::string host = bind_address;
  if (host == "0.0.0.0" || host.empty()) host = "127.0.0.1";
  if (host == "::") host = "::1";
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  return "https://" + host + ":" + std::to_string(port);
}

// The authorizer chain of --authorization-config, or of --authorization-mode (default Node,RBAC, as
// kubeadm runs kube-apiserver) and the --authorization-webhook-* flags.
StatusOr<std::unique_ptr<authz::AuthorizationSetup>> BuildAuthorizer(const Options& o,
                                                                     const endpoints::ApiRegistry& apis,
                                                                     MetricsRegistry& metrics) {
  authz::AuthorizationOptions ao;
  if (!o.authorization_modes.empty()) ao.modes = o.authorization_modes;
  ao.policy_file = o.authorization_policy_file;
  ao.webhook_config_file = o.authorization_webhook_config_file;
  ao.webhook_version = o.authorization_webhook_version;
  ao.webhook_authorized_ttl =
      std::chrono::duration_cast<std::chrono::milliseconds>(o.authorization_webhook_cache_authorized_ttl);
  ao.webhook_unauthorized_ttl =
      std::chrono::duration_cast<std::chrono::milliseconds>(o.authorization_webhook_cache_unauthorized_ttl);
  if (auto it = o.given.find("authorization-config"); it != o.given.end() && !it->second.empty()) {
    ao.config_file = it->second.back();
  }
  for (const char* flag : {"authorization-mode", "authorization-webhook-config-file", "authorization-webhook-version",
                           "authorization-webhook-cache-authorized-ttl", "authorization-webhook-cache-unauthorized-ttl"}) {
    ao.legacy_flags_set = ao.legacy_flags_set || o.given.count(flag);
  }
  ao.metrics = &metrics;
  ao.apiserver_id_hash = storage::transformers::ApiServerIdHash(ApiServerId());
  return authz::AuthorizationSetup::Create(std::move(ao), apis);
}

Status LoadSchemas(apimachinery::SchemaRegistry& reg) {
  for (const auto& f : api::BuiltinSchemaFiles()) {
    Status st = reg.AddDocumentJson(f.text);
    if (!st.ok()) return Status(500, "InternalError", "built-in schema " + std::string(f.name) + ": " + st.message());
  }
  for (const auto& f : api::BuiltinDescriptionFiles()) {
    std::string_view package = f.name.substr(0, f.name.rfind(".json"));
    reg.AddDescriptions(std::string(package), f.text);
  }
  return reg.Resolve();
}

// The namespaces every cluster has, created at start when missing.
Status EnsureSystemNamespaces(const endpoints::ApiRegistry& apis) {
  auto snap = apis.Snapshot();
  const auto* ns = snap->FindResource("", "v1", "namespaces", "");
  if (!ns || !ns->creater) return Status(500, "InternalError", "namespaces are not served");
  for (const char* name : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    registry::Context ctx;
    boost::json::object obj;
    obj["apiVersion"] = "v1";
    obj["kind"] = "Namespace";
    boost::json::object md;
    md["name"] = name;
    obj["metadata"] = std::move(md);
    auto r = SyncWait(ns->creater->Create(ctx, std::move(obj), {}));
    if (!r.ok() && r.status().reason() != "AlreadyExists") return r.status();
  }
  return Status();
}

// The objects kube creates at start for the catalog groups (system priority classes, the priority
// and fairness configuration, local APIServices), written once every group is installed.
Status BootstrapCatalogObjects(const endpoints::ApiRegistry& apis) {
  auto snap = apis.Snapshot();
  std::vector<api::apiregistration::GroupVersion> served;
  for (const auto& [gv, entry] : snap->versions) served.push_back({gv.first, gv.second});
  auto find = [snap](const std::string& group, const std::string& version, const std::string& resource,
                     const std::string& subresource) -> registry::Storage* {
    const auto* r = snap->FindResource(group, version, resource, subresource);
    return r ? r->storage.get() : nullptr;
  };
  return SyncWait(api::BootstrapCatalog(find, std::move(served)));
}

// The data dir and the PKI in it (generated on first start).
StatusOr<Pki> PrepareDataDir(const Options& o) {
  RETURN_IF_ERROR(MakeDir(o.data_dir));
  PkiOptions pki_opts;
  pki_opts.service_cluster_ip_range = o.service_cluster_ip_range;
  auto pki = EnsurePki(o.data_dir + "/pki", pki_opts);
  if (!pki.ok()) return pki.status();
  for (const auto& f : pki->written) LogInfo("generated", {{"file", pki->dir + "/" + f}});
  return pki;
}

// The serving pair as kube chooses it (--tls-*, else --cert-dir, generated there when absent), else
// the PKI's (cmd/serving_cert.h).
StatusOr<ServingCertFiles> ChooseServingPair(const Options& o, const Pki& pki) {
  ServingCertOptions serving;
  serving.tls_cert_file = o.tls_cert_file;
  serving.tls_private_key_file = o.tls_private_key_file;
  serving.cert_dir = o.cert_dir;
  serving.bind_address = o.bind_address;
  serving.public_address = api::core::KubernetesServiceController::ChoosePublicIp(o.advertise_address, o.bind_address);
  if (auto range = registry::IpRange::Parse(Split(o.service_cluster_ip_range, ',')[0]); range.ok()) {
    serving.service_ip = range->First().String();
  }
  auto pair = ResolveServingCert(serving);
  if (!pair.ok()) return pair.status();
  if (!*pair) return ServingCertFiles{pki.serving_cert_file, pki.serving_key_file, false};
  if ((*pair)->generated) {
    LogInfo("Generated self-signed cert", {{"cert", (*pair)->cert_file}, {"key", (*pair)->key_file}});
  }
  return std::move(**pair);
}

}  // namespace

// Authentication (the union in kube's order, then system:authenticated and anonymous) and the
// authorizer union of --authorization-mode.
Status App::State::BuildSecurity(const Pki& pki) {
  State& s = *this;
  const Options& o = s.opts;
  auto authentication = AuthenticationSetup::Create(
      o, pki, s.apis, [&s] { return ServerUrl(s.opts.bind_address, s.http ? s.http->port() : 0); }, &s.metrics,
      storage::transformers::ApiServerIdHash(ApiServerId()));
  if (!authentication.ok()) return authentication.status();
  s.authentication = std::move(*authentication);
  auto authorization = BuildAuthorizer(o, s.apis, s.metrics);
  if (!authorization.ok()) return authorization.status();
  s.authorization = std::move(*authorization);
  return Status();
}

// The embedded store in the data dir, or etcd with --etcd-servers (cmd/storage_setup.h); the object
// store over it and the watch caches in front.
Status App::State::OpenStorage() {
  State& s = *this;
  const Options& o = s.opts;
  auto storage_setup = StorageSetup::Open(o, s.metrics, s.protobuf.get());
  if (!storage_setup.ok()) return storage_setup.status();
  s.storage = std::move(*storage_setup);
  s.backend = s.storage->TakeBackend();
  s.storage->StartCompactor(*s.backend);
  s.storage->StartSnapshots(*s.backend);
  s.storage->StartSizeMonitor(*s.backend, s.metrics);
  auto objects = std::make_unique<storage::BackendObjectStore>(*s.backend, s.storage->transformer(), s.storage->codec());
  objects->set_lease_reuse_duration_seconds(o.lease_reuse_duration_seconds);
  s.objects = std::move(objects);
  storage::WatchCacheFlags wc;
  wc.enabled = o.watch_cache;
  wc.default_size = o.default_watch_cache_size;
  if (auto sizes = storage::ParseWatchCacheSizes(o.watch_cache_sizes); sizes.ok()) wc.sizes = std::move(*sizes);
  wc.progress_reliable = s.storage->WatchProgressReliable(*s.backend);  // etcd before 3.4.31: reads go to etcd
  s.caches = std::make_unique<storage::CacherFactory>(
      wc, *s.backend, static_cast<storage::BackendObjectStore&>(*s.objects), &s.metrics, o.etcd_prefix);
  return Status();
}

// The built-in schemas every resource's validation, defaulting, OpenAPI and protobuf use.
Status App::State::LoadBuiltinSchemas() {
  State& s = *this;
  s.schemas = std::make_unique<apimachinery::SchemaRegistry>();
  auto schemas_start = std::chrono::steady_clock::now();
  RETURN_IF_ERROR(LoadSchemas(*s.schemas));
  if (LogV(2)) {
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - schemas_start).count();
    LogInfo("built-in schemas loaded", {{"definitions", static_cast<uint64_t>(s.schemas->size())}, {"ms", ms}});
  }
  // The protobuf codec: bodies and responses, and kube's storage format.
  auto codec = apimachinery::ProtobufCodec::Create(*s.schemas);
  if (!codec.ok()) return codec.status();
  s.protobuf = std::move(*codec);
  return Status();
}

// Auditing: the policy and backends; protobuf bodies are decoded for the events once the codec exists.
Status App::State::BuildAudit() {
  State& s = *this;
  const Options& o = s.opts;
  auto audit = AuditSetup::Create(
      o.audit, s.metrics,
      [&s](std::string_view, std::string_view body) -> std::optional<boost::json::value> {
        if (!s.protobuf) return std::nullopt;
        auto d = s.protobuf->DecodeObject(body);
        if (!d.ok()) return std::nullopt;
        return std::move(d->object);
      });
  if (!audit.ok()) return audit.status();
  s.audit = std::move(*audit);
  return Status();
}

// Admission: kube's default plugins (those Capstan has), adjusted by the flags.
Status App::State::BuildAdmission() {
  State& s = *this;
  const Options& o = s.opts;
  admission::PluginDeps pdeps;
  pdeps.namespace_lookup = [&s](const std::string& name) -> Task<StatusOr<registry::Object>> {
    auto snap = s.apis.Snapshot();
    const auto* ns = snap->FindResource("", "v1", "namespaces", "");
    if (!ns || !ns->getter) co_return Status(500, "InternalError", "namespaces are not served");
    registry::Context ctx;
    co_return co_await ns->getter->Get(ctx, name, {});
  };
  pdeps.webhook_source = MakeWebhookSource(s.apis);
  pdeps.webhook.http = &s.audit->webhook_http();
  pdeps.webhook.resolve_service = MakeServiceResolver(s.apis);
  pdeps.webhook.metrics = &s.metrics;
  pdeps.load_webhook_kubeconfig = [](const std::string& path) -> StatusOr<admission::WebhookEndpoint> {
    auto target = authz::LoadWebhookKubeconfig(path);
    if (!target.ok()) return target.status();
    return admission::WebhookEndpoint{target->server, target->tls, target->bearer_token};
  };
  pdeps.get = MakeObjectGetter(s.apis);
  pdeps.list = MakeObjectLister(s.apis);
  // ResourceQuota writes the quotas' status.used through resourcequotas/status before the object is stored.
  pdeps.update = [&s](const std::string& group, const std::string& version, const std::string& resource,
                      const std::string& subresource, const std::string& ns,
                      registry::Object obj) -> Task<StatusOr<registry::Object>> {
    auto snap = s.apis.Snapshot();
    const auto* r = snap->FindResource(group, version, resource, subresource);
    if (!r || !r->updater) co_return Status(404, "NotFound", "the server could not find the requested resource");
    static const UserInfo kApiserver{"system:apiserver", "", {"system:authenticated", "system:masters"}, {}};
    registry::Context ctx;
    ctx.namespace_ = ns;
    ctx.subresource = subresource;
    ctx.user = &kApiserver;
    std::string name(apimachinery::GetName(obj));
    auto shared = std::make_shared<registry::Object>(std::move(obj));
    registry::ObjectTransform t = [shared](const registry::Object*) -> Task<StatusOr<registry::Object>> {
      co_return *shared;
    };
    auto out = co_await r->updater->Update(ctx, name, std::move(t), {});
    if (!out.ok()) co_return out.TakeStatus();
    co_return std::move(out->object);
  };
  // NamespaceAutoProvision creates the namespace through its storage, as the API server itself.
  pdeps.create_namespace = [&s](const std::string& name) -> Task<Status> {
    auto snap = s.apis.Snapshot();
    const auto* ns = snap->FindResource("", "v1", "namespaces", "");
    if (!ns || !ns->creater) co_return Status(500, "InternalError", "namespaces are not served");
    static const UserInfo kApiserver{"system:apiserver", "", {"system:authenticated", "system:masters"}, {}};
    registry::Context ctx;
    ctx.user = &kApiserver;
    registry::Object obj{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", boost::json::object{{"name", name}}}};
    auto out = co_await ns->creater->Create(ctx, std::move(obj), {});
    co_return out.ok() ? Status() : out.TakeStatus();
  };
  // OwnerReferencesPermissionEnforcement: owners' kinds as the API serves them now (custom resources too).
  pdeps.map_kind = [&s](std::string_view api_version, std::string_view kind) -> std::optional<admission::KindMapping> {
    auto snap = s.apis.Snapshot();
    auto m = controllers::MapKind(*snap, api_version, kind);
    if (!m) return std::nullopt;
    return admission::KindMapping{m->gvr.group, m->gvr.version, m->gvr.resource, m->namespaced};
  };
  // CertificateApproval and CertificateSigning ask the server's authorizer about the signers resource.
  pdeps.authorize = [&s](const UserInfo& user, const admission::AuthorizeRequest& r) -> Task<bool> {
    authz::Attributes at;
    at.user = user;
    at.verb = r.verb;
    at.resource_request = true;
    at.namespace_ = r.namespace_;
    at.api_group = r.api_group;
    at.api_version = r.api_version;
    at.resource = r.resource;
    at.subresource = r.subresource;
    at.name = r.name;
    authz::Result res = co_await s.authorization->authorizer().Authorize(at);
    co_return res.decision == authz::Decision::kAllow;
  };
  // --admission-control-config-file: read once; each plugin gets its entry when it is built.
  auto admission_config = admission::ReadAdmissionConfigFile(o.admission_control_config_file);
  if (!admission_config.ok()) return admission_config.status();
  pdeps.config = std::make_shared<const admission::AdmissionConfig>(std::move(*admission_config));
  pdeps.not_ready_toleration_seconds = o.default_not_ready_toleration_seconds;
  pdeps.unreachable_toleration_seconds = o.default_unreachable_toleration_seconds;
  // The deprecated --admission-control names the whole set: the others are off (kube's computePluginNames).
  std::vector<std::string> enable = o.enable_admission_plugins, disable = o.disable_admission_plugins;
  if (o.given.count("admission-control")) {
    if (o.given.count("enable-admission-plugins") || o.given.count("disable-admission-plugins")) {
      return Status(400, "BadRequest",
                    "admission-control and enable-admission-plugins/disable-admission-plugins flags are mutually exclusive");
    }
    const auto& all = admission::AllPluginsInOrder();
    for (const auto& n : o.admission_control) {
      if (std::find(all.begin(), all.end(), n) == all.end()) {
        return Status(400, "BadRequest", "admission-control plugin \"" + n + "\" is unknown");
      }
    }
    enable = o.admission_control;
    disable.clear();
    for (const auto& n : all) {
      if (std::find(enable.begin(), enable.end(), n) == enable.end()) disable.push_back(n);
    }
  }
  auto admission_chain = admission::BuildChain(enable, disable, pdeps);
  if (!admission_chain.ok()) return admission_chain.status();
  s.admission = std::move(admission_chain->chain);
  s.admission->RecordTo(s.metrics);
  if (!admission_chain->not_implemented.empty()) {
    LogWarn("admission plugins enabled but not available yet", {{"plugins", Join(admission_chain->not_implemented, ",")}});
  }
  return Status();
}

// The API: every group's resources, the objects every cluster starts with, the CRD loop, and the
// handler that serves /api and /apis with the protobuf codec.
Status App::State::InstallApi() {
  State& s = *this;
  const Options& o = s.opts;
  api::core::SetAllowPrivileged(o.allow_privileged);
  registry::GroupDeps deps;
  deps.store = &s.caches->Store();
  deps.store_for = [&s](const std::string& root, const registry::ResourceInfo& info,
                        const std::shared_ptr<const registry::Strategy>& strategy) {
    return s.caches->For(root, info.group, info.resource,
                         [strategy](const storage::Object& obj) { return strategy->SelectableFields(obj); });
  };
  deps.admission = s.admission.get();
  deps.schemas = s.schemas.get();
  deps.prefix = o.etcd_prefix;
  deps.event_ttl_seconds = std::chrono::duration_cast<std::chrono::seconds>(o.event_ttl).count();
  deps.kubelet.preferred_address_types = o.kubelet_preferred_address_types;
  deps.kubelet.port = o.kubelet_port;
  RETURN_IF_ERROR(MakeConnectClients());
  api::core::CoreOptions core_opts;
  core_opts.service_cluster_ip_range = o.service_cluster_ip_range;
  core_opts.service_node_port_range = o.service_node_port_range;
  s.crd_signal = std::make_shared<api::apiextensions::CrdChangeSignal>();
  // The groups in discovery order, one line each (a group's Install lists its resources: src/api/<group>/).
  std::vector<std::vector<registry::RestResource>> groups;
  groups.push_back(api::core::Install(deps, core_opts));
  groups.push_back(api::core::ComponentStatuses(deps, s.component_statuses));
  groups.push_back(api::coordination::Install(deps));
  groups.push_back(api::apps::Install(deps));
  groups.push_back(api::batch::Install(deps));
  groups.push_back(api::autoscaling::Install(deps));
  groups.push_back(api::policy::Install(deps));
  for (auto& group : api::CatalogGroups(deps)) groups.push_back(std::move(group));
  groups.push_back(s.authentication->AuthenticationApi(deps));
  groups.push_back(s.authentication->ServiceAccountTokenApi(deps));
  groups.push_back(api::apiextensions::Install(deps, s.crd_signal));
  groups.push_back(api::rbac::Install(deps, s.authorization->RbacOptions()));
  groups.push_back(api::authorization::Install(deps, s.authorization->ReviewOptions()));
  std::set<std::string> versions;  // every group/version Capstan has, served or switched off
  for (auto& group : groups) {
    std::erase_if(group, [&](const registry::RestResource& r) {
      versions.insert(r.info.group + "/" + r.info.version);
      return !s.runtime_config.ResourceEnabled(r.info.group, r.info.version, r.info.resource);
    });
    endpoints::InstallResources(s.apis, std::move(group));
  }
  if (auto missing = s.runtime_config.NotServed(versions); !missing.empty()) {
    LogWarn("API group versions enabled by --runtime-config are not served: Capstan does not have them",
            {{"groupVersions", Join(missing, ",")}});
  }
  s.storage->RegisterResources(s.apis);
  RETURN_IF_ERROR(s.storage->MoveLegacyKeys(*s.objects));
  RETURN_IF_ERROR(EnsureSystemNamespaces(s.apis));
  // The bootstrap RBAC policy (kube's rbac/bootstrap-roles hook) and the authorizers' informers.
  RETURN_IF_ERROR(s.authorization->Start());
  RETURN_IF_ERROR(BootstrapCatalogObjects(s.apis));  // after every group is installed
  // Custom resources: cached like the built-ins, their JSON written with sorted keys as kube's
  // unstructured encoder does.
  api::apiextensions::CrdController::Options co;
  co.deps.deps = deps;
  co.deps.deps.store_for = [&s](const std::string& root, const registry::ResourceInfo& info,
                                const std::shared_ptr<const registry::Strategy>& strategy) {
    apimachinery::JsonWriteOptions json;
    json.sort_keys = true;
    return s.caches->For(root, info.group, info.resource,
                         [strategy](const storage::Object& obj) { return strategy->SelectableFields(obj); }, json);
  };
  co.deps.builtin = std::shared_ptr<const apimachinery::SchemaRegistry>(s.schemas.get(), [](const apimachinery::SchemaRegistry*) {});
  // Conversion webhooks: the admission webhooks' HTTP client and service resolution.
  co.deps.webhook.http = &s.audit->webhook_http();
  co.deps.webhook.resolve_service = MakeServiceResolver(s.apis);
  co.deps.webhook.metrics = api::apiextensions::ConversionWebhookMetrics::Register(s.metrics);
  s.crd_controller = std::make_unique<api::apiextensions::CrdController>(s.apis, s.crd_signal, std::move(co));
  s.crd_controller->Start();
  endpoints::HandlerLimits limits;
  limits.max_body_bytes = static_cast<size_t>(o.max_request_body_bytes);
  limits.min_request_timeout_seconds = o.min_request_timeout;
  limits.protobuf = s.protobuf.get();
  s.watch_event_metrics = std::make_unique<endpoints::WatchEventMetrics>(s.metrics);
  limits.watch_events = s.watch_event_metrics.get();
  limits.connect = s.connect_clients.get();
  s.api_handler = std::make_unique<endpoints::ApiHandler>(s.apis, limits);
  return Status();
}

// The clients pods/log and the proxy subresources use: the kubelet client's certificate and CA
// files are read (and checked) now, as kube does at start.
Status App::State::MakeConnectClients() {
  const Options& o = opts;
  endpoints::ConnectClientsConfig cc;
  auto read = [](const std::string& path, const char* flag, std::string& out) -> Status {
    if (path.empty()) return Status();
    auto data = ReadFileToString(path);
    if (!data.ok()) return Status(400, "BadRequest", std::string("--") + flag + ": " + data.status().message());
    out = std::move(*data);
    return Status();
  };
  RETURN_IF_ERROR(read(o.kubelet_client_certificate, "kubelet-client-certificate", cc.kubelet.client_cert_pem));
  RETURN_IF_ERROR(read(o.kubelet_client_key, "kubelet-client-key", cc.kubelet.client_key_pem));
  RETURN_IF_ERROR(read(o.kubelet_certificate_authority, "kubelet-certificate-authority", cc.kubelet.ca_pem));
  if (cc.kubelet.client_cert_pem.empty() != cc.kubelet.client_key_pem.empty()) {
    return Status(400, "BadRequest", "--kubelet-client-certificate and --kubelet-client-key must be given together");
  }
  cc.kubelet_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(o.kubelet_timeout);
  if (cc.kubelet_timeout.count() <= 0) cc.kubelet_timeout = std::chrono::seconds(5);
  cc.max_bytes_per_sec = o.max_connection_bytes_per_sec;
  connect_clients = std::make_unique<endpoints::ConnectClients>(audit->webhook_http(), std::move(cc), &metrics);
  if (auto c = connect_clients->Client(registry::ConnectTransport::kKubelet); !c.ok()) {
    return Status(400, "BadRequest", "the kubelet client configuration is unusable: " + c.status().message());
  }
  if (o.kubelet_certificate_authority.empty()) {
    LogInfo("kubelet serving certificates are not verified: no --kubelet-certificate-authority given");
  }
  return Status();
}

// The aggregation layer (APIServices backed by a service).
void App::State::StartAggregator(const Pki& pki) {
  State& s = *this;
  const Options& o = s.opts;
  // The aggregation layer sees /apis first (kube-aggregator in front of the local handlers): the
  // front-proxy client certificate (--proxy-client-cert-file/--proxy-client-key-file, else the
  // generated one) and service resolution as for the admission webhooks.
  aggregator::AggregatorOptions ao;
  ao.http = &s.audit->webhook_http();
  ao.resolve_service = MakeServiceResolver(s.apis);
  auto cert = ReadFileToString(o.proxy_client_cert_file.empty() ? pki.front_proxy_client_cert_file
                                                               : o.proxy_client_cert_file);
  auto key = ReadFileToString(o.proxy_client_key_file.empty() ? pki.front_proxy_client_key_file
                                                             : o.proxy_client_key_file);
  if (cert.ok() && key.ok()) {
    ao.proxy_client_cert_pem = *cert;
    ao.proxy_client_key_pem = *key;
  } else {
    LogWarn("aggregator: no proxy client certificate", {{"error", cert.ok() ? key.status().message() : cert.status().message()}});
  }
  // kube-system/extension-apiserver-authentication for aggregated servers.
  aggregator::AuthenticationInfo info;
  const auto& ac = o.authentication;
  if (auto ca = ReadFileToString(o.client_ca_file.empty() ? pki.ca_cert_file : o.client_ca_file); ca.ok()) {
    info.client_ca_pem = *ca;
  }
  if (!ac.requestheader_client_ca_file.empty()) {
    if (auto ca = ReadFileToString(ac.requestheader_client_ca_file); ca.ok()) info.requestheader_ca_pem = *ca;
    info.allowed_names = ac.requestheader_allowed_names;
    info.username_headers = ac.requestheader_username_headers;
    info.uid_headers = ac.requestheader_uid_headers;
    info.group_headers = ac.requestheader_group_headers;
    info.extra_headers_prefix = ac.requestheader_extra_headers_prefix;
  }
  ao.authentication_info = std::move(info);
  ao.metrics = &s.metrics;
  s.aggregator = std::make_unique<aggregator::Aggregator>(s.apis, std::move(ao));
  s.aggregator->Start();
}

// /api, /apis (the aggregator first), the service-account issuer's discovery and /openapi.
void App::State::InstallApiRoutes() {
  State& s = *this;
  auto api = [&s](http::RequestContext& ctx) -> Task<void> { co_await s.api_handler->Handle(ctx); };
  s.router.HandlePrefix("/api", api);
  s.router.HandlePrefix("/apis", [&s](http::RequestContext& ctx) -> Task<void> {
    if (co_await s.aggregator->Handle(ctx)) co_return;
    co_await s.api_handler->Handle(ctx);
  });
  s.authentication->InstallDiscoveryRoutes(s.router);
  s.openapi = std::make_unique<endpoints::OpenApiHandler>(s.apis, s.schemas.get(), GitVersion());
  s.router.Handle("/openapi/v2", [&s](http::RequestContext& ctx) -> Task<void> { co_await s.openapi->HandleV2(ctx); });
  s.router.HandlePrefix("/openapi/v3", [&s](http::RequestContext& ctx) -> Task<void> { co_await s.openapi->HandleV3(ctx); });
}

// /healthz, /livez, /readyz with their checks, /version, /metrics and the root paths.
void App::State::InstallHealthAndMetrics() {
  State& s = *this;
  server::AddProcessMetrics(s.metrics);
  features::AddFeatureMetrics(features::Gates(), s.metrics);
  s.request_metrics = std::make_unique<server::RequestMetrics>(s.metrics);

  s.health.Add("ping", []() -> Task<Status> { co_return Status(); });
  s.health.Add("log", []() -> Task<Status> { co_return Status(); });
  s.storage->AddHealthChecks(s.health, *s.backend);
  s.health.Add(
      "poststarthook/storage-readiness",
      [&s]() -> Task<Status> {
        if (s.storage_ready.load()) co_return Status();
        Status st = s.caches->Ready();
        if (st.ok()) s.storage_ready = true;
        co_return st;
      },
      server::HealthChecks::kReadyz);
  s.health.Add(
      "shutdown",
      [&s]() -> Task<Status> {
        if (s.shutting_down.load()) co_return Status(500, "InternalError", "process is shutting down");
        co_return Status();
      },
      server::HealthChecks::kReadyz);
  s.health.Install(s.router);
  s.health.RecordTo(s.sli_metrics);
  server::AddProcessStartTime(s.sli_metrics);
  server::VersionInfo version = server::CurrentVersionInfo(kKubeMajor, kKubeMinor, GitVersion());
  version.git_commit = GitCommit();
  version.git_tree_state = GitTreeState();
  if (!BuildDate().empty()) version.build_date = BuildDate();
  server::AddBuildInfo(s.metrics, version);
  server::InstallVersion(s.router, std::move(version));
  // kube installs the reset handlers and the debug endpoints only with --profiling.
  const bool profiling = s.opts.observability.profiling;
  server::InstallMetrics(s.router, "/metrics", s.metrics, profiling);
  server::InstallMetrics(s.router, "/metrics/slis", s.sli_metrics, profiling);
  if (profiling) {
    server::InstallDebugFlags(s.router);
    server::InstallProfiling(s.router);
  }
  server::InstallRootPaths(s.router);
}

// The filter chain (server/handler_chain.cpp) around the router.
http::Handler App::State::BuildChain() {
  State& s = *this;
  const Options& o = s.opts;
  server::ChainConfig chain;
  chain.authenticator = &s.authentication->authenticator();
  chain.authorizer = &s.authorization->authorizer();
  chain.metrics = s.request_metrics.get();
  chain.wait_group = &s.wait_group;
  chain.request_timeout = o.request_timeout;
  chain.cors_allowed_origins = o.cors_allowed_origins;
  chain.max_requests_inflight = o.max_requests_inflight;
  chain.max_mutating_requests_inflight = o.max_mutating_requests_inflight;
  if (o.enable_priority_and_fairness) {
    // kube's server concurrency limit: the two in-flight limits summed.
    s.apf = std::make_unique<ApfSetup>(s.apis, s.caches.get(), s.metrics,
                                       o.max_requests_inflight + o.max_mutating_requests_inflight);
    s.apf->InstallDebugRoutes(s.router);
    s.apf->Start();
    chain.apf = &s.apf->controller();
  }
  if (!o.disable_http2_serving) chain.goaway_chance = o.goaway_chance;
  chain.hsts_directives = o.hsts_directives;
  chain.audit = s.audit->ChainConfig();
  return server::BuildHandlerChain(
      [&s](http::RequestContext& ctx) -> Task<void> { co_await s.router.Dispatch(ctx); }, chain);
}

// The HTTPS listener; admin.kubeconfig is written once the port is known, before the first request.
Status App::State::Serve(const Pki& pki, http::Handler root, const std::string& kubeconfig_path) {
  State& s = *this;
  const Options& o = s.opts;
  server::HttpServerOptions hopts;
  hopts.bind_address = o.bind_address;
  hopts.port = o.secure_port;
  hopts.permit_port_sharing = o.permit_port_sharing;
  auto pair = ChooseServingPair(o, pki);
  if (!pair.ok()) return pair.status();
  hopts.tls_cert_file = pair->cert_file;
  hopts.tls_private_key_file = pair->key_file;
  hopts.client_ca_files.push_back(o.client_ca_file.empty() ? pki.ca_cert_file : o.client_ca_file);
  if (!o.authentication.requestheader_client_ca_file.empty()) {
    hopts.client_ca_files.push_back(o.authentication.requestheader_client_ca_file);
  }
  hopts.limits.max_body_bytes = static_cast<size_t>(o.max_request_body_bytes);
  hopts.enable_http2 = !o.disable_http2_serving;
  hopts.http2_max_streams_per_connection = static_cast<uint32_t>(std::max(0, o.http2_max_streams_per_connection));
  hopts.metrics = &s.metrics;
  if (!o.tls_min_version.empty()) hopts.tls_min_version = o.tls_min_version;
  hopts.tls_cipher_suites = o.tls_cipher_suites;
  for (const auto& nck : o.sni_cert_keys) hopts.sni_cert_keys.push_back({nck.cert_file, nck.key_file, nck.names});
  s.http = std::make_unique<server::HttpServer>(hopts, std::move(root));
  Status written;
  Status st = s.http->Start([&](int port) {
    AdminKubeconfig admin;
    admin.server_url = ServerUrl(o.bind_address, port);
    admin.ca_cert_pem = pki.ca_cert_pem;
    admin.client_cert_pem = pki.admin_cert_pem;
    admin.client_key_pem = pki.admin_key_pem;
    written = WriteAdminKubeconfig(kubeconfig_path, admin);
  });
  RETURN_IF_ERROR(st);
  RETURN_IF_ERROR(written);
  // A client CA bundle re-read with new content: the authenticators verify with it too (kube's
  // dynamic CA content feeds both the handshake and the x509 and front-proxy verifiers).
  authn::Authentication& authn = s.authentication->authentication();
  s.http->OnClientCaChange([&authn](size_t index, const std::string& pem) {
    authn::X509Authenticator* verifier = index == 0 ? authn.client_ca_verifier() : authn.requestheader_verifier();
    if (!verifier) return;
    if (Status r = verifier->ReplaceCaBundle(pem); !r.ok()) {
      LogWarn("client CA reload failed, the previous bundle stays in use", {{"error", r.message()}});
    }
  });
  return Status();
}

// The default/kubernetes Service and Endpoints (kube's bootstrap controller).
void App::State::StartKubernetesService() {
  State& s = *this;
  const Options& o = s.opts;
  auto snap = s.apis.Snapshot();
  const auto* services = snap->FindResource("", "v1", "services", "");
  const auto* endpoints = snap->FindResource("", "v1", "endpoints", "");
  auto range = registry::IpRange::Parse(Split(o.service_cluster_ip_range, ',')[0]);
  if (services && endpoints && range.ok()) {
    api::core::KubernetesServiceController::Config kc;
    kc.services = services->storage.get();
    kc.endpoints = endpoints->storage.get();
    kc.store = s.objects.get();
    kc.prefix = o.etcd_prefix;
    kc.cluster_ip = range->First().String();
    kc.public_ip = api::core::KubernetesServiceController::ChoosePublicIp(o.advertise_address, o.bind_address);
    kc.port = s.http->port();
    kc.reconcile_endpoints = o.endpoint_reconciler_type != "none";
    if (const auto* slices = snap->FindResource("discovery.k8s.io", "v1", "endpointslices", "")) {
      kc.endpoint_slices = api::discovery::EndpointSliceMirror(slices->storage);
    }
    s.kubernetes_service = std::make_unique<api::core::KubernetesServiceController>(std::move(kc));
    s.kubernetes_service->Start();
  }
  // This replica's identity Lease (kube's APIServerIdentity, on by default) and their garbage collector.
  const auto* leases = snap->FindResource("coordination.k8s.io", "v1", "leases", "");
  char host[256] = {};
  if (features::Enabled("APIServerIdentity") && leases && ::gethostname(host, sizeof host - 1) == 0) {
    api::coordination::IdentityLeaseController::Config ic;
    ic.leases = leases->storage.get();
    ic.hostname = host;
    s.identity_lease = std::make_unique<api::coordination::IdentityLeaseController>(std::move(ic));
    s.identity_lease->Start();
  }
}

// The control loops, in process, acting through the API (src/controllers/).
Status App::State::StartControlLoops(const Pki& pki) {
  State& s = *this;
  const Options& o = s.opts;
  controllers::ControllerManagerOptions co;
  if (!o.controllers.empty()) co.controllers = o.controllers;
  co.root_ca_pem = pki.ca_cert_pem;
  if (const authn::ServiceAccountTokenGenerator* gen = s.authentication->authentication().token_generator()) {
    co.sign_legacy_token = [gen](const std::string& ns, const std::string& account, const std::string& uid,
                                 const std::string& secret) { return gen->GenerateLegacy(ns, {account, uid}, secret); };
  }
  const bool sole_replica = o.etcd_servers.empty();  // the embedded store belongs to this process
  co.leader_election.enabled = o.leader_elect;
  co.leader_election.sole_replica = sole_replica;
  co.leader_election.lease_duration = std::chrono::duration_cast<std::chrono::milliseconds>(o.leader_elect_lease_duration);
  co.leader_election.renew_deadline = std::chrono::duration_cast<std::chrono::milliseconds>(o.leader_elect_renew_deadline);
  co.leader_election.retry_period = std::chrono::duration_cast<std::chrono::milliseconds>(o.leader_elect_retry_period);
  co.leader_election.resource_name = o.leader_elect_resource_name;
  co.leader_election.resource_namespace = o.leader_elect_resource_namespace;
  co.namespace_controller.deletion_delay = sole_replica ? std::chrono::milliseconds(0) : std::chrono::milliseconds(5000);
  s.controllers = std::make_unique<controllers::ControllerManager>(s.apis, s.metrics, std::move(co));
  RETURN_IF_ERROR(s.controllers->Start());
  return Status();
}

// What componentstatuses reports (api/core/component_status.h): no scheduler; the controller manager
// while some replica's control loops hold the leader Lease; each --etcd-servers member's own health
// check (etcd-0: the embedded store's).
void App::State::SetComponentStatuses() {
  State& s = *this;
  namespace core = api::core;
  std::vector<core::ComponentProbe> probes;
  probes.push_back({"scheduler", []() -> Task<core::ComponentHealth> {
                      co_return core::RefusedProbe(core::kSchedulerHealthPort);
                    }});
  probes.push_back({"controller-manager", [&s]() -> Task<core::ComponentHealth> {
                      if (s.controllers && s.controllers->IsLeader()) co_return core::ComponentHealth{"True", "ok", ""};
                      auto snap = s.apis.Snapshot();
                      const auto* leases = snap->FindResource("coordination.k8s.io", "v1", "leases", "");
                      auto* getter = leases ? dynamic_cast<registry::Getter*>(leases->storage.get()) : nullptr;
                      // Another replica's loops (our Lease), or a real kube-controller-manager (its Lease).
                      std::vector<std::pair<std::string, std::string>> held_by;
                      if (s.opts.leader_elect) {
                        held_by.emplace_back(s.opts.leader_elect_resource_namespace, s.opts.leader_elect_resource_name);
                      }
                      held_by.emplace_back("kube-system", "kube-controller-manager");
                      for (const auto& [ns, name] : held_by) {
                        if (!getter) break;
                        registry::Context ctx;
                        ctx.namespace_ = ns;
                        auto lease = co_await getter->Get(ctx, name, {});
                        if (lease.ok() && core::LeaseHeld(*lease, apimachinery::Timestamp::Now())) {
                          co_return core::ComponentHealth{"True", "ok", ""};
                        }
                      }
                      co_return core::RefusedProbe(core::kControllerManagerHealthPort);
                    }});
  auto members = s.storage->MemberChecks(*s.backend);
  for (size_t i = 0; i < members.size(); ++i) {
    probes.push_back({"etcd-" + std::to_string(i), [check = members[i]]() -> Task<core::ComponentHealth> {
                        Status st = co_await check();
                        if (st.ok()) co_return core::ComponentHealth{"True", "ok", ""};
                        co_return core::ComponentHealth{"False", "", st.message()};
                      }});
  }
  s.component_statuses->Set(std::move(probes));
}

Status App::Start() {
  State& s = *s_;
  const Options& o = s.opts;
  // kube's check of --runtime-config (with --enable-priority-and-fairness), before anything is written.
  ASSIGN_OR_RETURN(s.runtime_config, RuntimeConfig::Parse(o.runtime_config, o.enable_priority_and_fairness));
  // cliflag.TLSVersion's names; kube's error for others.
  static const std::set<std::string> kTlsVersions = {"VersionTLS10", "VersionTLS11", "VersionTLS12", "VersionTLS13"};
  if (!o.tls_min_version.empty() && !kTlsVersions.count(o.tls_min_version)) {
    return Status(400, "BadRequest", "unknown tls version \"" + o.tls_min_version + "\"");
  }
  if (auto bad = server::CheckTlsCipherSuites(o.tls_cipher_suites)) return Status(400, "BadRequest", *bad);
  if (o.tls_min_version == "VersionTLS10" || o.tls_min_version == "VersionTLS11") {
    LogWarn("--tls-min-version below VersionTLS12: the TLS library refuses older versions, so TLS 1.2 is the minimum",
            {{"tls-min-version", o.tls_min_version}});
  }
  if (o.endpoint_reconciler_type == "master-count") {
    LogWarn("--endpoint-reconciler-type=master-count: Capstan keeps the kubernetes Endpoints with the lease reconciler");
  } else if (o.endpoint_reconciler_type != "lease" && o.endpoint_reconciler_type != "none" &&
             !o.endpoint_reconciler_type.empty()) {
    return Status(400, "BadRequest", "Reconciler not implemented: " + o.endpoint_reconciler_type);
  }
  {
    ObservabilityFlags observability = o.observability;
    LoadMetricLabelsManifest(observability);
    s.metrics.Configure(observability.metrics);
  }
  ASSIGN_OR_RETURN(Pki pki, PrepareDataDir(o));
  RETURN_IF_ERROR(s.BuildSecurity(pki));
  RETURN_IF_ERROR(s.LoadBuiltinSchemas());
  RETURN_IF_ERROR(s.OpenStorage());
  RETURN_IF_ERROR(s.BuildAudit());
  RETURN_IF_ERROR(s.BuildAdmission());
  RETURN_IF_ERROR(s.InstallApi());
  s.StartAggregator(pki);
  s.InstallApiRoutes();
  s.InstallHealthAndMetrics();
  const std::string kubeconfig_path = o.data_dir + "/admin.kubeconfig";
  RETURN_IF_ERROR(s.Serve(pki, s.BuildChain(), kubeconfig_path));
  s.StartKubernetesService();
  RETURN_IF_ERROR(s.StartControlLoops(pki));
  s.SetComponentStatuses();
  LogInfo("serving securely", {{"address", ServerUrl(o.bind_address, s.http->port())},
                               {"kubeconfig", kubeconfig_path},
                               {"version", GitVersion()}});
  return Status();
}


void App::Shutdown() {
  State& s = *s_;
  LogInfo("shutting down");
  s.shutting_down = true;
  if (s.kubernetes_service) s.kubernetes_service->Stop();  // this server leaves the kubernetes Endpoints
  if (s.identity_lease) s.identity_lease->Stop();
  if (s.controllers) s.controllers->Stop();
  if (s.apf) s.apf->Stop();
  if (s.authorization) s.authorization->Stop();
  if (s.crd_controller) s.crd_controller->Stop();
  if (s.aggregator) s.aggregator->Stop();  // its loop uses the HTTP client the audit setup owns
  if (s.opts.shutdown_delay.count() > 0) {
    std::this_thread::sleep_for(s.opts.shutdown_delay);
  }
  if (!s.http) return;
  // Non-long-running requests finish (bounded by the request timeout); then connections close and
  // long-running requests (watches) are ended.
  auto grace = std::chrono::duration_cast<std::chrono::milliseconds>(s.opts.request_timeout) + std::chrono::seconds(5);
  if (!s.wait_group.CloseAndWait(grace)) LogWarn("shutdown: some requests did not finish in time");
  s.http->Shutdown(std::chrono::seconds(5));
  if (s.audit) s.audit->Shutdown();  // what the requests left in the audit buffers is written
  LogInfo("stopped");
}

}  // namespace capstan::cmd
