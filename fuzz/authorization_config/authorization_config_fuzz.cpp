// authorization_config_fuzz: arbitrary bytes as an --authorization-config file
// (auth/authz/authorization_config.h): the loader never crashes, and the matchConditions of what it
// accepts compile and evaluate over a request.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "auth/authz/authorization_config.h"
#include "auth/authz/webhook_match_conditions.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace capstan::authz;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto config = LoadAuthorizationConfiguration(text, {"RBAC"});
  if (!config.ok()) return 0;
  Attributes a;
  a.user.name = "alice";
  a.user.groups = {"devs"};
  a.verb = "get";
  a.resource_request = true;
  a.resource = "configmaps";
  a.namespace_ = "default";
  for (const auto& az : config->authorizers) {
    if (!az.webhook) continue;
    auto compiled = WebhookMatchConditions::Compile(az.webhook->match_conditions, capstan::FieldPath());
    if (compiled.conditions) (void)compiled.conditions->Match(a);
  }
  return 0;
}
