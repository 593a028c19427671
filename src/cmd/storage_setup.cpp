#include "cmd/storage_setup.h"

#include <unistd.h>

#include <algorithm>

#include "api/apiextensions/crd_v1beta1.h"
#include "api/coordination/identity_lease.h"
#include "registry/store.h"
#include "storage/embedded/embedded_backend.h"
#include "storage/etcd3/compactor.h"
#include "storage/etcd3/etcd3_backend.h"
#include "storage/etcd3/etcd3_client.h"
#include "storage/etcd3/health_check.h"
#include "storage/embedded/snapshot_scheduler.h"
#include "storage/transformers/config_reloader.h"
#include "storage/transformers/kms/kms_metrics.h"
#include "storage/transformers/kms/kms_provider.h"
#include "util/blocking_pool.h"
#include "storage/transformers/resource_transformers.h"
#include "util/feature_gate.h"
#include "util/duration.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::cmd {
namespace {

using std::chrono::duration_cast;
using std::chrono::milliseconds;

// path.Join("/", prefix, "health"), as kube's probe key.
std::string HealthKey(const std::string& prefix) {
  std::string p = prefix;
  while (!p.empty() && p.back() == '/') p.pop_back();
  while (!p.empty() && p.front() == '/') p.erase(p.begin());
  return p.empty() ? "/health" : "/" + p + "/health";
}

}  // namespace

std::string ApiServerId() {
  char host[256] = {};
  if (!features::Enabled("APIServerIdentity") || ::gethostname(host, sizeof host - 1) != 0) return "";
  return api::coordination::IdentityFor(host);
}

StorageSetup::~StorageSetup() = default;

namespace {

using KmsProviderList = std::vector<std::shared_ptr<storage::kms::KmsProvider>>;

// kube's kms-providers check: the first provider whose check fails.
Status CheckKms(const KmsProviderList& providers) {
  for (const auto& k : providers) {
    if (Status st = k->Check(); !st.ok()) return st;
  }
  return Status();
}

}  // namespace

storage::transformers::KmsFactory StorageSetup::KmsFactory(KmsProviderList* made) {
  return storage::kms::KmsProviderFactory(made, kms_metrics_.get());
}

storage::transformers::ReloadBuilder StorageSetup::ReloadBuilder() {
  namespace tr = storage::transformers;
  return [this](const tr::EncryptionConfig& config) -> StatusOr<tr::ReloadCandidate> {
    auto made = std::make_shared<KmsProviderList>();
    auto built = tr::BuildTransformers(config, KmsFactory(made.get()));
    if (!built.ok()) return built.TakeStatus();
    tr::ReloadCandidate out{std::move(*built), nullptr, nullptr};
    if (!made->empty()) out.health = [made] { return CheckKms(*made); };
    out.activate = [this, made] {
      std::lock_guard lock(kms_mu_);
      kms_ = *made;
    };
    return out;
  };
}

KmsProviderList StorageSetup::KmsProviders() const {
  std::lock_guard lock(kms_mu_);
  return kms_;
}

