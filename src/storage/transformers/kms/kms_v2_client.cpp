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
      : timeout_(timeout),
        metrics_(metrics),
        provider_(std::move(provider)),
        stub_(v2::KeyManagementService::NewStub(PluginChannel(endpoint))) {}

  StatusOr<PluginStatus> Status() override {
    grpc::ClientContext ctx;
    Deadline(ctx);
    v2::StatusRequest req;
    v2::StatusResponse resp;
    auto start = std::chrono::steady_clock::now();
    grpc::Status st = stub_->Status(&ctx, req, &resp);
    Record("Status", start, st);
    if (!st.ok()) return Failed("Status", st);
    return PluginStatus{resp.version(), resp.healthz(), resp.key_id()};
  }

  StatusOr<EncryptResult> Encrypt(const std::string& uid, const std::string& plaintext) override {
    grpc::ClientContext ctx;
    Deadline(ctx);
    v2::EncryptRequest req;
    req.set_uid(uid);
    req.set_plaintext(plaintext);
    v2::EncryptResponse resp;
    auto start = std::chrono::steady_clock::now();
    grpc::Status st = stub_->Encrypt(&ctx, req, &resp);
    Record("Encrypt", start, st);
    if (!st.ok()) return Failed("Encrypt", st);
    EncryptResult out{resp.ciphertext(), resp.key_id(), {}};
    for (const auto& [k, v] : resp.annotations()) out.annotations[k] = v;
    return out;
  }

  StatusOr<std::string> Decrypt(const std::string& uid, const std::string& ciphertext, const std::string& key_id,
                                const std::map<std::string, std::string>& annotations) override {
    grpc::ClientContext ctx;
    Deadline(ctx);
    v2::DecryptRequest req;
    req.set_uid(uid);
    req.set_ciphertext(ciphertext);
    req.set_key_id(key_id);
    for (const auto& [k, v] : annotations) (*req.mutable_annotations())[k] = v;
    v2::DecryptResponse resp;
    auto start = std::chrono::steady_clock::now();
    grpc::Status st = stub_->Decrypt(&ctx, req, &resp);
    Record("Decrypt", start, st);
    if (!st.ok()) return Failed("Decrypt", st);
    return resp.plaintext();
  }

 private:
  void Record(const char* method, std::chrono::steady_clock::time_point start, const grpc::Status& st) {
    if (!metrics_) return;
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    metrics_->latency.With({provider_, std::string("/v2.KeyManagementService/") + method, CodeName(st.error_code())})
        ->Observe(secs);
  }
  void Deadline(grpc::ClientContext& ctx) { SetCallDeadline(ctx, timeout_); }
  static capstan::Status Failed(const char* call, const grpc::Status& st) { return KmsCallFailed(call, st); }
  static std::string CodeName(grpc::StatusCode c) { return GrpcCodeName(c); }

  const std::chrono::nanoseconds timeout_;
  KmsMetrics* metrics_;
  const std::string provider_;
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

void SetCallDeadline(grpc::ClientContext& ctx, std::chrono::nanoseconds timeout) {
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::duration_cast<std::chrono::system_clock::duration>(timeout));
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
