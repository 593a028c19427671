#include "storage/transformers/kms/kms_v2_envelope.h"

#include <openssl/hmac.h>
#include <algorithm>
#include <openssl/rand.h>

#include "storage/transformers/aes.h"
#include "storage/transformers/kms/proto/kms_v2_encrypted_object.pb.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::storage::kms {

namespace {

constexpr size_t kSeedSize = 32;  // kube's MinSeedSizeExtendedNonceGCM
constexpr size_t kInfoSize = 32;  // kube's infoSizeExtendedNonceGCM
constexpr size_t kMaxSourceSize = 1024;
constexpr auto kHealthyPoll = std::chrono::minutes(1);
constexpr auto kUnhealthyPoll = std::chrono::seconds(10);

capstan::Status Internal(std::string message) { return capstan::Status(500, "InternalError", std::move(message)); }

std::string RandomBytes(size_t n) {
  std::string out(n, '\0');
  RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n));
  return out;
}

std::string NewUid() {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string raw = RandomBytes(16), out;
  for (unsigned char c : raw) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

// HKDF-SHA256 expand only, one block: T(1) = HMAC(seed, info || 0x01), the 32-byte key.
std::string DeriveKey(const std::string& seed, std::string_view info) {
  std::string msg(info);
  msg.push_back('\x01');
  unsigned char out[32];
  unsigned int len = 0;
  HMAC(EVP_sha256(), seed.data(), static_cast<int>(seed.size()), reinterpret_cast<const unsigned char*>(msg.data()),
       msg.size(), out, &len);
  return std::string(reinterpret_cast<char*>(out), len);
}

// A cache key as kube's generateCacheKey: type, source, key ID and the sorted annotations, each with
// its length.
std::string CacheKey(const v2::EncryptedObject& o) {
  std::string k = std::to_string(o.encrypteddeksourcetype()) + ":";
  auto add = [&k](const std::string& s) { k += std::to_string(s.size()) + ":" + s; };
  add(o.encrypteddeksource());
  add(o.keyid());
  std::map<std::string, std::string> sorted(o.annotations().begin(), o.annotations().end());
  for (const auto& [a, v] : sorted) {
    add(a);
    add(v);
  }
  return k;
}

// kube's ValidateEncryptedObject.
capstan::Status Validate(const v2::EncryptedObject& o) {
  if (o.encrypteddeksourcetype() != v2::AES_GCM_KEY && o.encrypteddeksourcetype() != v2::HKDF_SHA256_XNONCE_AES_GCM_SEED) {
    return Internal("unknown encryptedDEKSourceType: " + std::to_string(o.encrypteddeksourcetype()));
  }
  if (o.encrypteddata().empty()) return Internal("encrypted data is empty");
  if (o.encrypteddeksource().empty()) {
    return Internal("failed to validate encrypted DEK source: encrypted DEK source is empty");
  }
  if (o.encrypteddeksource().size() > kMaxSourceSize) {
    return Internal("failed to validate encrypted DEK source: encrypted DEK source is " +
                    std::to_string(o.encrypteddeksource().size()) + " bytes, which exceeds the max size of 1024");
  }
  if (o.keyid().empty()) return Internal("failed to validate key id: keyID is empty");
  if (o.keyid().size() > kMaxSourceSize) {
    return Internal("failed to validate key id: keyID is " + std::to_string(o.keyid().size()) +
                    " bytes, which exceeds the max size of 1024");
  }
  return capstan::Status();
}

}  // namespace

struct KmsV2Envelope::WriteState {
  std::string seed;
  v2::EncryptedObject object;  // all but encryptedData
};

KmsV2Envelope::KmsV2Envelope(std::string name, std::unique_ptr<KmsV2Client> client, KmsMetrics* metrics, Ttls ttls)
    : name_(std::move(name)),
      client_(std::move(client)),
      metrics_(metrics),
      ttls_(ttls),
      check_(ttls.healthy_check, ttls.unhealthy_check) {
  capstan::Status st = Refresh();
  if (!st.ok()) LogWarn("KMS v2 plugin not ready, writes wait for it", {{"provider", name_}, {"error", st.message()}});
  poller_ = std::thread([this] { Poll(); });
}

KmsV2Envelope::~KmsV2Envelope() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (poller_.joinable()) poller_.join();
}

