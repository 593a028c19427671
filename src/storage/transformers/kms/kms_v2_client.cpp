#include "storage/transformers/kms/kms_v2_client.h"

#include <grpcpp/grpcpp.h>

#include "storage/transformers/kms/proto/kms_v2.grpc.pb.h"

namespace capstan::storage::kms {

namespace {

// Reconnects within a second of a plugin (re)starting, instead of gRPC's default backoff of up to
// two minutes; calls fail fast while it is down.
std::shared_ptr<grpc::Channel> Channel(const std::string& endpoint) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 1000);  // also the least time a connect may take
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  return grpc::CreateCustomChannel(endpoint, grpc::InsecureChannelCredentials(), args);
}

class GrpcKmsV2Client : public KmsV2Client {
 public:
  GrpcKmsV2Client(const std::string& endpoint, std::chrono::nanoseconds timeout)
      : timeout_(timeout), stub_(v2::KeyManagementService::NewStub(Channel(endpoint))) {}

  StatusOr<PluginStatus> Status() override {
    grpc::ClientContext ctx;
    Deadline(ctx);
    v2::StatusRequest req;
    v2::StatusResponse resp;
    grpc::Status st = stub_->Status(&ctx, req, &resp);
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
    grpc::Status st = stub_->Encrypt(&ctx, req, &resp);
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
    grpc::Status st = stub_->Decrypt(&ctx, req, &resp);
    if (!st.ok()) return Failed("Decrypt", st);
    return resp.plaintext();
  }

 private:
  void Deadline(grpc::ClientContext& ctx) {
    ctx.set_deadline(std::chrono::system_clock::now() +
                     std::chrono::duration_cast<std::chrono::system_clock::duration>(timeout_));
  }
  static capstan::Status Failed(const char* call, const grpc::Status& st) {
    return capstan::Status(500, "InternalError",
                           std::string("kms ") + call + " failed: rpc error: code = " + CodeName(st.error_code()) +
                               " desc = " + st.error_message());
  }
  static std::string CodeName(grpc::StatusCode c) {
    switch (c) {
      case grpc::StatusCode::DEADLINE_EXCEEDED: return "DeadlineExceeded";
      case grpc::StatusCode::UNAVAILABLE: return "Unavailable";
      case grpc::StatusCode::UNIMPLEMENTED: return "Unimplemented";
      case grpc::StatusCode::INVALID_ARGUMENT: return "InvalidArgument";
      case grpc::StatusCode::INTERNAL: return "Internal";
      default: return std::to_string(static_cast<int>(c));
    }
  }

  const std::chrono::nanoseconds timeout_;
  std::unique_ptr<v2::KeyManagementService::Stub> stub_;
};

}  // namespace

std::unique_ptr<KmsV2Client> NewKmsV2Client(const std::string& endpoint, std::chrono::nanoseconds timeout) {
  return std::make_unique<GrpcKmsV2Client>(endpoint, timeout);
}

}  // namespace capstan::storage::kms
