// storage/transformers/kms/kms_grpc.h: what the KMS v1 and v2 clients share about gRPC: the channel to
// a plugin's unix socket, one unary call with its deadline and latency metric, and failures in kube's
// words (Go's code names). Included only by this folder's sources. Thread-safety: PluginCaller is
// immutable; the rest are pure functions.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <string>

#include "apimachinery/status.h"

namespace capstan::storage::kms {

// Reconnects within a second of a plugin (re)starting, instead of gRPC's default backoff of up to
// two minutes; calls fail fast while it is down.
std::shared_ptr<grpc::Channel> PluginChannel(const std::string& endpoint);

struct KmsMetrics;

// How a client calls its plugin: each call gets the provider's timeout as deadline, and its latency
// is observed in apiserver_envelope_encryption_kms_operations_latency_seconds{provider_name,
// method_name "/<service>/<method>", grpc_status_code}.
class PluginCaller {
 public:
  PluginCaller(std::string service, std::string provider, std::chrono::nanoseconds timeout, KmsMetrics* metrics)
      : service_(std::move(service)), provider_(std::move(provider)), timeout_(timeout), metrics_(metrics) {}

  // `call(grpc::ClientContext*)` makes the stub's call and returns its grpc::Status.
  template <class Call>
  grpc::Status operator()(const char* method, Call call) const {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() +
                     std::chrono::duration_cast<std::chrono::system_clock::duration>(timeout_));
    auto start = std::chrono::steady_clock::now();
    grpc::Status st = call(&ctx);
    Observe(method, start, st);
    return st;
  }

 private:
  void Observe(const char* method, std::chrono::steady_clock::time_point start, const grpc::Status& st) const;

  const std::string service_, provider_;
  const std::chrono::nanoseconds timeout_;
  KmsMetrics* const metrics_;
};

// Go's codes.Code String() ("OK", "Unavailable", ...).
std::string GrpcCodeName(grpc::StatusCode c);

// A 500 "kms <call> failed: rpc error: code = <Code> desc = <message>", as kube reports a plugin call.
capstan::Status KmsCallFailed(const char* call, const grpc::Status& st);

}  // namespace capstan::storage::kms
