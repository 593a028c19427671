#include "cmd/audit_setup.h"

#include <fstream>
#include <sstream>

#include "audit/log_backend.h"
#include "audit/webhook_backend.h"
#include "cmd/kubeconfig.h"
#include "server/http_client.h"
#include "util/log.h"

namespace capstan::cmd {

namespace {

StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(400, "BadRequest", "open " + path + ": no such file or directory");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

StatusOr<std::unique_ptr<AuditSetup>> AuditSetup::Create(const AuditFlags& f, MetricsRegistry& metrics, Decode decode) {
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
    audit::LogOptions lo;
    lo.path = f.log_path;
    lo.max_size_mb = f.log_maxsize;
    lo.max_backups = f.log_maxbackup;
    lo.max_age_days = f.log_maxage;
    lo.buffer.buffer_size = static_cast<size_t>(std::max(1, f.log_batch_buffer_size));
    auto b = audit::MakeLogBackend(lo, s->metrics_.get());
    if (!b.ok()) return b.status();
    backends.push_back(std::move(*b));
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
      auto ca = ReadWholeFile(target->cluster.certificate_authority);
      if (!ca.ok()) return ca.status();
      tls.ca_pem = *ca;
    }
    tls.insecure_skip_verify = target->cluster.insecure_skip_tls_verify;
    tls.server_name = target->cluster.tls_server_name;
    tls.client_cert_pem = target->user.client_certificate_data;
    tls.client_key_pem = target->user.client_key_data;
    if (tls.client_cert_pem.empty() && !target->user.client_certificate.empty()) {
      auto c = ReadWholeFile(target->user.client_certificate);
      if (!c.ok()) return c.status();
      tls.client_cert_pem = *c;
    }
    if (tls.client_key_pem.empty() && !target->user.client_key.empty()) {
      auto k = ReadWholeFile(target->user.client_key);
      if (!k.ok()) return k.status();
      tls.client_key_pem = *k;
    }
    auto client = s->http_->NewClient(tls);
    if (!client.ok()) return client.status();
    audit::WebhookOptions wo;
    wo.url = target->cluster.server;
    wo.bearer_token = target->user.token;
    wo.initial_backoff = std::chrono::duration_cast<std::chrono::milliseconds>(f.webhook_initial_backoff);
    wo.buffer.buffer_size = static_cast<size_t>(std::max(1, f.webhook_batch_buffer_size));
    wo.buffer.max_batch_size = static_cast<size_t>(std::max(1, f.webhook_batch_max_size));
    wo.buffer.max_wait = std::chrono::duration_cast<std::chrono::milliseconds>(f.webhook_batch_max_wait);
    backends.push_back(audit::MakeWebhookBackend(std::move(*client), std::move(wo), s->metrics_.get()));
  }
  if (backends.size() == 1) {
    s->backend_ = std::move(backends[0]);
  } else if (!backends.empty()) {
    s->backend_ = std::make_unique<audit::UnionBackend>(std::move(backends));
  }
  if (s->policy_ && !s->backend_) LogWarn("an audit policy is set but no audit backend: no events will be recorded");
  if (!s->policy_ && s->backend_) LogInfo("no audit policy file provided, no events will be recorded");
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
