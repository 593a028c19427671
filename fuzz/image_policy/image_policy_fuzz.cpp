// Fuzzes ImagePolicyWebhook's two parsers: the bytes as the plugin's configuration (JSON from
// --admission-control-config-file) and as the webhook's ImageReview answer (network input).
#include <boost/json.hpp>
#include <cstdint>
#include <string_view>

#include "admission/image_policy_webhook.h"
#include "apimachinery/json_parse.h"

using namespace capstan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  (void)admission::ParseImageReviewAnswer(in);
  if (auto v = apimachinery::ParseJsonValue(in); v.ok()) (void)admission::ParseImagePolicyConfig(*v);
  return 0;
}
