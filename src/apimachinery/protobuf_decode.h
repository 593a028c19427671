// apimachinery/protobuf_decode.h: protobuf message -> JSON value, walking a compiled MessagePlan
// (protobuf_plan.h). Internal to the codec (protobuf_codec.h is the API).
//
// The result is the JSON that kube's Go types would write after decoding the same bytes: Go's
// generated unmarshal code fills the struct (later scalars win, repeated fields and maps accumulate,
// a repeated nested message merges), then encoding/json writes it. So the decoder applies the
// documented rules (docs/schema-format.md, "Writing JSON from a decoded message"): omitempty drops
// zero scalars, nil pointers, empty lists and maps; without omitempty a zero scalar is written and a
// nil pointer/list/map is null; a non-pointer message is always written (special types by their own
// JSON rule: zero Time null, zero Quantity "0", zero IntOrString 0, unset RawExtension null); map keys
// are sorted. Unknown fields are skipped, as kube skips them.
//
// Bad input never crashes: every read is bounds-checked by WireReader, nesting is limited to
// kMaxMessageDepth messages, and the output grows at most linearly with the input. Errors are 400
// BadRequest Statuses with Go's texts where Go has one. Thread-safe for distinct contexts.
#pragma once

#include <boost/json/value.hpp>
#include <string_view>

#include "apimachinery/gvk.h"
#include "apimachinery/protobuf_plan.h"
#include "apimachinery/status.h"

namespace capstan::apimachinery::protobuf {

// Messages nested deeper than this (counting every nested message) are refused.
inline constexpr int kMaxMessageDepth = 512;

// Finds the plan of an object embedded with its own envelope (a RawExtension whose bytes start with
// "k8s\0", as in protobuf watch events), and of kinds the encoder embeds.
class KindResolver {
 public:
  virtual ~KindResolver() = default;
  virtual StatusOr<const MessagePlan*> PlanForKind(const GroupVersionKind& gvk) = 0;
};

struct DecodeContext {
  KindResolver* kinds = nullptr;  // optional: without it an embedded envelope is an error
  int depth = 0;
};

// Decodes one message of `plan` into its JSON value (an object for structs).
Status DecodeMessage(const MessagePlan& plan, std::string_view message, boost::json::value& out, DecodeContext& ctx);

// Decodes an object's message (a kStruct plan) into a JSON object that starts with the given kind and
// apiVersion (left out when empty), as kube writes a top-level object.
Status DecodeObjectMessage(const MessagePlan& plan, std::string_view message, std::string_view api_version,
                           std::string_view kind, boost::json::value& out, DecodeContext& ctx);

// Decodes "k8s\0" + runtime.Unknown into {gvk, object} with ctx.kinds; `defaults` fills an empty
// kind or version as kube's protobuf serializer does with the request's expected kind.
struct DecodedObject {
  GroupVersionKind gvk;
  boost::json::value object;
};
StatusOr<DecodedObject> DecodeEnvelopedObject(std::string_view bytes, const GroupVersionKind* defaults,
                                              DecodeContext& ctx);

}  // namespace capstan::apimachinery::protobuf
