#include "audit/rotating_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <set>
#include <vector>

#include "util/log.h"

namespace capstan::audit {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kMegabyte = 1024 * 1024;
constexpr char kBackupTimeFormat[] = "%Y-%m-%dT%H-%M-%S";
constexpr std::string_view kCompressSuffix = ".gz";

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

struct Backup {
  std::string path;
  std::string name;
  std::string stamp;  // 2006-01-02T15-04-05.000: sorts by time
  bool compressed = false;
};

// lumberjack's oldLogFiles: <stem>-<stamp><ext> and <stem>-<stamp><ext>.gz, newest first.
std::vector<Backup> ListBackups(const std::string& path) {
  auto [stem, ext] = StemAndExt(path);
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  const std::string prefix = fs::path(stem).filename().string() + "-";
  std::vector<Backup> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file(ec)) continue;
    std::string name = entry.path().filename().string();
    bool compressed = false;
    std::string body = name;
    if (body.size() > kCompressSuffix.size() &&
        body.compare(body.size() - kCompressSuffix.size(), kCompressSuffix.size(), kCompressSuffix) == 0) {
      body.resize(body.size() - kCompressSuffix.size());
      compressed = true;
    }
    if (body.size() <= prefix.size() + ext.size() || body.compare(0, prefix.size(), prefix) != 0) continue;
    if (body.compare(body.size() - ext.size(), ext.size(), ext) != 0) continue;
    std::string stamp = body.substr(prefix.size(), body.size() - prefix.size() - ext.size());
    std::tm tm{};
    const char* end = strptime(stamp.c_str(), kBackupTimeFormat, &tm);
    if (!end || *end != '.' || std::strlen(end) != 4) continue;
    out.push_back({entry.path().string(), name, stamp, compressed});
  }
  std::sort(out.begin(), out.end(), [](const Backup& a, const Backup& b) { return a.stamp > b.stamp; });
  return out;
}

std::chrono::system_clock::time_point StampTime(const std::string& stamp) {
  std::tm tm{};
  strptime(stamp.c_str(), kBackupTimeFormat, &tm);
  return std::chrono::system_clock::from_time_t(timegm(&tm)) + std::chrono::milliseconds(std::atoi(stamp.c_str() + 20));
}

}  // namespace

Status GzipFile(const std::string& src, const std::string& dst) {
  int in = ::open(src.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return Status(500, "InternalError", "failed to open log file: " + std::string(std::strerror(errno)));
  struct stat st {};
  ::fstat(in, &st);
  int out = ::open(dst.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, st.st_mode & 07777);
  if (out < 0) {
    ::close(in);
    return Status(500, "InternalError", "failed to open compressed log file: " + std::string(std::strerror(errno)));
  }
  z_stream zs{};
  deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);  // 15+16: gzip
  std::vector<unsigned char> ibuf(256 * 1024), obuf(256 * 1024);
  bool ok = true;
  int flush = Z_NO_FLUSH;
  while (ok && flush != Z_FINISH) {
    ssize_t n = ::read(in, ibuf.data(), ibuf.size());
    if (n < 0) {
      ok = false;
      break;
    }
    flush = n == 0 ? Z_FINISH : Z_NO_FLUSH;
    zs.next_in = ibuf.data();
    zs.avail_in = static_cast<uInt>(n);
    do {
      zs.next_out = obuf.data();
      zs.avail_out = static_cast<uInt>(obuf.size());
      deflate(&zs, flush);
      size_t have = obuf.size() - zs.avail_out;
      if (have && ::write(out, obuf.data(), have) != static_cast<ssize_t>(have)) ok = false;
    } while (ok && zs.avail_out == 0);
  }
  deflateEnd(&zs);
  ::close(in);
  if (::close(out) != 0) ok = false;
  if (!ok) {
    ::unlink(dst.c_str());
    return Status(500, "InternalError", "failed to compress log file " + src);
  }
  if (::unlink(src.c_str()) != 0) {
    return Status(500, "InternalError", "failed to delete log file: " + std::string(std::strerror(errno)));
  }
  return Status();
}

StatusOr<std::unique_ptr<RotatingFile>> RotatingFile::Open(const RotatingFileOptions& opts, const Clock& clock) {
  std::unique_ptr<RotatingFile> f(new RotatingFile(opts, clock));
  if (opts.path == "-") {
    f->fd_ = STDOUT_FILENO;
    return f;
  }
  std::error_code ec;
  fs::path dir = fs::path(opts.path).parent_path();
  if (!dir.empty()) fs::create_directories(dir, ec);
  RETURN_IF_ERROR(f->OpenFile());
  f->StartMill();
  return f;
}