StatusOr<PluginStatus> KmsV2Envelope::HealthyStatus() const {
  auto st = client_->Status();
  if (!st.ok()) {
    return Internal("failed to perform status section of the healthz check for KMS Provider " + name_ +
                    ", error: " + st.status().message());
  }
  std::vector<std::string> errors;
  if (st->healthz != "ok") errors.push_back("got unexpected healthz status: " + st->healthz);
  if (st->version != "v2" && st->version != "v2beta1") errors.push_back("expected KMSv2 API version v2, got " + st->version);
  if (metrics_) metrics_->RecordKeyIdFromStatus(name_, st->key_id);
  if (st->key_id.empty()) {
    errors.push_back("got invalid KMSv2 KeyID hash \"\": keyID is empty");
  } else if (st->key_id.size() > kKeyIdMaxSize) {
    errors.push_back("got invalid KMSv2 KeyID hash \"" + transformers::Sha256Label(st->key_id) + "\": keyID is " +
                     std::to_string(st->key_id.size()) + " bytes, which exceeds the max size of " +
                     std::to_string(kKeyIdMaxSize));
  }
  if (!errors.empty()) return Unhealthy(errors.size() == 1 ? errors[0] : "[" + Join(errors, ", ") + "]");
  return st;
}

capstan::Status KmsV2Envelope::Unhealthy(const std::string& error) const {
  return Internal("kmsv2 Provider " + name_ + " is not healthy, error: " + error);
}

capstan::Status KmsV2Envelope::Refresh() {
  std::lock_guard refreshing(refresh_mu_);  // one seed per key ID, whoever notices the change
  auto healthy = HealthyStatus();
  if (!healthy.ok()) return healthy.status();
  const std::string key_id = healthy->key_id;
  {
    std::lock_guard lock(mu_);
    if (state_ && state_->object.keyid() == key_id) {
      state_valid_until_ = std::chrono::steady_clock::now() + kWriteSourceMaxTtl;
      return capstan::Status();
    }
  }
  auto state = std::make_shared<WriteState>();
  const auto generating = std::chrono::steady_clock::now();
  state->seed.assign(kSeedSize, '\0');
  const bool generated =
      RAND_bytes(reinterpret_cast<unsigned char*>(state->seed.data()), static_cast<int>(kSeedSize)) == 1;
  if (metrics_) metrics_->RecordDekGeneration(generating, generated);
  if (!generated) return Internal("failed to generate DEK seed");
  auto enc = client_->Encrypt(NewUid(), state->seed);
  if (!enc.ok()) return Unhealthy("failed to rotate DEK, error: " + enc.status().message());
  state->object.set_keyid(enc->key_id);
  state->object.set_encrypteddeksource(enc->ciphertext);
  state->object.set_encrypteddeksourcetype(v2::HKDF_SHA256_XNONCE_AES_GCM_SEED);
  for (const auto& [k, v] : enc->annotations) (*state->object.mutable_annotations())[k] = v;
  state->object.set_encrypteddata(std::string(1, '\0'));  // any non-empty value passes validation
  if (capstan::Status st = Validate(state->object); !st.ok()) return st;
  std::lock_guard lock(mu_);
  CacheSourceLocked(CacheKey(state->object), state->seed);
  state_ = std::move(state);
  state_valid_until_ = std::chrono::steady_clock::now() + kWriteSourceMaxTtl;
  LogInfo("KMS v2 DEK seed generated", {{"provider", name_}, {"keyID", enc->key_id}});
  return capstan::Status();
}

capstan::Status KmsV2Envelope::Check() {
  return check_.Run([this] { return Refresh(); });
}

void KmsV2Envelope::CacheSourceLocked(const std::string& cache_key, std::string source) const {
  const auto now = std::chrono::steady_clock::now();
  std::erase_if(seeds_, [&](const auto& kv) { return kv.second.expires <= now; });
  if (seeds_.size() >= kMaxCachedSources && !seeds_.count(cache_key)) {
    seeds_.erase(std::min_element(seeds_.begin(), seeds_.end(), [](const auto& a, const auto& b) {
      return a.second.expires < b.second.expires;
    }));
  }
  seeds_[cache_key] = {std::move(source), now + ttls_.source_cache};
  if (metrics_) metrics_->dek_source_cache_size.With({name_})->Set(static_cast<double>(seeds_.size()));
}

std::string KmsV2Envelope::current_key_id() const {
  std::lock_guard lock(mu_);
  return state_ ? state_->object.keyid() : "";
}

