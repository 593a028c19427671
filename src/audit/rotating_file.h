// audit/rotating_file.h: the audit log file (--audit-log-path, -maxsize, -maxbackup, -maxage,
// -compress), written and rotated the way kube's lumberjack logger does.
//
// The file is created with mode 0600. When a write would take it past max_size_mb megabytes (100
// when 0) it is renamed to <name>-<UTC time 2006-01-02T15-04-05.000><ext> next to it and a new file is
// started. After each rotation (and at open) the mill runs on its own thread, as lumberjack's mill
// goroutine: backups past max_backups (the newest are kept, a backup and its .gz counting once; 0
// keeps all) and older than max_age_days (0 keeps all) are removed, and with compress the remaining
// backups are gzipped to <backup>.gz (same mode) and the uncompressed copy removed. Path "-" is
// standard output; it, FIFOs and devices are never rotated.
// Thread-safety: Write from one thread at a time; the mill runs beside it.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "apimachinery/status.h"
#include "util/clock.h"

namespace capstan::audit {

struct RotatingFileOptions {
  std::string path;     // "-" for standard output
  int max_size_mb = 0;  // 0: lumberjack's 100
  int max_backups = 0;  // 0: keep all
  int max_age_days = 0; // 0: keep all
  bool compress = false;
};

class RotatingFile {
 public:
  // Opens (creates) the file; a 500-style Status when it cannot.
  static StatusOr<std::unique_ptr<RotatingFile>> Open(const RotatingFileOptions& opts,
                                                      const Clock& clock = RealClock::Get());
  ~RotatingFile();
  RotatingFile(const RotatingFile&) = delete;
  RotatingFile& operator=(const RotatingFile&) = delete;

  // Writes the bytes in one write (rotating first when they would not fit).
  Status Write(const std::string& data);
  // Waits until the mill has nothing left to do (tests).
  void WaitMilled();

 private:
  RotatingFile(RotatingFileOptions opts, const Clock& clock) : opts_(std::move(opts)), clock_(clock) {}
  Status OpenFile();
  Status Rotate();
  void StartMill();
  void RunMill();
  void MillOnce();

  const RotatingFileOptions opts_;
  const Clock& clock_;
  int fd_ = -1;  // standard output when path is "-"
  bool regular_ = false;  // only regular files rotate (not a FIFO, a device or standard output)
  uint64_t size_ = 0;

  std::mutex mill_mu_;
  std::condition_variable mill_cv_;
  bool mill_requested_ = false;  // guarded by mill_mu_
  bool milling_ = false;         // guarded by mill_mu_
  bool mill_stop_ = false;       // guarded by mill_mu_
  std::thread mill_;
};

// Gzips `src` to `dst` (mode `mode`) and removes `src`, as lumberjack's compressLogFile.
Status GzipFile(const std::string& src, const std::string& dst);

}  // namespace capstan::audit
