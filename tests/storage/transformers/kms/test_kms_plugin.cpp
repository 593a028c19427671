// tests/storage/transformers/kms/test_kms_plugin.cpp: a KMS v2 and v1 plugin for the tests, on Debian's
// gRPC:
//   test_kms_plugin <unix socket path> <key id file> [--log <file>] [--delay-ms N] [--v1-version V]
// Status reports healthz "ok", version v2 and the key ID the file holds (read on every call, so a test
// rotates the key by rewriting the file). Encrypt seals with AES-256-GCM under a key derived from the
// current key ID (SHA-256 of "capstan-test-kms:" + key ID), Decrypt with the key of the key ID the
// request names, so values under an old key ID still decrypt. Each call is appended to the log file
// ("Status", "Encrypt <key id>", "Decrypt <key id>"); --delay-ms makes every call that slow.
// The v1beta1 service on the same socket: Version answers --v1-version (default v1beta1), Encrypt
// returns "<key id>:" and the sealed value, Decrypt opens it under that key ID (logged as "Version",
// "V1Encrypt <key id>", "V1Decrypt <key id>").
#include <grpcpp/grpcpp.h>
#include <openssl/sha.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "storage/transformers/aes.h"
#include "storage/transformers/kms/proto/kms_v1.grpc.pb.h"
#include "storage/transformers/kms/proto/kms_v2.grpc.pb.h"

namespace {

using capstan::storage::transformers::NewAesGcmTransformer;

std::string g_key_file, g_log_file, g_v1_version = "v1beta1";
int g_delay_ms = 0;
std::mutex g_log_mu;

std::string CurrentKeyId() {
  std::ifstream in(g_key_file);
  std::string id;
  std::getline(in, id);
  return id;
}

std::string KeyFor(const std::string& key_id) {
  std::string material = "capstan-test-kms:" + key_id;
  unsigned char d[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(material.data()), material.size(), d);
  return std::string(reinterpret_cast<char*>(d), sizeof d);
}

void Log(const std::string& line) {
  if (g_delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(g_delay_ms));
  if (g_log_file.empty()) return;
  std::lock_guard lock(g_log_mu);
  std::ofstream(g_log_file, std::ios::app) << line << "\n";
}

class Service final : public v2::KeyManagementService::Service {
  grpc::Status Status(grpc::ServerContext*, const v2::StatusRequest*, v2::StatusResponse* resp) override {
    Log("Status");
    resp->set_version("v2");
    resp->set_healthz("ok");
    resp->set_key_id(CurrentKeyId());
    return grpc::Status::OK;
  }
  grpc::Status Encrypt(grpc::ServerContext*, const v2::EncryptRequest* req, v2::EncryptResponse* resp) override {
    std::string id = CurrentKeyId();
    Log("Encrypt " + id);
    auto sealed = NewAesGcmTransformer(KeyFor(id))->ToStorage(req->plaintext(), "kms");
    if (!sealed.ok()) return grpc::Status(grpc::StatusCode::INTERNAL, sealed.status().message());
    resp->set_ciphertext(*sealed);
    resp->set_key_id(id);
    (*resp->mutable_annotations())["key-id.kms.capstan.test"] = id;
    return grpc::Status::OK;
  }
  grpc::Status Decrypt(grpc::ServerContext*, const v2::DecryptRequest* req, v2::DecryptResponse* resp) override {
    Log("Decrypt " + req->key_id());
    bool stale = false;
    auto plain = NewAesGcmTransformer(KeyFor(req->key_id()))->FromStorage(req->ciphertext(), "kms", &stale);
    if (!plain.ok()) return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, plain.status().message());
    resp->set_plaintext(*plain);
    return grpc::Status::OK;
  }
};

class V1Service final : public v1beta1::KeyManagementService::Service {
  grpc::Status Version(grpc::ServerContext*, const v1beta1::VersionRequest*, v1beta1::VersionResponse* resp) override {
    Log("Version");
    resp->set_version(g_v1_version);
    resp->set_runtime_name("capstan-test-kms");
    resp->set_runtime_version("0.1");
    return grpc::Status::OK;
  }
  grpc::Status Encrypt(grpc::ServerContext*, const v1beta1::EncryptRequest* req, v1beta1::EncryptResponse* resp) override {
    std::string id = CurrentKeyId();
    Log("V1Encrypt " + id);
    auto sealed = NewAesGcmTransformer(KeyFor(id))->ToStorage(req->plain(), "kms");
    if (!sealed.ok()) return grpc::Status(grpc::StatusCode::INTERNAL, sealed.status().message());
    resp->set_cipher(id + ":" + *sealed);
    return grpc::Status::OK;
  }
  grpc::Status Decrypt(grpc::ServerContext*, const v1beta1::DecryptRequest* req, v1beta1::DecryptResponse* resp) override {
    const std::string& c = req->cipher();
    size_t colon = c.find(':');
    if (colon == std::string::npos) return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no key id");
    std::string id = c.substr(0, colon);
    Log("V1Decrypt " + id);
    bool stale = false;
    auto plain = NewAesGcmTransformer(KeyFor(id))->FromStorage(c.substr(colon + 1), "kms", &stale);
    if (!plain.ok()) return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, plain.status().message());
    resp->set_plain(*plain);
    return grpc::Status::OK;
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s <socket> <key id file> [--log file] [--delay-ms N]\n", argv[0]);
    return 2;
  }
  std::string socket = argv[1];
  g_key_file = argv[2];
  for (int i = 3; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--log") g_log_file = argv[i + 1];
    if (flag == "--delay-ms") g_delay_ms = std::atoi(argv[i + 1]);
    if (flag == "--v1-version") g_v1_version = argv[i + 1];
  }
  ::unlink(socket.c_str());
  Service service;
  V1Service v1_service;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("unix://" + socket, grpc::InsecureServerCredentials());
  builder.RegisterService(&service);
  builder.RegisterService(&v1_service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server) {
    std::fprintf(stderr, "cannot listen on %s\n", socket.c_str());
    return 1;
  }
  std::fprintf(stderr, "listening on unix://%s\n", socket.c_str());
  server->Wait();
  return 0;
}
