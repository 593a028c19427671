#include "apimachinery/protobuf_codec.h"

#include "apimachinery/protobuf_wire.h"
#include "util/strings.h"

namespace capstan::apimachinery {

namespace json = boost::json;
using protobuf::DecodeContext;
using protobuf::EncodeContext;
using protobuf::EncodeOptions;
using protobuf::MessageKind;
using protobuf::MessagePlan;

namespace {

constexpr std::string_view kWatchEventDefinition = "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent";

Status NotRegistered(const GroupVersionKind& gvk) {
  return Status(400, "BadRequest",
                "no kind " + GoQuote(gvk.kind) + " is registered for version " + GoQuote(gvk.ApiVersion()) +
                    " in scheme \"pkg/api/legacyscheme/scheme.go:30\"");
}

// Lazily compiles what a one-shot helper reaches, kinds included.
class CompilingResolver : public protobuf::KindResolver {
 public:
  explicit CompilingResolver(const SchemaRegistry& registry) : plans_(registry), kinds_(registry) {}
  StatusOr<const MessagePlan*> PlanForKind(const GroupVersionKind& gvk) override {
    const std::string* def = kinds_.Find(gvk);
    if (def == nullptr) return NotRegistered(gvk);
    return plans_.Compile(*def);
  }
  protobuf::PlanSet& plans() { return plans_; }

 private:
  protobuf::PlanSet plans_;
  protobuf::KindIndex kinds_;
};

StatusOr<std::string> EncodeWith(const MessagePlan& plan, const json::value& value, EncodeContext& ctx) {
  std::string out;
  Status st = protobuf::EncodeMessage(plan, &value, out, ctx);
  if (!st.ok()) return protobuf::EncodeFailure(plan, st, ctx);
  return out;
}

}  // namespace

// The codec's kinds, read-only: nothing is compiled after Create.
class ProtobufCodec::Resolver : public protobuf::KindResolver {
 public:
  explicit Resolver(const ProtobufCodec& codec) : codec_(codec) {}
  StatusOr<const MessagePlan*> PlanForKind(const GroupVersionKind& gvk) override {
    const std::string* def = codec_.kinds_.Find(gvk);
    const MessagePlan* plan = def != nullptr ? codec_.plans_.Find(*def) : nullptr;
    if (plan == nullptr) return NotRegistered(gvk);
    return plan;
  }

