#include "storage/transformers/kms/kms_provider.h"

#include "storage/transformers/kms/kms_v1_envelope.h"
#include "storage/transformers/kms/kms_v2_envelope.h"

namespace capstan::storage::kms {

capstan::Status CachedCheck::Run(const std::function<capstan::Status()>& check) {
  std::lock_guard lock(mu_);
  if (std::chrono::steady_clock::now() < valid_until_) return result_;
  result_ = check();
  // From when the answer came, as kube's lastResponse.received.
  valid_until_ = std::chrono::steady_clock::now() + (result_.ok() ? healthy_ : unhealthy_);
  return result_;
}

transformers::KmsFactory KmsProviderFactory(std::vector<std::shared_ptr<KmsProvider>>* made, KmsMetrics* metrics) {
  return [made, metrics](const transformers::KmsConfig& c) -> StatusOr<std::shared_ptr<const Transformer>> {
    std::shared_ptr<KmsProvider> provider;
    if (c.api_version == "v1") {
      provider = std::make_shared<KmsV1Envelope>(c, metrics);
    } else {
      provider = std::make_shared<KmsV2Envelope>(c.name, NewKmsV2Client(c.endpoint, c.timeout, metrics, c.name), metrics);
    }
    if (made) made->push_back(provider);
    return std::shared_ptr<const Transformer>(provider);
  };
}

}  // namespace capstan::storage::kms
