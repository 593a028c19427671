// storage/transformers/aes.h: kube's "aesgcm" and "aescbc" value transformers over OpenSSL, with
// kube's stored layouts (so values written by kube-apiserver read here and the other way round):
//  - aesgcm: a random 12-byte nonce || ciphertext || 16-byte tag; the storage key is the GCM
//    associated data, so a value copied to another key does not decrypt;
//  - aescbc: a random 16-byte IV || ciphertext of the PKCS#7-padded value (no authentication, as
//    kube's; kube deprecates it for that reason).
// Keys are 16, 24 or 32 bytes (AES-128/192/256). Errors use kube's texts ("cipher: message
// authentication failed", "invalid padding on input", ...). Thread-safe.
#pragma once

#include <memory>
#include <string>

#include "storage/transformer.h"

namespace capstan::storage::transformers {

std::unique_ptr<Transformer> NewAesGcmTransformer(std::string key);
std::unique_ptr<Transformer> NewAesCbcTransformer(std::string key);

}  // namespace capstan::storage::transformers
