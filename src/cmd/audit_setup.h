// cmd/audit_setup.h: auditing as the --audit-* flags ask: the policy, the log backend (and the webhook
// backend), the audit metrics, the per-request scopes admission writes warnings and annotations to,
// and the filter factory the handler chain installs. Without --audit-policy-file or any backend no
// events are recorded (as kube), but the filter still opens request scopes for admission.
// It also owns the HTTPS client engine the admission webhooks use.
// Thread-safety: built and shut down on the main thread; what it hands out is thread-safe.
#pragma once

#include <functional>
#include <memory>

#include "audit/backend.h"
#include "audit/filter.h"
#include "audit/policy.h"
#include "audit/request_scope.h"
#include "cmd/audit_flags.h"
#include "server/http/http_client.h"
#include "util/metrics.h"

namespace capstan::cmd {

class AuditSetup {
 public:
  using Decode = std::function<std::optional<boost::json::value>(std::string_view, std::string_view)>;
  // `decode` turns protobuf bodies into JSON for the events.
  static StatusOr<std::unique_ptr<AuditSetup>> Create(const AuditFlags& flags, MetricsRegistry& metrics, Decode decode);
  ~AuditSetup();

  // For ChainConfig::audit.
  std::function<http::Handler(http::Handler)> FilterFactory();
  // The decorator of authentication's 401 handler that audits failed attempts.
  std::function<http::Handler(http::Handler)> FailedAuthenticationFactory();
  audit::RequestScopes& scopes() { return scopes_; }
  // The HTTPS client engine of the audit and admission webhooks (one I/O thread).
  http::HttpClientFactory& webhook_http() { return *http_; }
  bool enabled() const { return policy_ && backend_; }
  // Sends what is buffered, then stops the backends.
  void Shutdown();

 private:
  AuditSetup() = default;
  std::unique_ptr<http::HttpClientFactory> http_;
  std::unique_ptr<audit::AuditMetrics> metrics_;
  std::unique_ptr<audit::Policy> policy_;
  std::unique_ptr<audit::Backend> backend_;
  audit::RequestScopes scopes_;
  Decode decode_;
};

}  // namespace capstan::cmd