StatusOr<std::unique_ptr<StorageSetup>> StorageSetup::Open(const Options& o, MetricsRegistry& metrics,
                                                           const apimachinery::ProtobufCodec* protobuf) {
  std::unique_ptr<StorageSetup> s(new StorageSetup());
  s->options_ = o;
  auto media_type = storage::ParseStorageMediaType(o.storage_media_type.empty() ? "application/vnd.kubernetes.protobuf"
                                                                                : o.storage_media_type);
  if (!media_type.ok()) return media_type.status();
  s->codec_ = std::make_unique<storage::StorageCodec>(*media_type, protobuf);
  if (!o.etcd_servers.empty() && o.snapshot_interval.count() > 0) {
    return Status(400, "BadRequest",
                  "--snapshot-interval schedules snapshots of the embedded store; with --etcd-servers, take etcd's "
                  "with etcdctl snapshot save");
  }
  if (o.encryption_provider_config.empty() && o.encryption_provider_config_automatic_reload) {
    return Status(400, "BadRequest",
                  "--encryption-provider-config-automatic-reload must be set with --encryption-provider-config");
  }
  // CRDs are stored as kube's apiextensions server stores them, apiextensions.k8s.io/v1beta1 JSON
  // (known before any cache lists them).
  s->codec_->RegisterConversion(o.etcd_prefix + "/apiextensions.k8s.io/customresourcedefinitions",
                                {api::apiextensions::CrdV1ToV1beta1, api::apiextensions::CrdV1beta1ToV1});
  if (!o.encryption_provider_config.empty()) {
    namespace tr = storage::transformers;
    std::string hash;
    auto config = tr::LoadEncryptionConfig(o.encryption_provider_config, &hash);
    if (!config.ok()) return Status(400, "BadRequest", config.status().message());
    s->kms_metrics_ = std::make_unique<storage::kms::KmsMetrics>(metrics, ApiServerId());
    auto built = tr::BuildTransformers(*config, s->KmsFactory(&s->kms_));
    if (!built.ok()) return Status(400, "BadRequest", "error while building transformers: " + built.status().message());
    s->transformers_ = std::make_unique<tr::ResourceTransformers>(std::move(*built), o.etcd_prefix);
    s->transformation_metrics_ = std::make_unique<tr::TransformationMetrics>(metrics);
    s->transformers_->set_metrics(s->transformation_metrics_.get());
    LogInfo("encryption at rest configured", {{"config", o.encryption_provider_config},
                                              {"automaticReload", o.encryption_provider_config_automatic_reload}});
    if (o.encryption_provider_config_automatic_reload) {
      tr::ConfigReloaderOptions ro;
      ro.build = s->ReloadBuilder();
      s->reloader_ = std::make_unique<tr::ConfigReloader>(*s->transformers_, o.encryption_provider_config, hash,
                                                          ApiServerId(), metrics, std::move(ro));
      s->reloader_->Start();
    }
  }
  if (o.etcd_servers.empty()) {
    storage::EmbeddedOptions eo;
    eo.dir = o.data_dir + "/store";
    eo.quota_bytes = o.storage_quota_bytes;
    // --etcd-compaction-interval schedules the embedded store's compaction as it does kube's
    // compactor: every interval, keeping at least one interval of history (0: never).
    const auto interval = std::chrono::duration_cast<std::chrono::seconds>(o.etcd_compaction_interval);
    eo.compaction_interval = o.etcd_compaction_interval.count() > 0 ? std::max(interval, std::chrono::seconds(1))
                                                                    : std::chrono::seconds(0);
    eo.compaction_retention = eo.compaction_interval;
    eo.metrics = &metrics;
    auto backend = storage::OpenEmbeddedBackend(eo);
    if (!backend.ok()) return backend.status();
    s->backend_ = std::move(*backend);
    return s;
  }
  storage::etcd3::EtcdOptions eo;
  eo.endpoints = o.etcd_servers;
  eo.ca_file = o.etcd_cafile;
  eo.cert_file = o.etcd_certfile;
  eo.key_file = o.etcd_keyfile;
  eo.health_key = HealthKey(o.etcd_prefix);
  eo.metrics = &metrics;
  auto backend = storage::etcd3::OpenEtcd3Backend(eo);
  if (!backend.ok()) return Status(400, "BadRequest", backend.status().message());
  s->etcd_health_ = std::make_unique<storage::etcd3::EtcdHealth>(eo);
  if (o.etcd_servers.size() > 1) {
    for (const auto& endpoint : o.etcd_servers) {
      storage::etcd3::EtcdOptions member = eo;
      member.endpoints = {endpoint};
      member.metrics = nullptr;
      s->member_health_.push_back(std::make_unique<storage::etcd3::EtcdHealth>(member));
    }
  }
  const auto wait = duration_cast<milliseconds>(o.storage_initialization_timeout);
  LogInfo("waiting for etcd", {{"endpoints", Join(o.etcd_servers, ",")}, {"timeout", FormatGoDuration(wait)}});
  Status reached = s->etcd_health_->WaitForClient(wait);
  if (!reached.ok()) {
    return Status(503, "ServiceUnavailable",
                  "etcd is not reachable at " + Join(o.etcd_servers, ",") + " after " + FormatGoDuration(wait) +
                      " (--storage-initialization-timeout): " + reached.message());
  }
  Status connected = (*backend)->WaitForConnected(wait);
  if (!connected.ok()) return Status(503, "ServiceUnavailable", "etcd: " + connected.message());
  LogInfo("etcd reachable", {{"endpoints", Join(o.etcd_servers, ",")}, {"version", (*backend)->ServerVersion()}});
  s->backend_ = std::move(*backend);
  return s;
}

