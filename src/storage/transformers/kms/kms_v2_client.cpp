#include "storage/transformers/kms/kms_v2_client.h"

#include <grpcpp/grpcpp.h>

#include "storage/transformers/kms/kms_grpc.h"
#include "storage/transformers/kms/kms_metrics.h"
#include "storage/transformers/kms/proto/kms_v2.grpc.pb.h"

namespace capstan::storage::kms {

namespace {

class GrpcKmsV2Client : public KmsV2Client {
 public:
  GrpcKmsV2Client(const std::string& endpoint, std::chrono::nanoseconds timeout, KmsMetrics* metrics,
                  std::string provider)
      : call_("v2.KeyManagementService", std::move(provider), timeout, metrics),
        stub_(v2::KeyManagementService::NewStub(PluginChannel(endpoint))) {}

  StatusOr<PluginStatus> Status() override {
    v2::StatusRequest req;
    v2::StatusResponse resp;
    grpc::Status st = call_("Status", [&](grpc::ClientContext* ctx) { return stub_->Status(ctx, req, &resp); });
    if (!st.ok()) return KmsCallFailed("Status", st);
    return PluginStatus{resp.version(), resp.healthz(), resp.key_id()};
  }

  StatusOr<EncryptResult> Encrypt(const std::string& uid, const std::string& plaintext) override {
    v2::EncryptRequest req;
    req.set_uid(uid);
    req.set_plaintext(plaintext);
    v2::EncryptResponse resp;
    grpc::Status st = call_("Encrypt", [&](grpc::ClientContext* ctx) { return stub_->Encrypt(ctx, req, &resp); });
    if (!st.ok()) return KmsCallFailed("Encrypt", st);
    EncryptResult out{resp.ciphertext(), resp.key_id(), {}};
    for (const auto& [k, v] : resp.annotations()) out.annotations[k] = v;
    return out;
  }

  StatusOr<std::string> Decrypt(const std::string& uid, const std::string& ciphertext, const std::string& key_id,
                                const std::map<std::string, std::string>& annotations) override {
    v2::DecryptRequest req;
    req.set_uid(uid);
    req.set_ciphertext(ciphertext);
    req.set_key_id(key_id);
    for (const auto& [k, v] : annotations) (*req.mutable_annotations())[k] = v;
    v2::DecryptResponse resp;
    grpc::Status st = call_("Decrypt", [&](grpc::ClientContext* ctx) { return stub_->Decrypt(ctx, req, &resp); });
    if (!st.ok()) return KmsCallFailed("Decrypt", st);
    return resp.plaintext();
  }

 private:
  const PluginCaller call_;
  std::unique_ptr<v2::KeyManagementService::Stub> stub_;
};

}  // namespace

std::shared_ptr<grpc::Channel> PluginChannel(const std::string& endpoint) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 1000);  // also the least time a connect may take
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  return grpc::CreateCustomChannel(endpoint, grpc::InsecureChannelCredentials(), args);
}

void PluginCaller::Observe(const char* method, std::chrono::steady_clock::time_point start,
                           const grpc::Status& st) const {
  if (!metrics_) return;
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  metrics_->latency.With({provider_, "/" + service_ + "/" + method, GrpcCodeName(st.error_code())})->Observe(secs);
}

std::string GrpcCodeName(grpc::StatusCode c) {
  static const char* const kNames[] = {"OK",          "Canceled",          "Unknown",          "InvalidArgument",
                                       "DeadlineExceeded", "NotFound",     "AlreadyExists",    "PermissionDenied",
                                       "ResourceExhausted", "FailedPrecondition", "Aborted",   "OutOfRange",
                                       "Unimplemented", "Internal",        "Unavailable",      "DataLoss",
                                       "Unauthenticated"};
  int i = static_cast<int>(c);
  return i >= 0 && i < 17 ? kNames[i] : "Code(" + std::to_string(i) + ")";
}

capstan::Status KmsCallFailed(const char* call, const grpc::Status& st) {
  return capstan::Status(500, "InternalError",
                         std::string("kms ") + call + " failed: rpc error: code = " + GrpcCodeName(st.error_code()) +
                             " desc = " + st.error_message());
}

std::unique_ptr<KmsV2Client> NewKmsV2Client(const std::string& endpoint, std::chrono::nanoseconds timeout,
                                            KmsMetrics* metrics, std::string provider) {
  return std::make_unique<GrpcKmsV2Client>(endpoint, timeout, metrics, std::move(provider));
}

}  // namespace capstan::storage::kms
