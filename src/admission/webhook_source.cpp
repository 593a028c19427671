#include "admission/webhook_source.h"

#include "apimachinery/object_meta.h"

namespace capstan::admission {

namespace am = capstan::apimachinery;

Task<StatusOr<WebhookList>> ListingWebhookSource::Webhooks(bool mutating) {
  auto objs = co_await list_(mutating);
  if (!objs.ok()) co_return objs.status();
  std::string fp;
  for (const auto& o : *objs) {
    fp += am::GetName(o);
    fp += '@';
    fp += am::GetResourceVersion(o);
    fp += ';';
  }
  const int i = mutating ? 1 : 0;
  {
    std::lock_guard lock(mu_);
    if (parsed_[i] && fingerprint_[i] == fp) co_return parsed_[i];
  }
  auto parsed = std::make_shared<const std::vector<Webhook>>(ParseWebhooks(*objs, mutating));
  std::lock_guard lock(mu_);
  fingerprint_[i] = fp;
  parsed_[i] = parsed;
  co_return WebhookList(parsed);
}

}  // namespace capstan::admission
