// apimachinery/protobuf_plan.h: the protobuf layout of schema definitions, compiled once from the
// schema tree (schema.h) so that the codec never interprets schema JSON per object.
//
// A MessagePlan is one definition's message: for ordinary structs, its fields in ascending field
// number (docs/schema-format.md, "The message of a definition": the properties' x-proto without `in`,
// plus the x-proto-embedded messages); for the types kube marshals by hand (Time, Quantity,
// IntOrString, RawExtension, ...; x-proto-message) a MessageKind the codec implements directly.
// Plans point at each other (a field of message type at its definition's plan), so recursive types
// such as JSONSchemaProps are a graph.
//
// PlanSet owns the plans. It compiles on demand, from a definition name, everything that definition
// reaches. Compiling is not thread-safe; a PlanSet that is no longer compiled into may be read from any
// number of threads (the codec compiles everything up front and then only reads). Plans copy what they
// need from the schema nodes and keep no pointer into the registry; the PlanSet refers to the registry
// only until Freeze().
//
// KindIndex maps GroupVersionKinds to definition names from the definitions'
// x-kubernetes-group-version-kind lists.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "apimachinery/gvk.h"
#include "apimachinery/protobuf_wire.h"
#include "apimachinery/schema.h"
#include "apimachinery/schema_registry.h"
#include "apimachinery/status.h"

namespace capstan::apimachinery::protobuf {

// The most fields one message may have (the decoder keeps per-field state in fixed chunks).
inline constexpr size_t kMaxMessageFields = 1024;

enum class MessageKind : uint8_t {
  kStruct,               // properties with x-proto, and embedded messages
  kTimeSeconds,          // meta/v1 Time
  kTimeMicro,            // meta/v1 MicroTime
  kDuration,             // meta/v1 Duration
  kQuantity,             // resource.Quantity
  kIntOrString,          // intstr.IntOrString
  kRawExtension,         // runtime.RawExtension
  kRawJson,              // meta/v1 FieldsV1, apiextensions JSON
  kListWrapper,          // meta/v1 Verbs, ExtraValue, ...: a JSON array of strings
  kSchemaOrBool,         // apiextensions JSONSchemaPropsOrBool
  kSchemaOrArray,        // apiextensions JSONSchemaPropsOrArray
  kSchemaOrStringArray,  // apiextensions JSONSchemaPropsOrStringArray
  kGroupVersion,         // meta/v1 GroupVersion
  kUnknown,              // runtime.Unknown (the envelope; not a field type)
  kNone,                 // no protobuf form (meta/v1 Table, ...)
};

enum class FieldKind : uint8_t {
  kScalar,    // bool, integers, float, double, string
  kBytes,     // Go []byte: base64 in JSON
  kMessage,   // another definition
  kMap,       // map<string, value>: repeated entry messages
  kEmbedded,  // an inlined struct kept as its own message: its properties are the outer object's
};

struct MessagePlan;

struct FieldPlan {
  int32_t tag = 0;
  std::string json_name;  // property name; empty for kEmbedded
  std::string go_name;    // for kube's error texts ("wrong wireType = 2 for field Name")
  FieldKind kind = FieldKind::kScalar;
  ProtoType type = ProtoType::kNone;  // kScalar/kBytes: the (element) type
  bool repeated = false;
  bool ptr = false;
  bool omitempty = false;
  ProtoType map_value = ProtoType::kNone;  // kMap: the value's type (the key is a string)
  const MessagePlan* message = nullptr;    // kMessage element, kMap message value, kEmbedded
};

struct MessagePlan {
  std::string definition;  // "io.k8s.api.core.v1.ConfigMap"
  std::string go_name;     // "ConfigMap"
  MessageKind kind = MessageKind::kStruct;
  std::vector<FieldPlan> fields;  // kStruct: ascending field number
  // kSchemaOr*: the JSONSchemaProps plan.
  const MessagePlan* schema = nullptr;

  // The field with this number, or nullptr.
  const FieldPlan* Field(int32_t tag) const {
    if (tag >= 0 && static_cast<size_t>(tag) < by_tag.size()) {
      const int16_t i = by_tag[static_cast<size_t>(tag)];
      return i < 0 ? nullptr : &fields[static_cast<size_t>(i)];
    }
    for (const FieldPlan& f : fields) {
      if (f.tag == tag) return &f;
    }
    return nullptr;
  }

  // The field with this JSON property name (not embedded ones), or -1.
  int FieldIndex(std::string_view json_name) const {
    auto it = by_name.find(json_name);
    return it == by_name.end() ? -1 : it->second;
  }

  std::vector<int16_t> by_tag;  // field number -> index into fields, -1 for none (numbers < 256)
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  std::unordered_map<std::string, int, NameHash, std::equal_to<>> by_name;
};

// The wire type a single value of this scalar type uses.
WireType ScalarWireType(ProtoType t);

class PlanSet {
 public:
  explicit PlanSet(const SchemaRegistry& registry);
  PlanSet(const PlanSet&) = delete;
  PlanSet& operator=(const PlanSet&) = delete;

  // Compiles a definition and everything it refers to (no-op when compiled already). 404 NotFound
  // for an unknown name; 500 InternalError for a schema whose protobuf description is inconsistent.
  StatusOr<const MessagePlan*> Compile(std::string_view definition);
  // Compiles every definition of the registry.
  Status CompileAll();
  // A compiled plan, or nullptr.
  const MessagePlan* Find(std::string_view definition) const;
  // Ends compiling: drops the registry reference (the plans stay valid); Compile then fails.
  void Freeze();

 private:
  StatusOr<const MessagePlan*> CompileNode(const Schema& def, std::string_view name);
  Status CompileStruct(const Schema& def, MessagePlan& plan);
  Status CompileSpecial(const Schema& def, const boost::json::object& message, MessagePlan& plan);
  StatusOr<const MessagePlan*> CompileRef(std::string_view ref, std::string_view where);

  const SchemaRegistry* registry_;  // only while compiling; null once frozen
  std::unordered_map<const Schema*, std::string_view> names_;  // definition node -> name (while compiling)
  std::unordered_map<const Schema*, std::unique_ptr<MessagePlan>> plans_;
  std::map<std::string, const MessagePlan*, std::less<>> by_name_;
};

// GroupVersionKind -> definition name, from x-kubernetes-group-version-kind.
class KindIndex {
 public:
  explicit KindIndex(const SchemaRegistry& registry);
  // The definition name, or nullptr.
  const std::string* Find(const GroupVersionKind& gvk) const;
  size_t size() const { return by_gvk_.size(); }

 private:
  std::map<GroupVersionKind, std::string> by_gvk_;
};

}  // namespace capstan::apimachinery::protobuf