const storage::Transformer* StorageSetup::transformer() const { return transformers_.get(); }

void StorageSetup::StartCompactor(storage::Backend& backend) {
  if (options_.etcd_servers.empty()) return;
  compactor_ = std::make_unique<storage::etcd3::Compactor>(backend);
  compactor_->Start(duration_cast<milliseconds>(options_.etcd_compaction_interval));
}

void StorageSetup::StartSnapshots(storage::Backend& backend) {
  if (options_.snapshot_interval.count() == 0) return;
  const std::string dir = options_.snapshot_dir.empty() ? options_.data_dir + "/snapshots" : options_.snapshot_dir;
  snapshots_ = std::make_unique<storage::embedded::SnapshotScheduler>(backend, dir, options_.snapshot_interval,
                                                                     options_.snapshot_retention);
}

void StorageSetup::StartSizeMonitor(storage::Backend& backend, MetricsRegistry& metrics) {
  // kube reads the size at each scrape; a poll keeps scrapes from waiting on the store (the embedded
  // store's size is a local read, etcd's a Status call).
  const auto every = options_.etcd_servers.empty() ? std::chrono::seconds(1) : std::chrono::seconds(5);
  size_monitor_ = std::make_unique<storage::SizeMonitor>(backend, metrics, every);
}

void StorageSetup::AddHealthChecks(server::HealthChecks& health, storage::Backend& backend) {
  const bool v1_used = std::any_of(kms_.begin(), kms_.end(), [](const auto& k) { return k->api_version() == "v1"; });
  if (reloader_ || (!kms_.empty() && !v1_used)) {
    // kube's kms-providers check (with automatic reload, or KMS v2 providers only): each plugin's
    // check (with reload, of the configuration in effect), in /healthz and /readyz.
    // The plugin calls run on the blocking pool, not the I/O thread.
    health.Add(
        "kms-providers",
        [this]() -> Task<Status> { co_return co_await RunBlocking([this] { return CheckKms(KmsProviders()); }); },
        server::HealthChecks::kHealthz | server::HealthChecks::kReadyz);
  } else {
    // With a KMS v1 provider and no reload, kube checks each provider on its own: kms-provider-<i>.
    for (size_t i = 0; i < kms_.size(); ++i) {
      health.Add("kms-provider-" + std::to_string(i),
                 [k = kms_[i]]() -> Task<Status> { co_return co_await RunBlocking([&k] { return k->Check(); }); },
                 server::HealthChecks::kHealthz | server::HealthChecks::kReadyz);
    }
  }
  if (reloader_) {
    // The reload controller's post-start hook.
    health.Add("poststarthook/start-encryption-provider-config-automatic-reload", [this]() -> Task<Status> {
      co_return reloader_->started() ? Status() : Status(500, "InternalError", "not finished");
    });
  }
  if (!etcd_health_) {
    health.Add("storage", [&backend]() -> Task<Status> { co_return co_await backend.Check(); });
    return;
  }
  health.Add("etcd", etcd_health_->MakeCheck(duration_cast<milliseconds>(options_.etcd_healthcheck_timeout)));
  health.Add("etcd-readiness", etcd_health_->MakeCheck(duration_cast<milliseconds>(options_.etcd_readycheck_timeout)),
             server::HealthChecks::kReadyz);
}

