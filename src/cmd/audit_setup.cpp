#include "cmd/audit_setup.h"

#include "audit/log_backend.h"
#include "server/http_client.h"
#include "util/log.h"

namespace capstan::cmd {

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
    LogWarn("--audit-webhook-config-file is not supported yet; audit events go to the log backend only");
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

std::function<http::Handler(http::Handler)> AuditSetup::FilterFactory() {
  audit::FilterConfig cfg;
  if (enabled()) {
    cfg.policy = policy_.get();
    cfg.backend = backend_.get();
  }
  cfg.metrics = metrics_.get();
  cfg.scopes = &scopes_;
  cfg.decode = decode_;
  return [cfg](http::Handler next) { return audit::WithAuditEvents(std::move(next), cfg); };
}

void AuditSetup::Shutdown() {
  if (backend_) backend_->Shutdown();
}

}  // namespace capstan::cmd
