// apimachinery/protobuf_encode.h: JSON value -> protobuf message, walking a compiled MessagePlan
// (protobuf_plan.h). Internal to the codec (protobuf_codec.h is the API).
//
// The bytes are those Go's generated code writes for the struct that encoding/json would build from
// the same JSON (docs/schema-format.md, "What Go's generated code writes"): fields in ascending number,
// non-pointer fields always (zero values for absent ones, an empty message's own always-written fields
// for an absent struct), pointers only when set (present and not null), repeated fields one record per
// element (unpacked), maps one entry per key sorted bytewise, non-nil bytes, embedded messages at their
// own number. Special types follow their hand-written marshalers (Time whole seconds, MicroTime
// microseconds, zero time as an empty message, canonical Quantity text, ...).
//
// A value of the wrong JSON type (a string where an integer belongs, ...) cannot be encoded and is a
// 500 InternalError naming the field path: objects reach the encoder after validation, so that is a
// server-side inconsistency, not a client error. Thread-safe for distinct contexts.
#pragma once

#include <boost/json/value.hpp>
#include <string>
#include <vector>

#include "apimachinery/protobuf_decode.h"
#include "apimachinery/protobuf_plan.h"
#include "apimachinery/status.h"

namespace capstan::apimachinery::protobuf {

struct EncodeOptions {
  // RawExtension values that are objects of a kind with a protobuf form are written as that object's
  // envelope ("k8s\0" + Unknown) instead of JSON text, as kube's protobuf watch and list encoders
  // embed objects. Other values stay JSON text.
  bool raw_extension_as_protobuf = false;
};

struct EncodeContext {
  EncodeOptions options;
  KindResolver* kinds = nullptr;  // needed for raw_extension_as_protobuf
  int depth = 0;
  std::vector<std::string> error_path;  // filled innermost-first while an error unwinds
};

// Appends the fields of `plan`'s message for `value` (nullptr or null: the zero value) to out, without
// a key or length.
Status EncodeMessage(const MessagePlan& plan, const boost::json::value* value, std::string& out, EncodeContext& ctx);

// Appends "k8s\0" + Unknown{typeMeta(api_version, kind), raw = the object's message}.
Status EncodeEnvelopedObject(const MessagePlan& plan, const boost::json::value& object, std::string_view api_version,
                             std::string_view kind, std::string& out, EncodeContext& ctx);

// The error Status for a failed encode: "unable to encode <Kind> as protobuf: spec.replicas: <why>".
Status EncodeFailure(const MessagePlan& plan, const Status& cause, const EncodeContext& ctx);

}  // namespace capstan::apimachinery::protobuf
