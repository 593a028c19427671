#include "cmd/audit_setup.h"

#include "apimachinery/config_document.h"
#include "audit/blocking_backend.h"
#include "audit/buffered_backend.h"
#include "audit/log_backend.h"
#include "audit/truncate_backend.h"
#include "audit/webhook_backend.h"
#include "cmd/kubeconfig.h"
#include "server/http_client.h"
#include "util/log.h"

namespace capstan::cmd {

namespace {

// kube's AuditBatchOptions.wrapBackend: the mode around a backend.
std::unique_ptr<audit::Backend> WithMode(std::unique_ptr<audit::Backend> b, const AuditBackendFlags& f,
                                         bool async_delegate, audit::AuditMetrics* metrics) {
  if (f.mode == "blocking-strict") return std::make_unique<audit::BlockingBackend>(std::move(b), true);
  if (f.mode == "blocking") return std::make_unique<audit::BlockingBackend>(std::move(b), false);
  audit::BatchConfig c;
  c.buffer_size = static_cast<size_t>(f.batch_buffer_size);
  c.max_batch_size = static_cast<size_t>(f.batch_max_size);
  c.max_batch_wait = f.batch_max_wait;
  c.throttle_enable = f.batch_throttle_enable;
  c.throttle_qps = f.batch_throttle_qps;
  c.throttle_burst = f.batch_throttle_burst;
  c.async_delegate = async_delegate;
  return std::make_unique<audit::BufferedBackend>(std::move(b), c, metrics);
}

// kube's AuditTruncateOptions.wrapBackend.
std::unique_ptr<audit::Backend> WithTruncate(std::unique_ptr<audit::Backend> b, const AuditBackendFlags& f,
                                             audit::AuditMetrics* metrics) {
  if (!f.truncate_enabled) return b;
  audit::TruncateConfig c{f.truncate_max_event_size, f.truncate_max_batch_size};
  return std::make_unique<audit::TruncateBackend>(std::move(b), c, metrics);
}

}  // namespace

StatusOr<std::unique_ptr<AuditSetup>> AuditSetup::Create(const AuditFlags& f, MetricsRegistry& metrics, Decode decode) {
  RETURN_IF_ERROR(ValidateAuditFlags(f));
  std::unique_ptr<AuditSetup> s(new AuditSetup());
  server::HttpClientEngineOptions ho;
  ho.user_agent = "capstan-apiserver";
  s->http_ = std::make_unique<server::HttpClientEngine>(ho);
  s->metrics_ = std::make_unique<audit::AuditMetrics>(metrics);
  s->decode_ = std::move(decode);
  if (!f.policy_file.empty()) {
    auto p = audit::Policy::LoadFile(f.policy_file);
    if (!p.ok()) return p.status();
    s->policy_ = std::make_unique<audit::Policy>(std::move(*p));
  }
  std::vector<std::unique_ptr<audit::Backend>> backends;
  if (!f.log_path.empty()) {
    audit::RotatingFileOptions lo;
    lo.path = f.log_path;
    lo.max_size_mb = f.log_maxsize;
    lo.max_backups = f.log_maxbackup;
    lo.max_age_days = f.log_maxage;
    lo.compress = f.log_compress;
    auto format = f.log_format == "legacy" ? audit::LogFormat::kLegacy : audit::LogFormat::kJson;
    auto b = audit::LogBackend::Open(lo, format, s->metrics_.get());
    if (!b.ok()) return b.status();
    // kube's order: the mode around the log backend, truncation around both.
    auto moded = WithMode(std::move(*b), f.log, false, s->metrics_.get());
    backends.push_back(WithTruncate(std::move(moded), f.log, s->metrics_.get()));
  }
  if (!f.webhook_config_file.empty()) {
    // kube's webhook kubeconfig: the current context's cluster (server, CA) and user (client
    // certificate, token).
    auto kc = LoadKubeconfigFile(f.webhook_config_file);
    if (!kc.ok()) return kc.status();
    auto target = ResolveCurrentContext(*kc);
    if (!target.ok()) return target.status();
    http::ClientTlsConfig tls;
    tls.ca_pem = target->cluster.certificate_authority_data;
    if (tls.ca_pem.empty() && !target->cluster.certificate_authority.empty()) {
      auto ca = apimachinery::ReadConfigFile(target->cluster.certificate_authority);
      if (!ca.ok()) return ca.status();
      tls.ca_pem = *ca;
    }
    tls.insecure_skip_verify = target->cluster.insecure_skip_tls_verify;
    tls.server_name = target->cluster.tls_server_name;
    tls.client_cert_pem = target->user.client_certificate_data;
    tls.client_key_pem = target->user.client_key_data;
    if (tls.client_cert_pem.empty() && !target->user.client_certificate.empty()) {
      auto c = apimachinery::ReadConfigFile(target->user.client_certificate);
      if (!c.ok()) return c.status();
      tls.client_cert_pem = *c;
    }
    if (tls.client_key_pem.empty() && !target->user.client_key.empty()) {
      auto k = apimachinery::ReadConfigFile(target->user.client_key);
      if (!k.ok()) return k.status();
      tls.client_key_pem = *k;
    }
    auto client = s->http_->NewClient(tls);
    if (!client.ok()) return client.status();
    audit::WebhookOptions wo;
    wo.url = target->cluster.server;
    wo.bearer_token = target->user.token;
    wo.initial_backoff = f.webhook_initial_backoff;
    std::unique_ptr<audit::Backend> hook =
        std::make_unique<audit::WebhookBackend>(std::move(*client), std::move(wo), s->metrics_.get());
    auto moded = WithMode(std::move(hook), f.webhook, true, s->metrics_.get());
    backends.push_back(WithTruncate(std::move(moded), f.webhook, s->metrics_.get()));
  }
  if (backends.size() == 1) {
    s->backend_ = std::move(backends[0]);
  } else if (!backends.empty()) {
    s->backend_ = std::make_unique<audit::UnionBackend>(std::move(backends));
  }
  if (s->policy_ && !s->backend_) LogWarn("an audit policy is set but no audit backend: no events will be recorded");
  if (!s->policy_ && s->backend_) LogInfo("no audit policy file provided, no events will be recorded");
  if (s->policy_ && s->backend_) LogInfo("using audit backend", {{"backend", s->backend_->Name()}});
  return s;
}

AuditSetup::~AuditSetup() { Shutdown(); }

server::AuditConfig AuditSetup::ChainConfig() const {
  server::AuditConfig cfg;
  if (enabled()) {
    cfg.sink.policy = policy_.get();
    cfg.sink.backend = backend_.get();
  }
  cfg.sink.metrics = metrics_.get();
  cfg.decode = decode_;
  return cfg;
}

void AuditSetup::Shutdown() {
  if (backend_) backend_->Shutdown();
}

}  // namespace capstan::cmd
