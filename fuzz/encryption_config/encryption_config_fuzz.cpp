// encryption_config_fuzz: arbitrary bytes as an --encryption-provider-config file
// (storage/transformers/encryption_config.h): the parser and validator never crash, and what they
// accept builds (KMS v2 providers through a factory that builds nothing remote).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "storage/transformers/encryption_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace capstan::storage;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto config = transformers::ParseEncryptionConfig(text);
  if (!config.ok()) return 0;
  auto built = transformers::BuildTransformers(
      *config, [](const transformers::KmsConfig&) -> capstan::StatusOr<std::shared_ptr<const Transformer>> {
        return std::shared_ptr<const Transformer>(std::make_shared<IdentityTransformer>());
      });
  if (built.ok()) {
    for (const auto& [gr, t] : *built) {
      auto stored = t->ToStorage("{}", "/registry/x");
      if (stored.ok()) (void)t->FromStorage(*stored, "/registry/x", nullptr);
    }
  }
  return 0;
}
