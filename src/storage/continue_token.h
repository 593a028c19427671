// storage/continue_token.h: kube's list continuation tokens: base64url(JSON {"v":"meta.k8s.io/v1",
// "rv":<revision>,"start":"<key after the prefix>"}). Pure functions.
#pragma once

#include <cstdint>
#include <string>

#include "apimachinery/status.h"

namespace capstan::storage {

struct ContinuePosition {
  std::string from_key;  // the first key to read (full key, prefix included)
  int64_t revision = 0;  // the revision the list is read at
};

// Decodes a token for a list under key_prefix; errors are kube's "continue key is not valid: ..." texts.
StatusOr<ContinuePosition> DecodeContinue(const std::string& token, const std::string& key_prefix);
// Encodes the position after `last_key` (which must start with key_prefix).
std::string EncodeContinue(const std::string& next_key, const std::string& key_prefix, int64_t revision);

}  // namespace capstan::storage