void KmsV2Envelope::Poll() {
  std::unique_lock lock(mu_);
  bool ok = state_ != nullptr;  // the constructor checked once already
  while (true) {
    cv_.wait_for(lock, ok ? std::chrono::duration_cast<std::chrono::seconds>(kHealthyPoll) : kUnhealthyPoll,
                 [&] { return stopping_; });
    if (stopping_) break;
    lock.unlock();
    capstan::Status st = Refresh();
    if (!st.ok()) LogWarn("KMS v2 plugin status check failed", {{"provider", name_}, {"error", st.message()}});
    ok = st.ok();
    lock.lock();
  }
}

StatusOr<std::string> KmsV2Envelope::ToStorage(std::string_view data, std::string_view key) const {
  std::shared_ptr<const WriteState> state;
  {
    std::lock_guard lock(mu_);
    if (!state_) return Internal("got unexpected nil transformer state");
    if (std::chrono::steady_clock::now() > state_valid_until_) {
      return Internal("encryptedDEKSource with keyID " + state_->object.keyid() + " has expired");
    }
    state = state_;
  }
  std::string info = RandomBytes(kInfoSize);
  auto gcm = transformers::NewAesGcmTransformer(DeriveKey(state->seed, info));
  auto sealed = gcm->ToStorage(data, key);
  if (!sealed.ok()) return sealed.status();
  v2::EncryptedObject out = state->object;
  out.set_encrypteddata(info + *sealed);
  if (metrics_) metrics_->RecordKeyId("to_storage", name_, out.keyid());
  return out.SerializeAsString();
}

bool KmsV2Envelope::MayBlock(std::string_view, Direction d, std::string_view stored) const {
  if (d == Direction::kToStorage) return false;
  v2::EncryptedObject o;
  if (!o.ParseFromArray(stored.data(), static_cast<int>(stored.size())) || !Validate(o).ok()) return false;
  std::lock_guard lock(mu_);
  auto it = seeds_.find(CacheKey(o));
  return it == seeds_.end() || it->second.expires <= std::chrono::steady_clock::now();
}

StatusOr<std::string> KmsV2Envelope::FromStorage(std::string_view stored, std::string_view key, bool* stale) const {
  v2::EncryptedObject o;
  if (!o.ParseFromArray(stored.data(), static_cast<int>(stored.size()))) {
    return Internal("failed to decode encrypted object: proto: cannot parse invalid wire-format data");
  }
  if (capstan::Status st = Validate(o); !st.ok()) return st;
  const std::string cache_key = CacheKey(o);
  std::string source;
  std::string current;
  {
    std::lock_guard lock(mu_);
    if (auto it = seeds_.find(cache_key); it != seeds_.end()) {
      if (it->second.expires > std::chrono::steady_clock::now()) {
        source = it->second.source;
      } else {
        seeds_.erase(it);
      }
    }
    current = state_ ? state_->object.keyid() : "";
  }
  if (source.empty()) {
    if (metrics_) metrics_->cache_misses.Inc();
    std::map<std::string, std::string> annotations(o.annotations().begin(), o.annotations().end());
    auto plain = client_->Decrypt(NewUid(), o.encrypteddeksource(), o.keyid(), annotations);
    if (!plain.ok()) return Internal("failed to decrypt DEK, error: " + plain.status().message());
    source = std::move(*plain);
    std::lock_guard lock(mu_);
    CacheSourceLocked(cache_key, source);
  }
  const bool seeded = o.encrypteddeksourcetype() == v2::HKDF_SHA256_XNONCE_AES_GCM_SEED;
  std::string_view data = o.encrypteddata();
  std::unique_ptr<Transformer> gcm;
  if (seeded) {
    if (source.size() < kSeedSize) return Internal("invalid seed length " + std::to_string(source.size()) + " used for key generation");
    if (data.size() < kInfoSize) return Internal("the stored data was shorter than the required size");
    gcm = transformers::NewAesGcmTransformer(DeriveKey(source, data.substr(0, kInfoSize)));
    data.remove_prefix(kInfoSize);
  } else {
    gcm = transformers::NewAesGcmTransformer(source);
  }
  bool inner_stale = false;
  auto out = gcm->FromStorage(data, key, &inner_stale);
  if (!out.ok()) return out.status();
  if (stale) *stale = !seeded || current.empty() || o.keyid() != current;
  if (metrics_) metrics_->RecordKeyId("from_storage", name_, o.keyid());
  return out;
}

}  // namespace capstan::storage::kms
