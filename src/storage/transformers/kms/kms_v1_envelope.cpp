#include "storage/transformers/kms/kms_v1_envelope.h"

#include <openssl/rand.h>

#include "storage/transformers/aes.h"
#include "storage/transformers/kms/kms_grpc.h"
#include "storage/transformers/kms/proto/kms_v1.grpc.pb.h"

namespace capstan::storage::kms {

namespace {

constexpr char kApiVersion[] = "v1beta1";  // kube's kmsapiVersion
constexpr size_t kDekSize = 32;

capstan::Status Internal(std::string message) { return capstan::Status(500, "InternalError", std::move(message)); }

}  // namespace

// The plugin's v1beta1 service; the Version check runs once, before the first other call.
class KmsV1Client {
 public:
  KmsV1Client(const transformers::KmsConfig& c, KmsMetrics* metrics)
      : call_("v1beta1.KeyManagementService", c.name, c.timeout, metrics),
        stub_(v1beta1::KeyManagementService::NewStub(PluginChannel(c.endpoint))) {}

  StatusOr<std::string> Encrypt(const std::string& plain) {
    if (capstan::Status st = CheckVersion(); !st.ok()) return st;
    v1beta1::EncryptRequest req;
    req.set_version(kApiVersion);
    req.set_plain(plain);
    v1beta1::EncryptResponse resp;
    grpc::Status st = call_("Encrypt", [&](grpc::ClientContext* ctx) { return stub_->Encrypt(ctx, req, &resp); });
    if (!st.ok()) return KmsCallFailed("Encrypt", st);
    return resp.cipher();
  }

  StatusOr<std::string> Decrypt(const std::string& cipher) {
    if (capstan::Status st = CheckVersion(); !st.ok()) return st;
    v1beta1::DecryptRequest req;
    req.set_version(kApiVersion);
    req.set_cipher(cipher);
    v1beta1::DecryptResponse resp;
    grpc::Status st = call_("Decrypt", [&](grpc::ClientContext* ctx) { return stub_->Decrypt(ctx, req, &resp); });
    if (!st.ok()) return KmsCallFailed("Decrypt", st);
    return resp.plain();
  }

 private:
  capstan::Status CheckVersion() {
    std::lock_guard lock(version_mu_);
    if (version_checked_) return capstan::Status();
    v1beta1::VersionRequest req;
    req.set_version(kApiVersion);
    v1beta1::VersionResponse resp;
    grpc::Status st = call_("Version", [&](grpc::ClientContext* ctx) { return stub_->Version(ctx, req, &resp); });
    if (!st.ok()) {
      return Internal("failed get version from remote KMS provider: rpc error: code = " + GrpcCodeName(st.error_code()) +
                      " desc = " + st.error_message());
    }
    if (resp.version() != kApiVersion) {
      return Internal("KMS provider api version " + resp.version() + " is not supported, only v1beta1 is supported now");
    }
    version_checked_ = true;
    return capstan::Status();
  }

  const PluginCaller call_;
  std::unique_ptr<v1beta1::KeyManagementService::Stub> stub_;
  std::mutex version_mu_;
  bool version_checked_ = false;  // guarded by version_mu_
};

KmsV1Envelope::KmsV1Envelope(const transformers::KmsConfig& config, KmsMetrics* metrics,
                             std::chrono::milliseconds healthy_check, std::chrono::milliseconds unhealthy_check)
    : name_(config.name),
      cache_size_(config.cache_size),
      client_(std::make_unique<KmsV1Client>(config, metrics)),
      metrics_(metrics),
      check_(healthy_check, unhealthy_check) {}

KmsV1Envelope::~KmsV1Envelope() = default;

std::optional<std::string> KmsV1Envelope::CachedKey(const std::string& encrypted) const {
  std::lock_guard lock(mu_);
  auto it = index_.find(encrypted);
  if (it == index_.end()) return std::nullopt;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->second;
}

void KmsV1Envelope::CacheKey(const std::string& encrypted, const std::string& dek) const {
  if (cache_size_ <= 0) return;
  std::lock_guard lock(mu_);
  if (auto it = index_.find(encrypted); it != index_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second);
    return;
  }
  lru_.emplace_front(encrypted, dek);
  index_[encrypted] = lru_.begin();
  if (lru_.size() > static_cast<size_t>(cache_size_)) {
    index_.erase(lru_.back().first);
    lru_.pop_back();
  }
  if (metrics_) metrics_->dek_cache_fill_percent.Set(static_cast<double>(lru_.size()) / cache_size_);
}

