#include "cmd/audit_flags.h"

#include "util/duration.h"

namespace capstan::cmd {

namespace {

int ToInt(const std::string& v) { return static_cast<int>(std::stoll(v, nullptr, 0)); }

std::optional<std::chrono::nanoseconds> Duration(const std::string& v) { return ParseGoDuration(v); }

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
  } else if (name == "audit-log-batch-buffer-size") {
    f.log_batch_buffer_size = ToInt(value);
  } else if (name == "audit-webhook-config-file") {
    f.webhook_config_file = value;
  } else if (name == "audit-webhook-batch-buffer-size") {
    f.webhook_batch_buffer_size = ToInt(value);
  } else if (name == "audit-webhook-batch-max-size") {
    f.webhook_batch_max_size = ToInt(value);
  } else if (name == "audit-webhook-batch-max-wait") {
    auto d = Duration(value);
    if (!d) return Status(400, "BadRequest", "invalid argument \"" + value + "\" for \"--" + name + "\" flag");
    f.webhook_batch_max_wait = *d;
  } else if (name == "audit-webhook-initial-backoff" || name == "audit-webhook-batch-initial-backoff") {
    auto d = Duration(value);
    if (!d) return Status(400, "BadRequest", "invalid argument \"" + value + "\" for \"--" + name + "\" flag");
    f.webhook_initial_backoff = *d;
  } else {
    return std::nullopt;
  }
  if ((name == "audit-log-maxsize" || name == "audit-log-maxbackup" || name == "audit-log-maxage") &&
      ToInt(value) < 0) {
    return Status(400, "BadRequest", "--" + name + " " + value + " can't be a negative number");
  }
  return Status();
}

}  // namespace capstan::cmd
