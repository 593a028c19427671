// audit/log_backend.h: the audit log (--audit-log-path and friends): events as JSON lines, one per
// event, to a file or to standard output ("-").
//
// The file is created with mode 0600 and rotated the way kube's lumberjack logger does: when a write
// would take it past maxsize megabytes (100 when 0) it is renamed to <name>-<UTC time
// 2006-01-02T15-04-05.000><ext> next to it and a new file is started; then backups past maxbackup
// (the newest are kept; 0 keeps all) and older than maxage days (0 keeps all) are removed.
// MakeLogBackend wraps the sink in a BufferedBackend, so requests never wait for the disk.
// Thread-safety: LogFileSink is used by one thread at a time (the buffered backend's).
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "audit/buffered_backend.h"
#include "util/clock.h"

namespace capstan::audit {

struct LogOptions {
  std::string path;     // "-" for standard output
  int max_size_mb = 0;  // 0: lumberjack's 100
  int max_backups = 0;  // 0: keep all
  int max_age_days = 0; // 0: keep all
  BufferedOptions buffer{10000, 1, std::chrono::milliseconds(0)};
};

class LogFileSink : public EventSink {
 public:
  // Opens (creates) the file; a 500-style Status when it cannot.
  static StatusOr<std::unique_ptr<LogFileSink>> Open(const LogOptions& opts,
                                                     const Clock& clock = RealClock::Get());
  ~LogFileSink() override;
  LogFileSink(const LogFileSink&) = delete;
  LogFileSink& operator=(const LogFileSink&) = delete;

  Status Write(const std::vector<EventPtr>& batch) override;
  // Writes raw bytes (rotating first when needed); for tests and Write.
  Status WriteBytes(const std::string& data);

 private:
  LogFileSink(LogOptions opts, const Clock& clock) : opts_(std::move(opts)), clock_(clock) {}
  Status OpenFile();
  Status Rotate();
  void RemoveOldBackups();

  LogOptions opts_;
  const Clock& clock_;
  std::FILE* file_ = nullptr;  // stdout when path is "-"
  uint64_t size_ = 0;
};

StatusOr<std::unique_ptr<Backend>> MakeLogBackend(const LogOptions& opts, AuditMetrics* metrics);

}  // namespace capstan::audit
