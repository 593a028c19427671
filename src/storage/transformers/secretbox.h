// storage/transformers/secretbox.h: NaCl's secretbox (XSalsa20 stream cipher + Poly1305 MAC), the
// construction kube's "secretbox" provider uses (golang.org/x/crypto/nacl/secretbox).
//
// OpenSSL has Poly1305 but no Salsa20, so the XSalsa20 keystream is computed here from the Salsa20
// core (20 rounds) and HSalsa20, as the NaCl papers define them; Poly1305 is OpenSSL's. Seal returns
// tag (16 bytes) || ciphertext, as NaCl's crypto_secretbox_easy and Go's secretbox.Seal do; Open checks
// the tag in constant time before decrypting. Pure functions, thread-safe.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "storage/transformer.h"

namespace capstan::storage::transformers {

inline constexpr size_t kSecretboxKeySize = 32;
inline constexpr size_t kSecretboxNonceSize = 24;
inline constexpr size_t kSecretboxOverhead = 16;

// key: 32 bytes, nonce: 24 bytes.
std::string SecretboxSeal(std::string_view message, std::string_view nonce, std::string_view key);
// nullopt when the box is too short or its tag does not verify.
std::optional<std::string> SecretboxOpen(std::string_view box, std::string_view nonce, std::string_view key);

// kube's secretbox value transformer: a random 24-byte nonce || Seal(value). As kube's, it does not
// bind the storage key (secretbox has no associated data).
std::unique_ptr<Transformer> NewSecretboxTransformer(std::string key);

}  // namespace capstan::storage::transformers
