#include "audit/log_backend.h"

namespace capstan::audit {

StatusOr<std::unique_ptr<LogBackend>> LogBackend::Open(const RotatingFileOptions& opts, LogFormat format,
                                                       AuditMetrics* metrics) {
  auto file = RotatingFile::Open(opts);
  if (!file.ok()) return file.status();
  return std::make_unique<LogBackend>(std::move(*file), format, metrics);
}

bool LogBackend::ProcessEvents(std::vector<EventPtr> events) {
  size_t failed = 0;
  std::string error;
  {
    std::lock_guard lock(mu_);
    for (const auto& e : events) {
      Status st = file_->Write(format_ == LogFormat::kLegacy ? EventToLegacyLine(*e) : EventToJsonLine(*e));
      if (!st.ok()) {
        ++failed;
        if (error.empty()) error = st.message();
      }
    }
  }
  if (failed) HandlePluginError(metrics_, "log", error, failed);
  return failed == 0;
}

}  // namespace capstan::audit
