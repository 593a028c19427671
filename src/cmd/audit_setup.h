// cmd/audit_setup.h: auditing as the --audit-* flags ask: the policy, the log backend (and the webhook
// backend), the audit metrics, and the handler chain's audit configuration. Without
// --audit-policy-file or any backend no events are recorded (as kube).
// It also owns the HTTPS client engine the admission webhooks use.
// Thread-safety: built and shut down on the main thread; what it hands out is thread-safe.
#pragma once

#include <functional>
#include <memory>

#include "audit/backend.h"
#include "audit/policy.h"
#include "cmd/audit_flags.h"
#include "server/filters/filters.h"
#include "server/http/http_client.h"
#include "util/metrics.h"

namespace capstan::cmd {

class AuditSetup {
 public:
  using Decode = std::function<std::optional<boost::json::value>(std::string_view, std::string_view)>;
  // `decode` turns protobuf bodies into JSON for the events.
  static StatusOr<std::unique_ptr<AuditSetup>> Create(const AuditFlags& flags, MetricsRegistry& metrics, Decode decode);
  ~AuditSetup();

  // For ChainConfig::audit: the sink (disabled without a policy and a backend) and the body decoder.
  server::AuditConfig ChainConfig() const;
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
  Decode decode_;
};

}  // namespace capstan::cmd
