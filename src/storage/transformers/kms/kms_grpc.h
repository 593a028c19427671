// storage/transformers/kms/kms_grpc.h: what the KMS v1 and v2 clients share about gRPC: the channel to
// a plugin's unix socket, call deadlines, and failures in kube's words (Go's code names). Included only
// by this folder's sources. Thread-safety: pure functions.
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

void SetCallDeadline(grpc::ClientContext& ctx, std::chrono::nanoseconds timeout);

// Go's codes.Code String() ("OK", "Unavailable", ...).
std::string GrpcCodeName(grpc::StatusCode c);

// A 500 "kms <call> failed: rpc error: code = <Code> desc = <message>", as kube reports a plugin call.
capstan::Status KmsCallFailed(const char* call, const grpc::Status& st);

}  // namespace capstan::storage::kms
