// cmd/audit_flags.h: kube-apiserver's --audit-* flags → AuditFlags in Options. options.cpp asks here
// for every flag its own table does not set. Values were already checked against the flag's kind
// (cmd/kube_flags.h); ValidateAuditFlags is kube's AuditOptions.Validate (the log backend's options
// only with --audit-log-path, the webhook's only with --audit-webhook-config-file), with its texts.
// Pure functions.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "apimachinery/status.h"

namespace capstan::cmd {

// One backend's --audit-<plugin>-mode, -batch-* and -truncate-* flags (kube's AuditBatchOptions and
// AuditTruncateOptions). The defaults are the webhook's; the log's differ (see AuditFlags).
struct AuditBackendFlags {
  std::string mode = "batch";
  int batch_buffer_size = 10000;
  int batch_max_size = 400;
  std::chrono::nanoseconds batch_max_wait = std::chrono::seconds(30);
  bool batch_throttle_enable = true;
  double batch_throttle_qps = 10;
  int batch_throttle_burst = 15;
  bool truncate_enabled = false;
  int64_t truncate_max_batch_size = 10 * 1024 * 1024;
  int64_t truncate_max_event_size = 100 * 1024;
  std::string version = "audit.k8s.io/v1";
};

inline AuditBackendFlags DefaultLogBackendFlags() {
  AuditBackendFlags f;
  f.mode = "blocking";
  f.batch_max_size = 1;
  f.batch_max_wait = std::chrono::nanoseconds(0);
  f.batch_throttle_enable = false;
  f.batch_throttle_qps = 0;
  f.batch_throttle_burst = 0;
  return f;
}

struct AuditFlags {
  std::string policy_file;             // --audit-policy-file
  std::string log_path;                // --audit-log-path ("-": stdout)
  int log_maxsize = 0;                 // --audit-log-maxsize (MB)
  int log_maxbackup = 0;               // --audit-log-maxbackup
  int log_maxage = 0;                  // --audit-log-maxage (days)
  std::string log_format = "json";     // --audit-log-format
  bool log_compress = false;           // --audit-log-compress
  AuditBackendFlags log = DefaultLogBackendFlags();  // --audit-log-mode, -batch-*, -truncate-*, -version
  std::string webhook_config_file;     // --audit-webhook-config-file
  std::chrono::nanoseconds webhook_initial_backoff = std::chrono::seconds(10);
  AuditBackendFlags webhook;           // --audit-webhook-mode, -batch-*, -truncate-*, -version
};

// nullopt: not an audit flag Capstan acts on. Otherwise the outcome of setting it.
std::optional<Status> SetAuditFlag(AuditFlags& flags, const std::string& name, const std::string& value);

// kube's AuditOptions.Validate: OK, or a 400 whose message is kube's error (several: kube's aggregate,
// "[first, second]").
Status ValidateAuditFlags(const AuditFlags& flags);

}  // namespace capstan::cmd
