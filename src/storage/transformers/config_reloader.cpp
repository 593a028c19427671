#include "storage/transformers/config_reloader.h"

#include <algorithm>

#include "util/log.h"

namespace capstan::storage::transformers {

namespace {

constexpr std::chrono::milliseconds kFirstRetry{5};   // workqueue.DefaultTypedControllerRateLimiter
constexpr std::chrono::milliseconds kMaxRetry{1000 * 1000};

}  // namespace

std::string ApiServerIdHash(const std::string& id) { return Sha256Label(id); }

ConfigReloader::ConfigReloader(ResourceTransformers& target, std::string path, std::string loaded_hash,
                               std::string apiserver_id, MetricsRegistry& metrics,
                               std::chrono::milliseconds poll_interval)
    : target_(target),
      path_(std::move(path)),
      poll_interval_(poll_interval),
      metrics_(metrics, "encryption",
               "Total number of reload successes and failures of encryption configuration split by apiserver identity.",
               "Timestamp of the last successful or failed automatic reload of encryption configuration split by "
               "apiserver identity.",
               ApiServerIdHash(apiserver_id)),
      loaded_hash_(std::move(loaded_hash)) {}

ConfigReloader::~ConfigReloader() { Stop(); }

double ConfigReloader::reloads(const std::string& status) const { return metrics_.Count(status); }

void ConfigReloader::Record(const char* status) { metrics_.Record(status); }

ConfigReloader::Outcome ConfigReloader::CheckOnce() {
  std::lock_guard lock(check_mu_);
  Status error;
  auto hash = EncryptionConfigFileHash(path_);
  if (!hash.ok()) {
    error = Status(400, "BadRequest", "error while loading file: " + hash.status().message());
  } else if (*hash == loaded_hash_) {
    return Outcome::kUnchanged;
  } else {
    std::string loaded;
    auto config = LoadEncryptionConfig(path_, &loaded);
    if (!config.ok()) {
      error = config.status();
    } else if (loaded == loaded_hash_) {
      return Outcome::kUnchanged;  // changed back between the two reads
    } else {
      auto built = BuildTransformers(*config);
      if (!built.ok()) {
        error = Status(400, "BadRequest", "error while building transformers: " + built.status().message());
      } else {
        target_.Set(std::move(*built));
        loaded_hash_ = loaded;
        Record("success");
        LogInfo("loaded new encryption config content", {{"path", path_}});
        return Outcome::kReloaded;
      }
    }
  }
  Record("failure");
  LogError("error processing encryption config file", {{"path", path_}, {"error", error.message()}});
  return Outcome::kFailed;
}

void ConfigReloader::Start() {
  std::lock_guard lock(mu_);
  if (started_) return;
  started_ = true;
  thread_ = std::thread([this] { Run(); });
  LogInfo("Starting controller", {{"name", "encryption-provider-config-automatic-reload-controller"}});
}

bool ConfigReloader::started() const {
  std::lock_guard lock(mu_);
  return started_;
}

void ConfigReloader::Run() {
  auto retry = kFirstRetry;
  std::unique_lock lock(mu_);
  while (!stopping_) {
    lock.unlock();
    Outcome outcome = CheckOnce();
    lock.lock();
    auto wait = poll_interval_;
    if (outcome == Outcome::kFailed) {
      wait = std::min(wait, retry);
      retry = std::min(retry * 2, kMaxRetry);
    } else {
      retry = kFirstRetry;
    }
    cv_.wait_for(lock, wait, [&] { return stopping_; });
  }
}

void ConfigReloader::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace capstan::storage::transformers