std::vector<server::HealthChecks::Check> StorageSetup::MemberChecks(storage::Backend& backend) {
  if (!etcd_health_) return {[&backend]() -> Task<Status> { co_return co_await backend.Check(); }};
  const auto timeout = duration_cast<milliseconds>(options_.etcd_healthcheck_timeout);
  if (member_health_.empty()) return {etcd_health_->MakeCheck(timeout)};
  std::vector<server::HealthChecks::Check> out;
  for (const auto& m : member_health_) out.push_back(m->MakeCheck(timeout));
  return out;
}

std::function<bool()> StorageSetup::WatchProgressReliable(storage::Backend& backend) const {
  if (options_.etcd_servers.empty()) return nullptr;
  auto* etcd = dynamic_cast<storage::etcd3::Etcd3Backend*>(&backend);
  if (!etcd) return nullptr;
  return [etcd] { return storage::etcd3::ReliableProgressVersion(etcd->ServerVersion()); };
}

Status StorageSetup::MoveLegacyKeys(storage::ObjectStore& objects) {
  struct Move {
    const char* from;
    const char* to;
    bool namespaced;
  };
  for (const Move& m : {Move{"/ingresses", "/ingress", true},
                        Move{"/apiservices", "/apiregistration.k8s.io/apiservices", false}}) {
    const std::string from = options_.etcd_prefix + m.from;
    const std::string to = options_.etcd_prefix + m.to;
    auto list = SyncWait(objects.GetList(from, {}));
    if (!list.ok()) return list.status();
    for (auto& item : list->items) {
      const auto& md = item["metadata"].as_object();
      std::string tail;
      if (m.namespaced) tail = "/" + std::string(md.at("namespace").as_string());
      tail += "/" + std::string(md.at("name").as_string());
      item["metadata"].as_object().stable_erase("resourceVersion");
      auto created = SyncWait(objects.Create(to + tail, item, 0));
      if (!created.ok() && !created.status().IsStorage(StorageCode::kKeyExists)) return created.status();
      auto deleted = SyncWait(objects.Delete(from + tail, {}, nullptr));
      if (!deleted.ok() && !deleted.status().IsStorage(StorageCode::kKeyNotFound)) return deleted.status();
      LogInfo("object moved to kube's key", {{"from", from + tail}, {"to", to + tail}});
    }
  }
  return Status();
}

void StorageSetup::RegisterResources(const endpoints::ApiRegistry& apis) {
  auto snap = apis.Snapshot();
  for (const auto& [gv, entry] : snap->versions) {
    for (const auto& [name, r] : entry.resources) {
      if (!r.info.subresource.empty()) continue;
      if (const auto* store = dynamic_cast<const registry::Store*>(r.storage.get())) {
        if (transformers_) transformers_->RegisterResource(store->config().key_root, r.info.group, r.info.resource);
        // kube's apiextensions and aggregator servers store CRDs and APIServices with a JSON codec
        // (LegacyCodec) whatever --storage-media-type says.
        const bool json_only = r.info.group == "apiextensions.k8s.io" || r.info.group == "apiregistration.k8s.io";
        if (auto gvk = store->StorageVersion(); gvk && codec_ && !json_only) {
          codec_->RegisterResource(store->config().key_root, *gvk);
        }
      }
    }
  }
  // Keys no served resource owns, in kube's kinds: the service IP and node port allocators' bitmaps,
  // and the API servers' endpoint leases (kube's lease endpoint reconciler).
  if (codec_) {
    codec_->RegisterResource(options_.etcd_prefix + "/ranges/serviceips", {"", "v1", "RangeAllocation"});
    codec_->RegisterResource(options_.etcd_prefix + "/ranges/servicenodeports", {"", "v1", "RangeAllocation"});
    codec_->RegisterResource(options_.etcd_prefix + "/masterleases", {"", "v1", "Endpoints"});
  }
}

}  // namespace capstan::cmd
