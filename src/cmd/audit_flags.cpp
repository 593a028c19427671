#include "cmd/audit_flags.h"

#include <cstdio>
#include <vector>

#include "util/duration.h"
#include "util/strings.h"

namespace capstan::cmd {

namespace {

int ToInt(const std::string& v) { return static_cast<int>(std::stoll(v, nullptr, 0)); }
int64_t ToInt64(const std::string& v) { return std::stoll(v, nullptr, 0); }

Status BadDuration(const std::string& name, const std::string& value) {
  return Status(400, "BadRequest", "invalid argument \"" + value + "\" for \"--" + name + "\" flag");
}

// --audit-<plugin>-<rest> for one backend's mode, batch, truncate and version flags.
std::optional<Status> SetBackendFlag(AuditBackendFlags& f, const std::string& name, const std::string& rest,
                                     const std::string& value) {
  if (rest == "mode") {
    f.mode = value;
  } else if (rest == "batch-buffer-size") {
    f.batch_buffer_size = ToInt(value);
  } else if (rest == "batch-max-size") {
    f.batch_max_size = ToInt(value);
  } else if (rest == "batch-max-wait") {
    auto d = ParseGoDuration(value);
    if (!d) return BadDuration(name, value);
    f.batch_max_wait = *d;
  } else if (rest == "batch-throttle-enable") {
    f.batch_throttle_enable = GoParseBool(value).value_or(true);
  } else if (rest == "batch-throttle-qps") {
    f.batch_throttle_qps = std::stod(value);
  } else if (rest == "batch-throttle-burst") {
    f.batch_throttle_burst = ToInt(value);
  } else if (rest == "truncate-enabled") {
    f.truncate_enabled = GoParseBool(value).value_or(true);
  } else if (rest == "truncate-max-batch-size") {
    f.truncate_max_batch_size = ToInt64(value);
  } else if (rest == "truncate-max-event-size") {
    f.truncate_max_event_size = ToInt64(value);
  } else if (rest == "version") {
    f.version = value;
  } else {
    return std::nullopt;
  }
  return Status();
}

// Go's %v of a float32 flag value (strconv 'g' with the shortest form).
std::string FloatText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// kube's validateBackendBatchOptions.
void ValidateBatch(const std::string& plugin, const AuditBackendFlags& f, std::vector<std::string>& errs) {
  if (f.mode != "batch" && f.mode != "blocking" && f.mode != "blocking-strict") {
    errs.push_back("invalid audit " + plugin + " mode " + f.mode +
                   ", allowed modes are \"batch,blocking,blocking-strict\"");
    return;
  }
  if (f.mode != "batch") return;
  if (f.batch_buffer_size <= 0) {
    errs.push_back("invalid audit batch " + plugin + " buffer size " + std::to_string(f.batch_buffer_size) +
                   ", must be a positive number");
    return;
  }
  if (f.batch_max_size <= 0) {
    errs.push_back("invalid audit batch " + plugin + " max batch size " + std::to_string(f.batch_max_size) +
                   ", must be a positive number");
    return;
  }
  if (f.batch_throttle_enable) {
    if (f.batch_throttle_qps <= 0) {
      errs.push_back("invalid audit batch " + plugin + " throttle QPS " + FloatText(f.batch_throttle_qps) +
                     ", must be a positive number");
      return;
    }
    if (f.batch_throttle_burst <= 0) {
      errs.push_back("invalid audit batch " + plugin + " throttle burst " + std::to_string(f.batch_throttle_burst) +
                     ", must be a positive number");
    }
  }
}

// kube's AuditTruncateOptions.Validate (checked whether or not truncation is on, as kube does).
void ValidateTruncate(const std::string& plugin, const AuditBackendFlags& f, std::vector<std::string>& errs) {
  if (f.truncate_max_event_size <= 0) {
    errs.push_back("invalid audit truncate " + plugin + " max event size " +
                   std::to_string(f.truncate_max_event_size) + ", must be a positive number");
  } else if (f.truncate_max_batch_size < f.truncate_max_event_size) {
    errs.push_back("invalid audit truncate " + plugin + " max batch size " +
                   std::to_string(f.truncate_max_batch_size) + ", must be greater than max event size (" +
                   std::to_string(f.truncate_max_event_size) + ")");
  }
}

// kube's validateGroupVersionString: audit.k8s.io/v1 is the one version kube 1.32 knows.
void ValidateVersion(const AuditBackendFlags& f, std::vector<std::string>& errs) {
  if (f.version == "audit.k8s.io/v1") return;
  size_t slashes = 0;
  for (char c : f.version) slashes += c == '/';
  if (slashes > 1) {
    errs.push_back("unexpected GroupVersion string: " + f.version);
    return;
  }
  errs.push_back("invalid group version, allowed versions are [\"audit.k8s.io/v1\"]");
}

}  // namespace

std::optional<Status> SetAuditFlag(AuditFlags& f, const std::string& name, const std::string& value) {
  if (name == "audit-policy-file") {
    f.policy_file = value;
  } else if (name == "audit-log-path") {
    f.log_path = value;
  } else if (name == "audit-log-maxsize") {
    f.log_maxsize = ToInt(value);
  } else if (name == "audit-log-maxbackup") {
    f.log_maxbackup = ToInt(value);
  } else if (name == "audit-log-maxage") {
    f.log_maxage = ToInt(value);
  } else if (name == "audit-log-format") {
    f.log_format = value;
  } else if (name == "audit-log-compress") {
    f.log_compress = GoParseBool(value).value_or(true);
  } else if (name == "audit-webhook-config-file") {
    f.webhook_config_file = value;
  } else if (name == "audit-webhook-initial-backoff" || name == "audit-webhook-batch-initial-backoff") {
    auto d = ParseGoDuration(value);
    if (!d) return BadDuration(name, value);
    f.webhook_initial_backoff = *d;
  } else if (name.rfind("audit-log-", 0) == 0) {
    return SetBackendFlag(f.log, name, name.substr(10), value);
  } else if (name.rfind("audit-webhook-", 0) == 0) {
    return SetBackendFlag(f.webhook, name, name.substr(14), value);
  } else {
    return std::nullopt;
  }
  return Status();
}

Status ValidateAuditFlags(const AuditFlags& f) {
  std::vector<std::string> errs;
  if (!f.log_path.empty()) {
    ValidateBatch("log", f.log, errs);
    ValidateTruncate("log", f.log, errs);
    ValidateVersion(f.log, errs);
    if (f.log_format != "json" && f.log_format != "legacy") {
      errs.push_back("invalid audit log format " + f.log_format + ", allowed formats are \"legacy,json\"");
    }
    if (f.log_maxage < 0) errs.push_back("--audit-log-maxage " + std::to_string(f.log_maxage) + " can't be a negative number");
    if (f.log_maxbackup < 0) {
      errs.push_back("--audit-log-maxbackup " + std::to_string(f.log_maxbackup) + " can't be a negative number");
    }
    if (f.log_maxsize < 0) errs.push_back("--audit-log-maxsize " + std::to_string(f.log_maxsize) + " can't be a negative number");
  }
  if (!f.webhook_config_file.empty()) {
    ValidateBatch("webhook", f.webhook, errs);
    ValidateTruncate("webhook", f.webhook, errs);
    ValidateVersion(f.webhook, errs);
  }
  if (errs.empty()) return Status();
  if (errs.size() == 1) return Status(400, "BadRequest", errs[0]);
  return Status(400, "BadRequest", "[" + Join(errs, ", ") + "]");
}

}  // namespace capstan::cmd
