#include "apimachinery/protobuf_encode.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>

#include "apimachinery/json_write.h"
#include "apimachinery/protobuf_envelope.h"
#include "apimachinery/protobuf_wire.h"
#include "apimachinery/quantity.h"
#include "apimachinery/time_util.h"
#include "util/duration.h"
#include "util/strings.h"

namespace capstan::apimachinery::protobuf {

namespace json = boost::json;

namespace {

constexpr int64_t kGoZeroTimeUnix = -62135596800;  // 0001-01-01T00:00:00Z, Go's zero time

Status Failure(std::string msg) { return Status(500, "InternalError", std::move(msg)); }

std::string_view KindName(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null: return "null";
    case json::kind::bool_: return "boolean";
    case json::kind::int64:
    case json::kind::uint64:
    case json::kind::double_: return "number";
    case json::kind::string: return "string";
    case json::kind::array: return "array";
    case json::kind::object: return "object";
  }
  return "value";
}

bool IsSet(const json::value* v) { return v != nullptr && !v->is_null(); }

bool AsInt64(const json::value& v, int64_t& out) {
  if (v.is_int64()) {
    out = v.get_int64();
    return true;
  }
  if (v.is_uint64()) {
    if (v.get_uint64() > static_cast<uint64_t>(INT64_MAX)) return false;
    out = static_cast<int64_t>(v.get_uint64());
    return true;
  }
  if (v.is_double()) {
    const double d = v.get_double();
    if (!std::isfinite(d) || d != std::trunc(d) || d < -9223372036854775808.0 || d >= 9223372036854775808.0) return false;
    out = static_cast<int64_t>(d);
    return true;
  }
  return false;
}

bool AsUint64(const json::value& v, uint64_t& out) {
  if (v.is_uint64()) {
    out = v.get_uint64();
    return true;
  }
  if (v.is_int64()) {
    if (v.get_int64() < 0) return false;
    out = static_cast<uint64_t>(v.get_int64());
    return true;
  }
  if (v.is_double()) {
    const double d = v.get_double();
    if (!std::isfinite(d) || d != std::trunc(d) || d < 0 || d >= 18446744073709551616.0) return false;
    out = static_cast<uint64_t>(d);
    return true;
  }
  return false;
}

bool AnyPropertyPresent(const MessagePlan& plan, const json::object* obj) {
  if (obj == nullptr) return false;
  for (const FieldPlan& f : plan.fields) {
    if (f.kind == FieldKind::kEmbedded ? AnyPropertyPresent(*f.message, obj) : IsSet(obj->if_contains(f.json_name))) {
      return true;
    }
  }
  return false;
}

// One encode call: the first failure, and a stack of per-message property lookups.
class Encoder {
 public:
  explicit Encoder(EncodeContext& ctx) : ctx_(ctx) {}

  bool Message(const MessagePlan& plan, const json::value* v, std::string& out);
  bool Enveloped(const MessagePlan& plan, const json::value& object, std::string_view api_version,
                 std::string_view kind, std::string& out);
  Status TakeError() { return std::move(error_); }

 private:
  bool Fail(Status st) {
    error_ = std::move(st);
    return false;
  }
  bool Mismatch(std::string_view want, const json::value& got) {
    return Fail(Failure("expected " + std::string(want) + ", got " + std::string(KindName(got))));
  }
  bool At(std::string segment) {
    ctx_.error_path.push_back(std::move(segment));
    return false;
  }

  bool Scalar(std::string& out, int32_t tag, ProtoType type, const json::value* v);
  bool MessageField(std::string& out, int32_t tag, const MessagePlan& plan, const json::value* v) {
    const size_t mark = BeginLengthDelimited(out, tag);
    if (!Message(plan, v, out)) return false;
    EndLengthDelimited(out, mark);
    return true;
  }
  bool MapEntries(std::string& out, const FieldPlan& f, const json::object& map);
  bool Field(std::string& out, const FieldPlan& f, const json::value* v, const json::value* whole,
             const json::object* obj);
  bool Struct(const MessagePlan& plan, const json::value* v, std::string& out);
  bool Special(const MessagePlan& plan, const json::value* v, std::string& out);
  bool Time(const MessagePlan& plan, const json::value* v, std::string& out);
  bool Quantity(const json::value* v, std::string& out);
  bool IntOrString(const json::value* v, std::string& out);
  bool Raw(const MessagePlan& plan, const json::value* v, std::string& out);

