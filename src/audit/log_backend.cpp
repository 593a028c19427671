#include "audit/log_backend.h"

namespace capstan::audit {

StatusOr<std::unique_ptr<LogBackend>> LogBackend::Open(const RotatingFileOptions& opts, LogFormat format,
                                                       AuditMetrics* metrics) {
  auto file = RotatingFile::Open(opts);
  if (!file.ok()) return file.status();
  return std::make_unique<LogBackend>(std::move(*file), format, metrics);
}

bool LogBackend::ProcessEvents(std::vector<EventPtr> events) {
  // The lines go out in as few writes as possible (a blocking group is many events), each write
  // whole lines and at most kMaxWriteBytes, so rotation still falls between events.
  constexpr size_t kMaxWriteBytes = 256 * 1024;
  size_t failed = 0;
  std::string error;
  std::string block;
  size_t in_block = 0;
  auto flush = [&] {
    if (block.empty()) return;
    Status st = file_->Write(block);
    if (!st.ok()) {
      failed += in_block;
      if (error.empty()) error = st.message();
    }
    block.clear();
    in_block = 0;
  };
  {
    std::lock_guard lock(mu_);
    for (const auto& e : events) {
      std::string line = format_ == LogFormat::kLegacy ? EventToLegacyLine(*e) : EventToJsonLine(*e);
      if (!block.empty() && block.size() + line.size() > kMaxWriteBytes) flush();
      block += line;
      ++in_block;
    }
    flush();
  }
  if (failed) HandlePluginError(metrics_, "log", error, failed);
  return failed == 0;
}

}  // namespace capstan::audit
