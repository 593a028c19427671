// storage/transformers/encryption_config.h: --encryption-provider-config, kube's
// apiserver.config.k8s.io/v1 EncryptionConfiguration (YAML or JSON):
//
//   apiVersion: apiserver.config.k8s.io/v1
//   kind: EncryptionConfiguration
//   resources:
//   - resources: [secrets, configmaps, "*.apps"]   # group resources: "<resource>[.<group>]", "*.<group>", "*.*"
//     providers:                                   # the first one writes; all of them read
//     - aesgcm: {keys: [{name: key2, secret: <base64 of 16, 24 or 32 bytes>}, {name: key1, ...}]}
//     - aescbc: {keys: [...]}
//     - secretbox: {keys: [{name: k, secret: <base64 of 32 bytes>}]}
//     - identity: {}
//
// Values are stored as kube stores them: "k8s:enc:<provider>:v1:<key name>:" then the provider's
// bytes; the first key of the first provider writes, and every key of every provider reads, so keys
// rotate by reordering (add the new key second, restart every replica, move it first, restart,
// rewrite the objects, drop the old key); with --encryption-provider-config-automatic-reload each
// step takes effect without a restart (storage/transformers/config_reloader.h). Validation follows kube's (same field paths and messages);
// KMS providers (kms: {apiVersion: v2 or v1, name, endpoint: unix://..., timeout, v1's cachesize}) are
// built by the factory BuildTransformers is given (storage/transformers/kms/); v1 only with the KMSv1
// feature gate on, as kube 1.32.
//
// Thread-safety: the parsed config and built transformers are immutable.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "apimachinery/sha256.h"
#include "apimachinery/status.h"
#include "storage/transformer.h"

namespace capstan::storage::transformers {

struct GroupResource {
  std::string group;     // "" for core; "*" for any group
  std::string resource;  // "*" for any resource of the group
  bool operator<(const GroupResource& o) const { return group != o.group ? group < o.group : resource < o.resource; }
  bool operator==(const GroupResource& o) const = default;
};

// kube's schema.ParseGroupResource: "deployments.apps" → {apps, deployments}, "secrets" → {"", secrets}.
GroupResource ParseGroupResource(std::string_view s);

struct KeyConfig {
  std::string name;
  std::string secret;  // base64, as written in the file
};

// A kms provider (kube's KMSConfiguration), apiVersion v2, or v1 behind the KMSv1 gate.
struct KmsConfig {
  std::string name;
  std::string api_version = "v1";  // kube's default
  std::string endpoint;            // unix:///path/to/socket
  std::chrono::nanoseconds timeout = std::chrono::seconds(3);
  int cache_size = 1000;  // v1's cachesize (kube's default); negative: no DEK cache
};

struct ProviderConfig {
  std::string type;  // aesgcm, aescbc, secretbox, identity, kms
  std::vector<KeyConfig> keys;
  KmsConfig kms;  // type kms
};

struct ResourceConfig {
  std::vector<std::string> resources;
  std::vector<ProviderConfig> providers;
};

struct EncryptionConfig {
  std::vector<ResourceConfig> resources;
};

// Parses and validates the file's text. Errors are 400-style Statuses whose message says what is wrong
// (kube's aggregate of field errors for validation).
StatusOr<EncryptionConfig> ParseEncryptionConfig(std::string_view text);
// Reads the file, then parses it; messages name the file. `content_hash`: the file's hash, as
// EncryptionConfigHash.
StatusOr<EncryptionConfig> LoadEncryptionConfig(const std::string& path, std::string* content_hash = nullptr);
using apimachinery::Sha256Hex;
using apimachinery::Sha256Label;
// kube's computeEncryptionConfigHash: "k8s:enc:unstable:1:<sha256 of the bytes, hex>".
std::string EncryptionConfigHash(std::string_view data);
// kube's GetEncryptionConfigHash: the hash of the file's bytes, without parsing them (unreadable or
// empty: an error).
StatusOr<std::string> EncryptionConfigFileHash(const std::string& path);

// Builds a kms provider's transformer (the part after "k8s:enc:kms:<v1|v2>:<name>:"); one call per provider
// name, shared by the resources that list it.
using KmsFactory = std::function<StatusOr<std::shared_ptr<const Transformer>>(const KmsConfig&)>;

// The transformer of every group resource the config names (wildcards included), as kube builds them.
// Without `kms`, a kms provider is an error.
StatusOr<std::map<GroupResource, std::shared_ptr<const Transformer>>> BuildTransformers(const EncryptionConfig& config,
                                                                                       const KmsFactory& kms = nullptr);

}  // namespace capstan::storage::transformers
