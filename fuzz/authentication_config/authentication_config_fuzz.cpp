// authentication_config_fuzz: arbitrary bytes as an --authentication-config file
// (auth/authn/authentication_config.h): decoding never crashes, validation of what decodes never
// crashes, and every JWT authenticator of a valid file compiles.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "auth/authn/authentication_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace capstan::authn;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto config = DecodeAuthenticationConfiguration(text);
  if (!config.ok()) return 0;
  const std::vector<std::string> disallowed = {"https://kubernetes.default.svc.cluster.local"};
  if (!ValidateAuthenticationConfiguration(*config, disallowed).empty()) return 0;
  for (const auto& jwt : config->jwt) {
    // Validation compiled the same expressions: a valid file's authenticators compile without error.
    if (!CompileJwtAuthenticator(jwt, disallowed).errors.empty()) std::abort();
  }
  return 0;
}
