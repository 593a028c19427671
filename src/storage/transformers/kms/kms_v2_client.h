// storage/transformers/kms/kms_v2_client.h: a client of one KMS v2 plugin (kube's gRPC
// KeyManagementService v2 on a unix socket: Status, Encrypt, Decrypt), each call bounded by the
// provider's timeout. Calls block the calling thread for at most that long.
// Thread-safety: thread-safe (one gRPC channel).
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "apimachinery/status.h"

namespace capstan::storage::kms {

struct PluginStatus {
  std::string version;
  std::string healthz;
  std::string key_id;
};

struct EncryptResult {
  std::string ciphertext;
  std::string key_id;
  std::map<std::string, std::string> annotations;
};

class KmsV2Client {
 public:
  virtual ~KmsV2Client() = default;
  virtual StatusOr<PluginStatus> Status() = 0;
  virtual StatusOr<EncryptResult> Encrypt(const std::string& uid, const std::string& plaintext) = 0;
  virtual StatusOr<std::string> Decrypt(const std::string& uid, const std::string& ciphertext, const std::string& key_id,
                                        const std::map<std::string, std::string>& annotations) = 0;
};

struct KmsMetrics;

// `endpoint`: "unix:///path". Failures are 500s naming the call and gRPC's error. With `metrics`, each
// call's duration goes to kms_operations_latency_seconds under `provider`.
std::unique_ptr<KmsV2Client> NewKmsV2Client(const std::string& endpoint, std::chrono::nanoseconds timeout,
                                            KmsMetrics* metrics = nullptr, std::string provider = "");

}  // namespace capstan::storage::kms
