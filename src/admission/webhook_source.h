// admission/webhook_source.h: where the webhook plugins find the current webhook configurations.
//
// ListingWebhookSource reads the Mutating/ValidatingWebhookConfigurations through a list callback (cmd
// wires the served REST storages, read at resourceVersion 0, so from the watch cache) on each admission
// call, and re-parses them only when a configuration was added, removed or changed (names and
// resourceVersions), so a configuration takes effect as soon as the watch cache has it (kube's
// informer has the same short lag).
// While admissionregistration.k8s.io is not served the callback returns no objects.
// Thread-safety: Webhooks() may be called concurrently from any thread.
#pragma once

#include <functional>
#include <memory>
#include <mutex>

#include "admission/webhook_config.h"
#include "util/task.h"

namespace capstan::admission {

using WebhookList = std::shared_ptr<const std::vector<Webhook>>;

class WebhookSource {
 public:
  virtual ~WebhookSource() = default;
  virtual Task<StatusOr<WebhookList>> Webhooks(bool mutating) = 0;
};

class ListingWebhookSource : public WebhookSource {
 public:
  using List = std::function<Task<StatusOr<std::vector<registry::Object>>>(bool mutating)>;
  explicit ListingWebhookSource(List list) : list_(std::move(list)) {}
  Task<StatusOr<WebhookList>> Webhooks(bool mutating) override;

 private:
  List list_;
  std::mutex mu_;
  std::string fingerprint_[2];  // guarded by mu_; [mutating]
  WebhookList parsed_[2];       // guarded by mu_
};

// A fixed set (tests).
class StaticWebhookSource : public WebhookSource {
 public:
  StaticWebhookSource(std::vector<registry::Object> mutating, std::vector<registry::Object> validating)
      : mutating_(std::make_shared<std::vector<Webhook>>(ParseWebhooks(mutating, true))),
        validating_(std::make_shared<std::vector<Webhook>>(ParseWebhooks(validating, false))) {}
  Task<StatusOr<WebhookList>> Webhooks(bool mutating) override { co_return mutating ? mutating_ : validating_; }

 private:
  WebhookList mutating_;
  WebhookList validating_;
};

}  // namespace capstan::admission
