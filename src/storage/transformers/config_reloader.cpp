#include "storage/transformers/config_reloader.h"

#include <algorithm>

#include "util/log.h"

namespace capstan::storage::transformers {

namespace {

constexpr std::chrono::milliseconds kFirstRetry{5};   // workqueue.DefaultTypedControllerRateLimiter
constexpr std::chrono::milliseconds kMaxRetry{1000 * 1000};
constexpr std::chrono::milliseconds kHealthPoll{100};  // validateNewTransformersHealth's interval

}  // namespace

std::string ApiServerIdHash(const std::string& id) { return Sha256Label(id); }

ConfigReloader::ConfigReloader(ResourceTransformers& target, std::string path, std::string loaded_hash,
                               std::string apiserver_id, MetricsRegistry& metrics,
                               ConfigReloaderOptions options)
    : target_(target),
      path_(std::move(path)),
      options_(std::move(options)),
      metrics_(metrics, "encryption",
               "Total number of reload successes and failures of encryption configuration split by apiserver identity.",
               "Timestamp of the last successful or failed automatic reload of encryption configuration split by "
               "apiserver identity.",
               ApiServerIdHash(apiserver_id)),
      loaded_hash_(std::move(loaded_hash)) {}

ConfigReloader::~ConfigReloader() { Stop(); }

double ConfigReloader::reloads(const std::string& status) const { return metrics_.Count(status); }

void ConfigReloader::Record(const char* status) { metrics_.Record(status); }

std::chrono::nanoseconds KmsGracePeriod(const EncryptionConfig& config) {
  std::chrono::nanoseconds sum{0};
  for (const auto& r : config.resources) {
    for (const auto& p : r.providers) {
      if (p.type == "kms") sum += p.kms.api_version == "v1" ? 2 * p.kms.timeout : p.kms.timeout;
    }
  }
  return 2 * sum;
}

StatusOr<ReloadCandidate> ConfigReloader::Build(const EncryptionConfig& config) const {
  if (options_.build) return options_.build(config);
  auto built = BuildTransformers(config);
  if (!built.ok()) return built.TakeStatus();
  return ReloadCandidate{std::move(*built), nullptr, nullptr};
}

Status ConfigReloader::WaitHealthy(const ReloadCandidate& candidate, std::chrono::nanoseconds grace) const {
  if (!candidate.health) return Status();
  const auto deadline =
      std::chrono::steady_clock::now() + std::max<std::chrono::nanoseconds>(grace, options_.min_kms_grace);
  for (;;) {
    Status st = candidate.health();
    if (st.ok()) return st;
    if (std::chrono::steady_clock::now() + kHealthPoll >= deadline) {
      return Status(500, "InternalError",
                    "health check for new transformers failed, polling error timed out waiting for the condition: " +
                        st.message());
    }
    std::unique_lock lock(mu_);
    if (cv_.wait_for(lock, kHealthPoll, [&] { return stopping_; })) return Status(500, "InternalError", "stopping");
  }
}

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
      auto built = Build(*config);
      if (!built.ok()) {
        error = Status(400, "BadRequest", "error while building transformers: " + built.status().message());
      } else if (Status health = WaitHealthy(*built, KmsGracePeriod(*config)); !health.ok()) {
        error = health;
      } else {
        target_.Set(std::move(built->transformers));
        if (built->activate) built->activate();
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
    auto wait = options_.poll_interval;
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
