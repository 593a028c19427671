// controllers/bootstrap/token_cleaner.h: kube's token-cleaner-controller: bootstrap-token Secrets
// (type bootstrap.kubernetes.io/token, in kube-system) whose `expiration` (RFC 3339, in data) has
// passed are deleted, with the Secret's UID as precondition.
//
// Secrets of that type are queued on add and update; a sync reads the Secret from the cache,
// deletes it when expired, or queues it again for the moment it expires. An expiration that does
// not parse leaves the Secret alone (as kube, which logs it). Capstan's Secret storage has no `type`
// field selector yet, so the informer lists kube-system's Secrets and filters by type itself.
// Queue: "token_cleaner", kube's default rate limiter, one worker. Thread-safety: loop-thread only.
#pragma once

#include <string>

#include "controllers/controller.h"

namespace capstan::controllers {

inline constexpr std::string_view kBootstrapTokenSecretType = "bootstrap.kubernetes.io/token";

struct TokenCleanerOptions {
  std::string namespace_ = "kube-system";
};

class TokenCleaner : public Controller {
 public:
  explicit TokenCleaner(TokenCleanerOptions opts = {}) : opts_(std::move(opts)) {}
  std::string_view Name() const override;
  void Start(ControllerContext& ctx) override;

 private:
  Task<void> Run(ControllerContext& ctx);
  Task<SyncResult> Sync(const std::string& key);

  TokenCleanerOptions opts_;
  ApiClient* client_ = nullptr;
  const Clock* clock_ = nullptr;
  Informer* secrets_ = nullptr;
  WorkQueue* queue_ = nullptr;
};

// How long until a bootstrap-token Secret expires: nullopt when it never does (no or unparsable
// expiration); zero or negative when it already has.
std::optional<std::chrono::nanoseconds> TimeToExpiry(const Object& secret, std::chrono::system_clock::time_point now);

}  // namespace capstan::controllers
