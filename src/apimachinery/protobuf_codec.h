// apimachinery/protobuf_codec.h: the Kubernetes protobuf wire format
// (application/vnd.kubernetes.protobuf) for every kind the schema registry describes, driven by the
// protobuf description in the schemas (docs/schema-format.md) rather than by generated code.
//
// Objects stay JSON documents (boost::json::value). Decoding gives the JSON kube-apiserver would write
// for the same bytes; encoding gives the bytes kube's Go types would write for the same JSON, so
// encode(decode(b)) == b for anything kube wrote. Three levels:
//   - messages:   Decode/Encode(definition, ...) — one definition's message, no envelope;
//   - objects:    DecodeObject/EncodeObject — "k8s\0" + runtime.Unknown{typeMeta, raw}, the form of
//                 request and response bodies (lists and meta/v1 Status included); apiVersion and kind
//                 travel in typeMeta and are put first in the decoded JSON;
//   - watch:      EncodeWatchEvent/DecodeWatchEvent — one frame of a ;stream=watch response: a 4-byte
//                 big-endian length and a meta/v1 WatchEvent (no envelope, as kube's raw stream
//                 serializer writes it) whose object is the object's own envelope.
// Kinds whose definition has no protobuf form (meta/v1 Table, ...) report it (HasProtobufForm) so that
// content negotiation can fall back to JSON; custom resources are JSON only, as in kube.
//
// Malformed input is a 400 BadRequest Status (kube's texts where it has them), never a crash: reads are
// bounds-checked, nesting is limited, unknown fields are skipped. An object that does not fit its
// schema cannot be encoded: 500 InternalError naming the field.
//
// A ProtobufCodec is built once from a resolved SchemaRegistry (compiling every definition; it keeps no
// reference to the registry) and is then immutable: share it and call it from any thread.
// The free functions at the end take a registry directly and compile what they need on every call;
// they are for tools and tests, not for serving.
#pragma once

#include <boost/json/value.hpp>
#include <memory>
#include <string>
#include <string_view>

#include "apimachinery/gvk.h"
#include "apimachinery/protobuf_decode.h"
#include "apimachinery/protobuf_encode.h"
#include "apimachinery/protobuf_envelope.h"
#include "apimachinery/protobuf_plan.h"
#include "apimachinery/schema_registry.h"
#include "apimachinery/status.h"

namespace capstan::apimachinery {

using ProtobufDecodedObject = protobuf::DecodedObject;  // {gvk, object}

struct ProtobufWatchEvent {
  std::string type;  // ADDED, MODIFIED, DELETED, BOOKMARK, ERROR
  GroupVersionKind gvk;
  boost::json::value object;
};

class ProtobufCodec {
 public:
  // Compiles every definition of a resolved registry. Fails (500) when a schema's protobuf
  // description is inconsistent.
  static StatusOr<std::unique_ptr<const ProtobufCodec>> Create(const SchemaRegistry& registry);

  ProtobufCodec(const ProtobufCodec&) = delete;
  ProtobufCodec& operator=(const ProtobufCodec&) = delete;

  // The definition registered for a kind (x-kubernetes-group-version-kind), or nullptr.
  const std::string* DefinitionFor(const GroupVersionKind& gvk) const { return kinds_.Find(gvk); }
  // Whether objects of this kind can be sent as protobuf (a known kind whose message is a struct).
  bool HasProtobufForm(const GroupVersionKind& gvk) const;

  // --- messages
  StatusOr<boost::json::value> Decode(std::string_view definition, std::string_view message) const;
  StatusOr<std::string> Encode(std::string_view definition, const boost::json::value& value,
                               const protobuf::EncodeOptions& options = {}) const;

  // --- objects ("k8s\0" + runtime.Unknown)
  // Any kind the registry knows; an unknown kind is a 400 BadRequest (kube: "no kind ... is registered").
  StatusOr<ProtobufDecodedObject> DecodeObject(std::string_view bytes) const;
  // A request body for `expected` (the kind the URL names): an empty kind or version in the body's
  // typeMeta is taken from it, as kube's protobuf serializer does. The caller compares the result's
  // gvk with what it serves (kube: "the API version in the data (...) does not match ...").
  StatusOr<ProtobufDecodedObject> DecodeRequestBody(std::string_view body, const GroupVersionKind& expected) const;
  // A response or storage body: the object's message in an envelope with typeMeta from gvk. Works for
  // single objects, lists (ConfigMapList, ...) and meta/v1 Status ({"", "v1", "Status"}).
  StatusOr<std::string> EncodeObject(const GroupVersionKind& gvk, const boost::json::value& object,
                                     const protobuf::EncodeOptions& options = {}) const;
  Status AppendObject(std::string& out, const GroupVersionKind& gvk, const boost::json::value& object,
                      const protobuf::EncodeOptions& options = {}) const;

  // --- watch streams
  // One frame: length prefix + WatchEvent{type, object = the object's envelope}.
  StatusOr<std::string> EncodeWatchEvent(std::string_view type, const GroupVersionKind& gvk,
                                         const boost::json::value& object) const;
  // The same from an object already encoded with EncodeObject (encode once, send to every watcher).
  static void AppendWatchEventFrame(std::string& out, std::string_view type, std::string_view encoded_object);
  // One frame's bytes (without the length prefix, as WatchFrameReader yields them).
  StatusOr<ProtobufWatchEvent> DecodeWatchEvent(std::string_view frame) const;

 private:
  explicit ProtobufCodec(const SchemaRegistry& registry);
  class Resolver;

  protobuf::PlanSet plans_;
  protobuf::KindIndex kinds_;
  const protobuf::MessagePlan* watch_event_ = nullptr;
};

// --- one-shot helpers over a registry (compile per call; see above)

// One definition's message (no envelope) to its JSON value, and back.
StatusOr<boost::json::value> DecodeProtobuf(const SchemaRegistry& registry, std::string_view definition,
                                            std::string_view bytes);
StatusOr<std::string> EncodeProtobuf(const SchemaRegistry& registry, std::string_view definition,
                                     const boost::json::value& value);
// Envelope-level: the kind comes from typeMeta and selects the definition.
StatusOr<ProtobufDecodedObject> DecodeProtobufObject(const SchemaRegistry& registry, std::string_view bytes);
StatusOr<std::string> EncodeProtobufObject(const SchemaRegistry& registry, const GroupVersionKind& gvk,
                                           const boost::json::value& object);

}  // namespace capstan::apimachinery