 private:
  const ProtobufCodec& codec_;
};

ProtobufCodec::ProtobufCodec(const SchemaRegistry& registry) : plans_(registry), kinds_(registry) {}

StatusOr<std::unique_ptr<const ProtobufCodec>> ProtobufCodec::Create(const SchemaRegistry& registry) {
  if (!registry.resolved()) return Status(500, "InternalError", "the schema registry is not resolved");
  std::unique_ptr<ProtobufCodec> codec(new ProtobufCodec(registry));
  RETURN_IF_ERROR(codec->plans_.CompileAll());
  codec->plans_.Freeze();
  codec->watch_event_ = codec->plans_.Find(kWatchEventDefinition);
  return std::unique_ptr<const ProtobufCodec>(std::move(codec));
}

bool ProtobufCodec::HasProtobufForm(const GroupVersionKind& gvk) const {
  const std::string* def = kinds_.Find(gvk);
  const MessagePlan* plan = def != nullptr ? plans_.Find(*def) : nullptr;
  return plan != nullptr && plan->kind == MessageKind::kStruct;
}

StatusOr<json::value> ProtobufCodec::Decode(std::string_view definition, std::string_view message) const {
  const MessagePlan* plan = plans_.Find(definition);
  if (plan == nullptr) return Status(404, "NotFound", "no protobuf message for " + GoQuote(definition));
  Resolver kinds(*this);
  DecodeContext ctx{&kinds};
  json::value out;
  RETURN_IF_ERROR(protobuf::DecodeMessage(*plan, message, out, ctx));
  return out;
}

StatusOr<std::string> ProtobufCodec::Encode(std::string_view definition, const json::value& value,
                                            const EncodeOptions& options) const {
  const MessagePlan* plan = plans_.Find(definition);
  if (plan == nullptr) return Status(404, "NotFound", "no protobuf message for " + GoQuote(definition));
  Resolver kinds(*this);
  EncodeContext ctx{options, &kinds};
  return EncodeWith(*plan, value, ctx);
}

StatusOr<ProtobufDecodedObject> ProtobufCodec::DecodeObject(std::string_view bytes) const {
  Resolver kinds(*this);
  DecodeContext ctx{&kinds};
  return protobuf::DecodeEnvelopedObject(bytes, nullptr, ctx);
}

StatusOr<ProtobufDecodedObject> ProtobufCodec::DecodeRequestBody(std::string_view body,
                                                                 const GroupVersionKind& expected) const {
  Resolver kinds(*this);
  DecodeContext ctx{&kinds};
  return protobuf::DecodeEnvelopedObject(body, &expected, ctx);
}

Status ProtobufCodec::AppendObject(std::string& out, const GroupVersionKind& gvk, const json::value& object,
                                   const EncodeOptions& options) const {
  Resolver kinds(*this);
  ASSIGN_OR_RETURN(const MessagePlan* plan, kinds.PlanForKind(gvk));
  if (plan->kind != MessageKind::kStruct) {
    return Status(500, "InternalError", "object " + plan->go_name + " has no protobuf form");
  }
  EncodeContext ctx{options, &kinds};
  const size_t start = out.size();
  Status st = protobuf::EncodeEnvelopedObject(*plan, object, gvk.ApiVersion(), gvk.kind, out, ctx);
  if (!st.ok()) {
    out.resize(start);
    return protobuf::EncodeFailure(*plan, st, ctx);
  }
  return Status::Ok();
}

StatusOr<std::string> ProtobufCodec::EncodeObject(const GroupVersionKind& gvk, const json::value& object,
                                                  const EncodeOptions& options) const {
  std::string out;
  RETURN_IF_ERROR(AppendObject(out, gvk, object, options));
  return out;
}

void ProtobufCodec::AppendWatchEventFrame(std::string& out, std::string_view type, std::string_view encoded_object) {
  // WatchEvent{1 type, 2 object = RawExtension{1 raw}}: fixed layout, so the frame is built directly.
  std::string event;
  event.reserve(encoded_object.size() + type.size() + 16);
  protobuf::AppendLengthDelimited(event, 1, type);
  const size_t object = protobuf::BeginLengthDelimited(event, 2);
  protobuf::AppendLengthDelimited(event, 1, encoded_object);
  protobuf::EndLengthDelimited(event, object);
  protobuf::AppendWatchFrame(out, event);
}

StatusOr<std::string> ProtobufCodec::EncodeWatchEvent(std::string_view type, const GroupVersionKind& gvk,
                                                      const json::value& object) const {
  ASSIGN_OR_RETURN(std::string encoded, EncodeObject(gvk, object));
  std::string out;
  AppendWatchEventFrame(out, type, encoded);
  return out;
}

StatusOr<ProtobufWatchEvent> ProtobufCodec::DecodeWatchEvent(std::string_view frame) const {
  if (watch_event_ == nullptr) return Status(500, "InternalError", "the registry has no meta/v1 WatchEvent");
  Resolver kinds(*this);
  DecodeContext ctx{&kinds};
  json::value event;
  RETURN_IF_ERROR(protobuf::DecodeMessage(*watch_event_, frame, event, ctx));
  ProtobufWatchEvent out;
  const json::object& obj = event.get_object();
  if (const json::value* t = obj.if_contains("type"); t != nullptr && t->is_string()) out.type = t->get_string();
  if (const json::value* o = obj.if_contains("object"); o != nullptr) out.object = *o;
  if (const json::object* o = out.object.if_object()) {
    const json::value* av = o->if_contains("apiVersion");
    const json::value* kv = o->if_contains("kind");
    out.gvk = FromApiVersionAndKind(av != nullptr && av->is_string() ? std::string_view(av->get_string()) : "",
                                    kv != nullptr && kv->is_string() ? std::string_view(kv->get_string()) : "");
  }
  return out;
}

StatusOr<json::value> DecodeProtobuf(const SchemaRegistry& registry, std::string_view definition,
                                     std::string_view bytes) {
  CompilingResolver kinds(registry);
  ASSIGN_OR_RETURN(const MessagePlan* plan, kinds.plans().Compile(definition));
  DecodeContext ctx{&kinds};
  json::value out;
  RETURN_IF_ERROR(protobuf::DecodeMessage(*plan, bytes, out, ctx));
  return out;
}

StatusOr<std::string> EncodeProtobuf(const SchemaRegistry& registry, std::string_view definition,
                                     const json::value& value) {
  CompilingResolver kinds(registry);
  ASSIGN_OR_RETURN(const MessagePlan* plan, kinds.plans().Compile(definition));
  EncodeContext ctx{{}, &kinds};
  return EncodeWith(*plan, value, ctx);
}

StatusOr<ProtobufDecodedObject> DecodeProtobufObject(const SchemaRegistry& registry, std::string_view bytes) {
  CompilingResolver kinds(registry);
  DecodeContext ctx{&kinds};
  return protobuf::DecodeEnvelopedObject(bytes, nullptr, ctx);
}

StatusOr<std::string> EncodeProtobufObject(const SchemaRegistry& registry, const GroupVersionKind& gvk,
                                           const json::value& object) {
  CompilingResolver kinds(registry);
  ASSIGN_OR_RETURN(const MessagePlan* plan, kinds.PlanForKind(gvk));
  EncodeContext ctx{{}, &kinds};
  std::string out;
  Status st = protobuf::EncodeEnvelopedObject(*plan, object, gvk.ApiVersion(), gvk.kind, out, ctx);
  if (!st.ok()) return protobuf::EncodeFailure(*plan, st, ctx);
  return out;
}

}  // namespace capstan::apimachinery
