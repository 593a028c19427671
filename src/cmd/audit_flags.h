// cmd/audit_flags.h: kube-apiserver's --audit-* flags → AuditFlags in Options. options.cpp asks here
// for every flag its own table does not set. Values were already checked against the flag's kind
// (cmd/kube_flags.h). Pure functions.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "apimachinery/status.h"

namespace capstan::cmd {

struct AuditFlags {
  std::string policy_file;             // --audit-policy-file
  std::string log_path;                // --audit-log-path ("-": stdout)
  int log_maxsize = 0;                 // --audit-log-maxsize (MB)
  int log_maxbackup = 0;               // --audit-log-maxbackup
  int log_maxage = 0;                  // --audit-log-maxage (days)
  int log_batch_buffer_size = 10000;   // --audit-log-batch-buffer-size
  std::string webhook_config_file;     // --audit-webhook-config-file
  int webhook_batch_buffer_size = 10000;
  int webhook_batch_max_size = 400;
  std::chrono::nanoseconds webhook_batch_max_wait = std::chrono::seconds(30);
  std::chrono::nanoseconds webhook_initial_backoff = std::chrono::seconds(10);
};

// nullopt: not an audit flag Capstan acts on. Otherwise the outcome of setting it.
std::optional<Status> SetAuditFlag(AuditFlags& flags, const std::string& name, const std::string& value);

}  // namespace capstan::cmd
