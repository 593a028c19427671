#include "storage/embedded/snapshot_scheduler.h"

#include <sys/stat.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <vector>

#include "storage/embedded/embedded_backend.h"
#include "util/log.h"

namespace capstan::storage::embedded {

namespace fs = std::filesystem;

namespace {

constexpr char kPrefix[] = "capstan-snapshot-";
constexpr char kSuffix[] = ".db";

// <prefix>20261208T013512.345Z<suffix>: sorts as the time does.
std::string SnapshotName(std::chrono::system_clock::time_point t) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%S", &tm);
  char out[96];
  std::snprintf(out, sizeof out, "%s%s.%03dZ%s", kPrefix, buf, static_cast<int>(ms % 1000), kSuffix);
  return out;
}

}  // namespace

SnapshotScheduler::SnapshotScheduler(Backend& backend, std::string dir, std::chrono::nanoseconds interval,
                                     int64_t retention)
    : backend_(backend), dir_(std::move(dir)), interval_(interval), retention_(retention) {
  thread_ = std::thread([this] { Run(); });
}

SnapshotScheduler::~SnapshotScheduler() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

StatusOr<std::string> SnapshotScheduler::SaveOnce() {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return Status(500, "InternalError", "cannot create " + dir_ + ": " + ec.message());
  ::chmod(dir_.c_str(), 0700);  // snapshots hold every secret the store holds
  const std::string path = dir_ + "/" + SnapshotName(std::chrono::system_clock::now());
  auto saved = SaveBackendSnapshot(backend_, path);
  if (!saved.ok()) return saved.TakeStatus();
  LogInfo("snapshot saved", {{"path", path},
                             {"revision", saved->revision},
                             {"totalKey", saved->total_keys},
                             {"totalSize", saved->total_size}});
  std::vector<std::string> ours;
  for (const auto& entry : fs::directory_iterator(dir_, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(kPrefix, 0) == 0 && name.size() > sizeof kSuffix && name.ends_with(kSuffix)) ours.push_back(name);
  }
  std::sort(ours.begin(), ours.end());
  for (size_t i = 0; i + retention_ < ours.size(); ++i) {
    fs::remove(dir_ + "/" + ours[i], ec);
    if (!ec) LogInfo("snapshot removed", {{"path", dir_ + "/" + ours[i]}, {"retention", retention_}});
  }
  return path;
}

void SnapshotScheduler::Run() {
  std::unique_lock lock(mu_);
  while (!cv_.wait_for(lock, interval_, [&] { return stopping_; })) {
    lock.unlock();
    auto saved = SaveOnce();
    if (!saved.ok()) LogError("scheduled snapshot failed", {{"dir", dir_}, {"error", saved.status().message()}});
    lock.lock();
  }
}

}  // namespace capstan::storage::embedded