RotatingFile::~RotatingFile() {
  {
    std::lock_guard lock(mill_mu_);
    mill_stop_ = true;
  }
  mill_cv_.notify_all();
  if (mill_.joinable()) mill_.join();
  if (fd_ >= 0 && fd_ != STDOUT_FILENO) ::close(fd_);
}

Status RotatingFile::OpenFile() {
  int fd = ::open(opts_.path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) {
    return Status(500, "InternalError", "cannot open audit log " + opts_.path + ": " + std::strerror(errno));
  }
  struct stat st {};
  regular_ = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  size_ = regular_ ? static_cast<uint64_t>(st.st_size) : 0;
  fd_ = fd;
  return Status();
}

Status RotatingFile::Rotate() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  std::error_code ec;
  fs::rename(opts_.path, BackupName(opts_.path, clock_.Now()), ec);
  if (ec) LogWarn("audit log rotation failed", {{"path", opts_.path}, {"error", ec.message()}});
  RETURN_IF_ERROR(OpenFile());
  {
    std::lock_guard lock(mill_mu_);
    mill_requested_ = true;
  }
  mill_cv_.notify_all();
  return Status();
}

void RotatingFile::StartMill() {
  if (opts_.max_backups <= 0 && opts_.max_age_days <= 0 && !opts_.compress) return;
  mill_requested_ = true;  // lumberjack mills at open too
  mill_ = std::thread([this] { RunMill(); });
}

void RotatingFile::RunMill() {
  std::unique_lock lock(mill_mu_);
  while (true) {
    mill_cv_.wait(lock, [&] { return mill_stop_ || mill_requested_; });
    if (!mill_requested_) break;
    mill_requested_ = false;
    milling_ = true;
    lock.unlock();
    MillOnce();
    lock.lock();
    milling_ = false;
    mill_cv_.notify_all();
  }
}

void RotatingFile::WaitMilled() {
  std::unique_lock lock(mill_mu_);
  if (!mill_.joinable()) return;
  mill_cv_.wait(lock, [&] { return !mill_requested_ && !milling_; });
}

// lumberjack's millRunOnce.
void RotatingFile::MillOnce() {
  std::vector<Backup> files = ListBackups(opts_.path);
  std::vector<Backup> remove;
  if (opts_.max_backups > 0 && static_cast<size_t>(opts_.max_backups) < files.size()) {
    std::set<std::string> preserved;
    std::vector<Backup> remaining;
    for (auto& f : files) {
      std::string base = f.compressed ? f.name.substr(0, f.name.size() - kCompressSuffix.size()) : f.name;
      preserved.insert(base);
      if (preserved.size() > static_cast<size_t>(opts_.max_backups)) {
        remove.push_back(f);
      } else {
        remaining.push_back(f);
      }
    }
    files = std::move(remaining);
  }
  if (opts_.max_age_days > 0) {
    auto cutoff = clock_.Now() - std::chrono::hours(24) * opts_.max_age_days;
    std::vector<Backup> remaining;
    for (auto& f : files) {
      if (StampTime(f.stamp) < cutoff) {
        remove.push_back(f);
      } else {
        remaining.push_back(f);
      }
    }
    files = std::move(remaining);
  }
  std::error_code ec;
  for (const auto& f : remove) fs::remove(f.path, ec);
  if (!opts_.compress) return;
  for (const auto& f : files) {
    if (f.compressed) continue;
    Status st = GzipFile(f.path, f.path + std::string(kCompressSuffix));
    if (!st.ok()) LogWarn("audit log compression failed", {{"path", f.path}, {"error", st.message()}});
  }
}

Status RotatingFile::Write(const std::string& data) {
  if (fd_ < 0) RETURN_IF_ERROR(OpenFile());
  if (regular_) {
    uint64_t max = static_cast<uint64_t>(opts_.max_size_mb > 0 ? opts_.max_size_mb : 100) * kMegabyte;
    if (data.size() > max) {
      return Status(500, "InternalError", "write length " + std::to_string(data.size()) +
                                              " exceeds maximum file size " + std::to_string(max));
    }
    if (size_ + data.size() > max) RETURN_IF_ERROR(Rotate());
  }
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd_, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      size_ += done;
      return Status(500, "InternalError", "write " + opts_.path + ": " + std::strerror(n < 0 ? errno : EIO));
    }
    done += static_cast<size_t>(n);
  }
  size_ += data.size();
  return Status();
}

}  // namespace capstan::audit
