#include "audit/log_backend.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "util/log.h"

namespace capstan::audit {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kMegabyte = 1024 * 1024;
constexpr char kBackupTimeFormat[] = "%Y-%m-%dT%H-%M-%S";

// "<dir>/<stem>" and "<ext>" of the log path, as lumberjack splits it.
std::pair<std::string, std::string> StemAndExt(const std::string& path) {
  fs::path p(path);
  std::string ext = p.extension().string();
  std::string stem = (p.parent_path() / p.stem()).string();
  return {stem, ext};
}

std::string BackupName(const std::string& path, std::chrono::system_clock::time_point now) {
  auto [stem, ext] = StemAndExt(path);
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, kBackupTimeFormat, &tm);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  char msbuf[8];
  std::snprintf(msbuf, sizeof msbuf, ".%03d", static_cast<int>(ms));
  return stem + "-" + buf + msbuf + ext;
}

}  // namespace

StatusOr<std::unique_ptr<LogFileSink>> LogFileSink::Open(const LogOptions& opts, const Clock& clock) {
  std::unique_ptr<LogFileSink> s(new LogFileSink(opts, clock));
  if (opts.path == "-") {
    s->file_ = stdout;
    return s;
  }
  std::error_code ec;
  fs::path dir = fs::path(opts.path).parent_path();
  if (!dir.empty()) fs::create_directories(dir, ec);
  RETURN_IF_ERROR(s->OpenFile());
  return s;
}

LogFileSink::~LogFileSink() {
  if (file_ && file_ != stdout) std::fclose(file_);
}

Status LogFileSink::OpenFile() {
  int fd = ::open(opts_.path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) {
    return Status(500, "InternalError", "cannot open audit log " + opts_.path + ": " + std::strerror(errno));
  }
  struct stat st {};
  size_ = ::fstat(fd, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  file_ = ::fdopen(fd, "a");
  if (!file_) {
    ::close(fd);
    return Status(500, "InternalError", "cannot open audit log " + opts_.path);
  }
  return Status();
}

Status LogFileSink::Rotate() {
  if (file_) std::fclose(file_);
  file_ = nullptr;
  std::error_code ec;
  fs::rename(opts_.path, BackupName(opts_.path, clock_.Now()), ec);
  if (ec) LogWarn("audit log rotation failed", {{"path", opts_.path}, {"error", ec.message()}});
  RETURN_IF_ERROR(OpenFile());
  RemoveOldBackups();
  return Status();
}

void LogFileSink::RemoveOldBackups() {
  if (opts_.max_backups <= 0 && opts_.max_age_days <= 0) return;
  auto [stem, ext] = StemAndExt(opts_.path);
  fs::path dir = fs::path(opts_.path).parent_path();
  if (dir.empty()) dir = ".";
  std::string prefix = fs::path(stem).filename().string() + "-";
  struct Backup {
    std::string path;
    std::string stamp;  // sorts by time
  };
  std::vector<Backup> backups;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    if (name.size() <= prefix.size() + ext.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    if (name.compare(name.size() - ext.size(), ext.size(), ext) != 0) continue;
    std::string stamp = name.substr(prefix.size(), name.size() - prefix.size() - ext.size());
    std::tm tm{};
    const char* end = strptime(stamp.c_str(), kBackupTimeFormat, &tm);
    if (!end) continue;
    backups.push_back({entry.path().string(), stamp});
  }
  std::sort(backups.begin(), backups.end(), [](const Backup& a, const Backup& b) { return a.stamp > b.stamp; });
  auto now = clock_.Now();
  for (size_t i = 0; i < backups.size(); ++i) {
    bool remove = opts_.max_backups > 0 && i >= static_cast<size_t>(opts_.max_backups);
    if (!remove && opts_.max_age_days > 0) {
      std::tm tm{};
      strptime(backups[i].stamp.c_str(), kBackupTimeFormat, &tm);
      auto when = std::chrono::system_clock::from_time_t(timegm(&tm));
      remove = now - when > std::chrono::hours(24) * opts_.max_age_days;
    }
    if (remove) fs::remove(backups[i].path, ec);
  }
}

Status LogFileSink::WriteBytes(const std::string& data) {
  if (!file_) RETURN_IF_ERROR(OpenFile());
  if (file_ != stdout) {
    uint64_t max = static_cast<uint64_t>(opts_.max_size_mb > 0 ? opts_.max_size_mb : 100) * kMegabyte;
    if (data.size() > max) {
      return Status(500, "InternalError", "write length " + std::to_string(data.size()) +
                                              " exceeds maximum file size " + std::to_string(max));
    }
    if (size_ + data.size() > max) RETURN_IF_ERROR(Rotate());
  }
  if (std::fwrite(data.data(), 1, data.size(), file_) != data.size() || std::fflush(file_) != 0) {
    return Status(500, "InternalError", "cannot write audit log " + opts_.path + ": " + std::strerror(errno));
  }
  size_ += data.size();
  return Status();
}

Status LogFileSink::Write(const std::vector<EventPtr>& batch) {
  // Each event is its own write, as kube's log backend writes line by line (rotation between events).
  Status first;
  for (const auto& e : batch) {
    Status st = WriteBytes(EventToJsonLine(*e));
    if (!st.ok() && first.ok()) first = st;
  }
  return first;
}

StatusOr<std::unique_ptr<Backend>> MakeLogBackend(const LogOptions& opts, AuditMetrics* metrics) {
  auto sink = LogFileSink::Open(opts);
  if (!sink.ok()) return sink.status();
  return std::unique_ptr<Backend>(
      std::make_unique<BufferedBackend>("log", std::move(*sink), opts.buffer, metrics));
}

}  // namespace capstan::audit