bool KmsV1Envelope::MayBlock(std::string_view, Direction d, std::string_view stored) const {
  if (d == Direction::kToStorage || stored.size() < 2) return d == Direction::kToStorage;
  size_t n = (static_cast<size_t>(static_cast<unsigned char>(stored[0])) << 8) | static_cast<unsigned char>(stored[1]);
  if (stored.size() < 2 + n) return false;  // FromStorage refuses it without a call
  std::lock_guard lock(mu_);
  return !index_.count(std::string(stored.substr(2, n)));
}

size_t KmsV1Envelope::cached_keys() const {
  std::lock_guard lock(mu_);
  return lru_.size();
}

StatusOr<std::string> KmsV1Envelope::ToStorage(std::string_view data, std::string_view key) const {
  if (metrics_) metrics_->RecordArrival("to_storage");
  const auto generating = std::chrono::steady_clock::now();
  std::string dek(kDekSize, '\0');
  const bool generated = RAND_bytes(reinterpret_cast<unsigned char*>(dek.data()), static_cast<int>(dek.size())) == 1;
  if (metrics_) metrics_->RecordDekGeneration(generating, generated);
  if (!generated) return Internal("failed to generate a data encryption key");
  auto encrypted = client_->Encrypt(dek);
  if (!encrypted.ok()) return encrypted.status();
  if (encrypted->size() > 0xffff) return Internal("the encrypted DEK is longer than 65535 bytes");
  CacheKey(*encrypted, dek);
  auto sealed = transformers::NewAesCbcTransformer(dek)->ToStorage(data, key);
  if (!sealed.ok()) return sealed.status();
  std::string out;
  out.reserve(2 + encrypted->size() + sealed->size());
  out.push_back(static_cast<char>(encrypted->size() >> 8));
  out.push_back(static_cast<char>(encrypted->size() & 0xff));
  out += *encrypted;
  out += *sealed;
  return out;
}

StatusOr<std::string> KmsV1Envelope::FromStorage(std::string_view stored, std::string_view key, bool* stale) const {
  if (metrics_) metrics_->RecordArrival("from_storage");
  if (stored.size() < 2) {
    return Internal("invalid data encountered by envelope transformer: failed to read uint16 length prefixed data");
  }
  size_t n = (static_cast<size_t>(static_cast<unsigned char>(stored[0])) << 8) | static_cast<unsigned char>(stored[1]);
  if (stored.size() < 2 + n) {
    return Internal("invalid data encountered by envelope transformer: failed to read uint16 length prefixed data");
  }
  std::string encrypted(stored.substr(2, n));
  std::optional<std::string> dek = CachedKey(encrypted);
  if (!dek) {
    if (metrics_ && cache_size_ > 0) metrics_->cache_misses.Inc();
    auto plain = client_->Decrypt(encrypted);
    if (!plain.ok()) return plain.status();
    if (plain->size() != 16 && plain->size() != 24 && plain->size() != 32) {
      return Internal("crypto/aes: invalid key size " + std::to_string(plain->size()));
    }
    dek = *plain;
    CacheKey(encrypted, *dek);
  }
  // kube's v1 envelope never reports a value stale: a rotated KMS key is the plugin's business.
  if (stale) *stale = false;
  return transformers::NewAesCbcTransformer(*dek)->FromStorage(stored.substr(2 + n), key, nullptr);
}

capstan::Status KmsV1Envelope::Check() {
  // kube's kmsPluginProbe: an Encrypt of "ping", then a Decrypt of what it returned.
  return check_.Run([this] {
    auto cipher = client_->Encrypt("ping");
    if (!cipher.ok()) {
      return Internal("failed to perform encrypt section of the healthz check for KMS Provider " + name_ +
                      ", error: " + cipher.status().message());
    }
    if (auto plain = client_->Decrypt(*cipher); !plain.ok()) {
      return Internal("failed to perform decrypt section of the healthz check for KMS Provider " + name_ +
                      ", error: " + plain.status().message());
    }
    return capstan::Status();
  });
}

}  // namespace capstan::storage::kms
