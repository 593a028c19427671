// audit/log_backend.h: kube's log backend (--audit-log-path, --audit-log-format): each event as one
// line of the audit log file, JSON (kube's default) or kube's legacy one-line text form
// (EventToLegacyLine).
//
// ProcessEvents writes the events' lines on the calling thread, several whole lines per write (at most
// 256 KiB, so rotation falls between events); an event that cannot be written is counted in
// apiserver_audit_error_total{plugin="log"} and makes the outcome false. The modes
// (audit/buffered_backend.h, audit/blocking_backend.h) decide which thread calls it.
// Thread-safety: ProcessEvents from any thread (writes are serialized).
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "audit/backend.h"
#include "audit/rotating_file.h"

namespace capstan::audit {

enum class LogFormat { kJson, kLegacy };

class LogBackend : public Backend {
 public:
  LogBackend(std::unique_ptr<RotatingFile> file, LogFormat format, AuditMetrics* metrics)
      : file_(std::move(file)), format_(format), metrics_(metrics) {}
  static StatusOr<std::unique_ptr<LogBackend>> Open(const RotatingFileOptions& opts, LogFormat format,
                                                    AuditMetrics* metrics);

  bool ProcessEvents(std::vector<EventPtr> events) override;
  void Shutdown() override {}
  std::string Name() const override { return "log"; }
  RotatingFile& file() { return *file_; }

 private:
  std::mutex mu_;  // one writer at a time (lumberjack's mutex)
  std::unique_ptr<RotatingFile> file_;
  const LogFormat format_;
  AuditMetrics* metrics_;
};

}  // namespace capstan::audit