  EncodeContext& ctx_;
  Status error_;
  std::vector<const json::value*> present_;  // per struct being written: its properties by field index
};

// One value of a scalar type (nullptr or null: the zero value), with its key.
bool Encoder::Scalar(std::string& out, int32_t tag, ProtoType type, const json::value* v) {
  const bool zero = !IsSet(v);
  switch (type) {
    case ProtoType::kBool: {
      if (!zero && !v->is_bool()) return Mismatch("a boolean", *v);
      AppendKey(out, tag, WireType::kVarint);
      AppendVarint(out, !zero && v->get_bool() ? 1 : 0);
      return true;
    }
    case ProtoType::kInt32:
    case ProtoType::kInt64: {
      int64_t x = 0;
      if (!zero && !AsInt64(*v, x)) return Mismatch("an integer", *v);
      if (type == ProtoType::kInt32 && (x < INT32_MIN || x > INT32_MAX)) {
        return Fail(Failure("value " + std::to_string(x) + " does not fit an int32"));
      }
      AppendKey(out, tag, WireType::kVarint);
      AppendVarint(out, static_cast<uint64_t>(x));  // a negative int32 sign-extends to 10 bytes, as in Go
      return true;
    }
    case ProtoType::kUint32:
    case ProtoType::kUint64: {
      uint64_t x = 0;
      if (!zero && !AsUint64(*v, x)) return Mismatch("a non-negative integer", *v);
      if (type == ProtoType::kUint32 && x > UINT32_MAX) {
        return Fail(Failure("value " + std::to_string(x) + " does not fit a uint32"));
      }
      AppendKey(out, tag, WireType::kVarint);
      AppendVarint(out, x);
      return true;
    }
    case ProtoType::kDouble:
    case ProtoType::kFloat: {
      double d = 0;
      if (!zero) {
        if (v->is_double()) {
          d = v->get_double();
        } else if (v->is_int64()) {
          d = static_cast<double>(v->get_int64());
        } else if (v->is_uint64()) {
          d = static_cast<double>(v->get_uint64());
        } else {
          return Mismatch("a number", *v);
        }
      }
      if (type == ProtoType::kDouble) {
        AppendKey(out, tag, WireType::kFixed64);
        AppendFixed64(out, std::bit_cast<uint64_t>(d));
      } else {
        AppendKey(out, tag, WireType::kFixed32);
        AppendFixed32(out, std::bit_cast<uint32_t>(static_cast<float>(d)));
      }
      return true;
    }
    case ProtoType::kString: {
      if (!zero && !v->is_string()) return Mismatch("a string", *v);
      AppendLengthDelimited(out, tag, zero ? std::string_view() : std::string_view(v->get_string()));
      return true;
    }
    case ProtoType::kBytes: {
      if (!zero && !v->is_string()) return Mismatch("a base64 string", *v);
      std::string bytes;
      if (!zero) {
        // Go's base64 decoder (encoding/json's []byte) skips '\r' and '\n' anywhere.
        std::string_view text = v->get_string();
        std::string joined;
        if (text.find_first_of("\r\n") != std::string_view::npos) {
          for (char c : text) {
            if (c != '\r' && c != '\n') joined.push_back(c);
          }
          text = joined;
        }
        if (!Base64Decode(text, bytes)) return Fail(Failure("illegal base64 data"));
      }
      AppendLengthDelimited(out, tag, bytes);
      return true;
    }
    default: return Fail(Failure("unsupported scalar type"));
  }
}

bool Encoder::MapEntries(std::string& out, const FieldPlan& f, const json::object& map) {
  std::vector<const json::key_value_pair*> entries;
  entries.reserve(map.size());
  for (const auto& kv : map) entries.push_back(&kv);
  std::sort(entries.begin(), entries.end(), [](const auto* a, const auto* b) { return a->key() < b->key(); });
  for (const json::key_value_pair* kv : entries) {
    const size_t mark = BeginLengthDelimited(out, f.tag);
    AppendLengthDelimited(out, 1, kv->key());
    const json::value& v = kv->value();
    bool ok = true;
    if (f.map_value == ProtoType::kMessage) {
      ok = MessageField(out, 2, *f.message, &v);
    } else if (f.map_value == ProtoType::kBytes && v.is_null()) {
      // a nil []byte value is left out of its entry
    } else {
      ok = Scalar(out, 2, f.map_value, &v);
    }
    if (!ok) return At("[" + std::string(kv->key()) + "]");
    EndLengthDelimited(out, mark);
  }
  return true;
}

bool Encoder::Field(std::string& out, const FieldPlan& f, const json::value* v, const json::value* whole,
                    const json::object* obj) {
  if (f.kind == FieldKind::kEmbedded) {
    if (f.ptr && !AnyPropertyPresent(*f.message, obj)) return true;
    return MessageField(out, f.tag, *f.message, whole);  // the same JSON object
  }
  const bool set = IsSet(v);
  switch (f.kind) {
    case FieldKind::kScalar:
    case FieldKind::kBytes:
      if (f.repeated) {
        if (!set) return true;
        if (!v->is_array()) return Mismatch("an array", *v);
        size_t i = 0;
        for (const json::value& e : v->get_array()) {
          if (!Scalar(out, f.tag, f.type, &e)) return At("[" + std::to_string(i) + "]");
          ++i;
        }
        return true;
      }
      if (set) return Scalar(out, f.tag, f.type, v);
      if (f.ptr || f.kind == FieldKind::kBytes) return true;  // nil pointer, nil []byte
      return Scalar(out, f.tag, f.type, nullptr);
    case FieldKind::kMessage: {
      if (f.repeated) {
        if (!set) return true;
        if (!v->is_array()) return Mismatch("an array", *v);
        size_t i = 0;
        for (const json::value& e : v->get_array()) {
          if (!MessageField(out, f.tag, *f.message, &e)) return At("[" + std::to_string(i) + "]");
          ++i;
        }
        return true;
      }
      if (!set && (f.ptr || f.message->kind == MessageKind::kListWrapper)) return true;
      return MessageField(out, f.tag, *f.message, set ? v : nullptr);
    }
    case FieldKind::kMap:
      if (!set) return true;
      if (!v->is_object()) return Mismatch("an object", *v);
      return MapEntries(out, f, v->get_object());
    case FieldKind::kEmbedded:
      break;
  }
  return true;
}

bool Encoder::Struct(const MessagePlan& plan, const json::value* v, std::string& out) {
  const json::object* obj = nullptr;
  if (IsSet(v)) {
    obj = v->if_object();
    if (obj == nullptr) return Mismatch("an object", *v);
  }
  // Look each property up once (the object holds few of the schema's fields), then write in field
  // number order. present_ is indexed, never referenced, across the nested calls that grow it.
  const size_t base = present_.size();
  const size_t count = plan.fields.size();
  present_.resize(base + count, nullptr);
  if (obj != nullptr) {
    for (const auto& kv : *obj) {
      const int i = plan.FieldIndex(kv.key());
      if (i >= 0) present_[base + static_cast<size_t>(i)] = &kv.value();
    }
  }
  bool ok = true;
  for (size_t i = 0; ok && i < count; ++i) {
    const FieldPlan& f = plan.fields[i];
    ok = Field(out, f, present_[base + i], v, obj);
    if (!ok && f.kind != FieldKind::kEmbedded) At(f.json_name);
  }
  present_.resize(base);
  return ok;
}

bool Encoder::Time(const MessagePlan& plan, const json::value* v, std::string& out) {
  if (!IsSet(v)) return true;  // the zero time: an empty message
  if (!v->is_string()) return Mismatch("an RFC 3339 string", *v);
  const bool micro = plan.kind == MessageKind::kTimeMicro;
  auto t = micro ? ParseRfc3339Micro(v->get_string()) : ParseRfc3339(v->get_string());
  if (!t.ok()) return Fail(Failure(t.status().message()));
  if (t->seconds == kGoZeroTimeUnix && t->nanos == 0) return true;
  AppendKey(out, 1, WireType::kVarint);
  AppendVarint(out, static_cast<uint64_t>(t->seconds));
  AppendKey(out, 2, WireType::kVarint);
  // Time drops the fraction on the wire; MicroTime keeps whole microseconds.
  AppendVarint(out, static_cast<uint64_t>(static_cast<int64_t>(micro ? t->nanos - t->nanos % 1000 : 0)));
  return true;
}

bool Encoder::Quantity(const json::value* v, std::string& out) {
  if (!IsSet(v)) {
    AppendLengthDelimited(out, 1, "0");  // the zero quantity
    return true;
  }
  if (!v->is_string() && !v->is_number()) return Mismatch("a quantity", *v);
  auto q = ParseQuantityJson(*v);
  if (!q.ok()) return Fail(Failure(q.status().message()));
  AppendLengthDelimited(out, 1, q->String());
  return true;
}

bool Encoder::IntOrString(const json::value* v, std::string& out) {
  int64_t type = 0, int_val = 0;
  std::string_view str_val;
  if (IsSet(v)) {
    if (v->is_string()) {
      type = 1;
      str_val = v->get_string();
    } else if (!AsInt64(*v, int_val) || int_val < INT32_MIN || int_val > INT32_MAX) {
      return Mismatch("an int32 or a string", *v);
    }
  }
  AppendKey(out, 1, WireType::kVarint);
  AppendVarint(out, static_cast<uint64_t>(type));
  AppendKey(out, 2, WireType::kVarint);
  AppendVarint(out, static_cast<uint64_t>(int_val));
  AppendLengthDelimited(out, 3, str_val);
  return true;
}

bool Encoder::Raw(const MessagePlan& plan, const json::value* v, std::string& out) {
  if (!IsSet(v)) return true;
  if (plan.kind == MessageKind::kRawExtension && ctx_.options.raw_extension_as_protobuf && ctx_.kinds != nullptr &&
      v->is_object()) {
    const json::value* av = v->get_object().if_contains("apiVersion");
    const json::value* kv = v->get_object().if_contains("kind");
    if (av != nullptr && av->is_string() && kv != nullptr && kv->is_string()) {
      auto embedded = ctx_.kinds->PlanForKind(FromApiVersionAndKind(av->get_string(), kv->get_string()));
      if (embedded.ok() && (*embedded)->kind == MessageKind::kStruct) {
        const size_t mark = BeginLengthDelimited(out, 1);
        if (!Enveloped(**embedded, *v, av->get_string(), kv->get_string(), out)) return false;
        EndLengthDelimited(out, mark);
        return true;
      }
    }
  }
  AppendLengthDelimited(out, 1, ToJson(*v));
  return true;
}

bool Encoder::Special(const MessagePlan& plan, const json::value* v, std::string& out) {
  switch (plan.kind) {
    case MessageKind::kTimeSeconds:
    case MessageKind::kTimeMicro: return Time(plan, v, out);
    case MessageKind::kDuration: {
      int64_t ns = 0;
      if (IsSet(v)) {
        if (!v->is_string()) return Mismatch("a duration string", *v);
        auto d = ParseGoDuration(v->get_string());
        if (!d) return Fail(Failure("time: invalid duration " + GoQuote(std::string_view(v->get_string()))));
        ns = d->count();
      }
      AppendKey(out, 1, WireType::kVarint);
      AppendVarint(out, static_cast<uint64_t>(ns));
      return true;
    }
    case MessageKind::kQuantity: return Quantity(v, out);
    case MessageKind::kIntOrString: return IntOrString(v, out);
    case MessageKind::kRawExtension:
    case MessageKind::kRawJson: return Raw(plan, v, out);
    case MessageKind::kListWrapper: {
      if (!IsSet(v)) return true;
      if (!v->is_array()) return Mismatch("an array of strings", *v);
      for (const json::value& e : v->get_array()) {
        if (!Scalar(out, 1, ProtoType::kString, &e)) return false;
      }
      return true;
    }
    case MessageKind::kSchemaOrBool: {
      const bool is_schema = IsSet(v) && v->is_object();
      if (IsSet(v) && !is_schema && !v->is_bool()) return Mismatch("a boolean or a schema", *v);
      AppendKey(out, 1, WireType::kVarint);
      AppendVarint(out, is_schema || (IsSet(v) && v->get_bool()) ? 1 : 0);
      return !is_schema || MessageField(out, 2, *plan.schema, v);
    }
    case MessageKind::kSchemaOrArray:
    case MessageKind::kSchemaOrStringArray: {
      if (!IsSet(v)) return true;
      if (v->is_object()) return MessageField(out, 1, *plan.schema, v);
      if (!v->is_array()) return Mismatch("a schema or an array", *v);
      for (const json::value& e : v->get_array()) {
        const bool ok = plan.kind == MessageKind::kSchemaOrStringArray ? Scalar(out, 2, ProtoType::kString, &e)
                                                                       : MessageField(out, 2, *plan.schema, &e);
        if (!ok) return false;
      }
      return true;
    }
    case MessageKind::kGroupVersion: {
      GroupVersion gv;
      if (IsSet(v)) {
        if (!v->is_string()) return Mismatch("a group/version string", *v);
        auto parsed = ParseGroupVersion(v->get_string());
        if (!parsed.ok()) return Fail(Failure(parsed.status().message()));
        gv = *parsed;
      }
      AppendLengthDelimited(out, 1, gv.group);
      AppendLengthDelimited(out, 2, gv.version);
      return true;
    }
    case MessageKind::kUnknown:
    case MessageKind::kNone:
    case MessageKind::kStruct:
      break;
  }
  return Fail(Failure("object " + plan.go_name + " has no protobuf form"));
}

bool Encoder::Message(const MessagePlan& plan, const json::value* v, std::string& out) {
  if (++ctx_.depth > kMaxMessageDepth) {
    --ctx_.depth;
    return Fail(Failure("messages nested more than " + std::to_string(kMaxMessageDepth) + " deep"));
  }
  const bool ok = plan.kind == MessageKind::kStruct ? Struct(plan, v, out) : Special(plan, v, out);
  --ctx_.depth;
  return ok;
}

bool Encoder::Enveloped(const MessagePlan& plan, const json::value& object, std::string_view api_version,
                        std::string_view kind, std::string& out) {
  if (plan.kind != MessageKind::kStruct) return Fail(Failure("object " + plan.go_name + " has no protobuf form"));
  const size_t mark = BeginEnvelope(out, api_version, kind);
  if (!Message(plan, &object, out)) return false;
  FinishEnvelope(out, mark);
  return true;
}

}  // namespace

Status EncodeMessage(const MessagePlan& plan, const json::value* value, std::string& out, EncodeContext& ctx) {
  Encoder e(ctx);
  if (!e.Message(plan, value, out)) return e.TakeError();
  return Status::Ok();
}

Status EncodeEnvelopedObject(const MessagePlan& plan, const json::value& object, std::string_view api_version,
                             std::string_view kind, std::string& out, EncodeContext& ctx) {
  Encoder e(ctx);
  if (!e.Enveloped(plan, object, api_version, kind, out)) return e.TakeError();
  return Status::Ok();
}

Status EncodeFailure(const MessagePlan& plan, const Status& cause, const EncodeContext& ctx) {
  std::string path;
  for (auto it = ctx.error_path.rbegin(); it != ctx.error_path.rend(); ++it) {
    if (!path.empty() && (*it)[0] != '[') path += '.';
    path += *it;
  }
  std::string msg = "unable to encode " + plan.go_name + " as protobuf: ";
  if (!path.empty()) msg += path + ": ";
  msg += cause.message();
  return Status(cause.code() == 0 ? 500 : cause.code(), cause.reason().empty() ? "InternalError" : cause.reason(),
                std::move(msg));
}

}  // namespace capstan::apimachinery::protobuf
