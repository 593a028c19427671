// apimachinery/sha256.h: SHA-256 as kube's code prints it: lower-case hex, and the "sha256:<hex>"
// label its metrics carry (getHash: apiserver_id_hash, jwt_issuer_hash, key_id_hash). Pure functions.
#pragma once

#include <string>
#include <string_view>

namespace capstan::apimachinery {

// The SHA-256 of the bytes in lower-case hex.
std::string Sha256Hex(std::string_view data);
// kube's metric label hash (getHash): "sha256:<hex>", "" for "".
std::string Sha256Label(std::string_view data);

}  // namespace capstan::apimachinery
