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

Status Mismatch(std::string_view want, const json::value& got) {
  return Failure("expected " + std::string(want) + ", got " + std::string(KindName(got)));
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

// One value of a scalar type (nullptr or null: the zero value), with its key.
Status WriteScalar(std::string& out, int32_t tag, ProtoType type, const json::value* v) {
  const bool zero = !IsSet(v);
  switch (type) {
    case ProtoType::kBool: {
      if (!zero && !v->is_bool()) return Mismatch("a boolean", *v);
      AppendKey(out, tag, WireType::kVarint);
      AppendVarint(out, !zero && v->get_bool() ? 1 : 0);
      return Status::Ok();
    }
    case ProtoType::kInt32:
    case ProtoType::kInt64: {
      int64_t x = 0;
      if (!zero && !AsInt64(*v, x)) return Mismatch("an integer", *v);
      if (type == ProtoType::kInt32 && (x < INT32_MIN || x > INT32_MAX)) {
        return Failure("value " + std::to_string(x) + " does not fit an int32");
      }
      AppendKey(out, tag, WireType::kVarint);
      AppendVarint(out, static_cast<uint64_t>(x));  // negative int32 sign-extends to 10 bytes, as in Go
      return Status::Ok();
    }
    case ProtoType::kUint32:
    case ProtoType::kUint64: {
      uint64_t x = 0;
      if (!zero && !AsUint64(*v, x)) return Mismatch("a non-negative integer", *v);
      if (type == ProtoType::kUint32 && x > UINT32_MAX) return Failure("value " + std::to_string(x) + " does not fit a uint32");
      AppendKey(out, tag, WireType::kVarint);
      AppendVarint(out, x);
      return Status::Ok();
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
      return Status::Ok();
    }
    case ProtoType::kString: {
      if (!zero && !v->is_string()) return Mismatch("a string", *v);
      AppendLengthDelimited(out, tag, zero ? std::string_view() : std::string_view(v->get_string()));
      return Status::Ok();
    }
    case ProtoType::kBytes: {
      if (!zero && !v->is_string()) return Mismatch("a base64 string", *v);
      std::string bytes;
      if (!zero && !Base64Decode(v->get_string(), bytes)) return Failure("illegal base64 data");
      AppendLengthDelimited(out, tag, bytes);
      return Status::Ok();
    }
    default: return Failure("unsupported scalar type");
  }
}

Status WriteMessageField(std::string& out, int32_t tag, const MessagePlan& plan, const json::value* v,
                         EncodeContext& ctx) {
  const size_t mark = BeginLengthDelimited(out, tag);
  RETURN_IF_ERROR(EncodeMessage(plan, v, out, ctx));
  EndLengthDelimited(out, mark);
  return Status::Ok();
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

Status WriteMapEntries(std::string& out, const FieldPlan& f, const json::object& map, EncodeContext& ctx) {
  std::vector<const json::key_value_pair*> entries;
  entries.reserve(map.size());
  for (const auto& kv : map) entries.push_back(&kv);
  std::sort(entries.begin(), entries.end(), [](const auto* a, const auto* b) { return a->key() < b->key(); });
  for (const json::key_value_pair* kv : entries) {
    const size_t mark = BeginLengthDelimited(out, f.tag);
    AppendLengthDelimited(out, 1, kv->key());
    const json::value& v = kv->value();
    Status st;
    if (f.map_value == ProtoType::kMessage) {
      st = WriteMessageField(out, 2, *f.message, &v, ctx);
    } else if (f.map_value == ProtoType::kBytes && v.is_null()) {
      // a nil []byte value is left out of its entry
    } else {
      st = WriteScalar(out, 2, f.map_value, &v);
    }
    if (!st.ok()) {
      ctx.error_path.push_back("[" + std::string(kv->key()) + "]");
      return st;
    }
    EndLengthDelimited(out, mark);
  }
  return Status::Ok();
}

Status WriteField(std::string& out, const FieldPlan& f, const json::value* whole, const json::object* obj,
                  EncodeContext& ctx) {
  if (f.kind == FieldKind::kEmbedded) {
    if (f.ptr && !AnyPropertyPresent(*f.message, obj)) return Status::Ok();
    return WriteMessageField(out, f.tag, *f.message, whole, ctx);  // the same JSON object
  }
  const json::value* v = obj != nullptr ? obj->if_contains(f.json_name) : nullptr;
  const bool set = IsSet(v);
  switch (f.kind) {
    case FieldKind::kScalar:
    case FieldKind::kBytes:
      if (f.repeated) {
        if (!set) return Status::Ok();
        if (!v->is_array()) return Mismatch("an array", *v);
        size_t i = 0;
        for (const json::value& e : v->get_array()) {
          Status st = WriteScalar(out, f.tag, f.type, &e);
          if (!st.ok()) {
            ctx.error_path.push_back("[" + std::to_string(i) + "]");
            return st;
          }
          ++i;
        }
        return Status::Ok();
      }
      if (set) return WriteScalar(out, f.tag, f.type, v);
      if (f.ptr || f.kind == FieldKind::kBytes) return Status::Ok();  // nil pointer, nil []byte
      return WriteScalar(out, f.tag, f.type, nullptr);
    case FieldKind::kMessage: {
      if (f.repeated) {
        if (!set) return Status::Ok();
        if (!v->is_array()) return Mismatch("an array", *v);
        size_t i = 0;
        for (const json::value& e : v->get_array()) {
          Status st = WriteMessageField(out, f.tag, *f.message, &e, ctx);
          if (!st.ok()) {
            ctx.error_path.push_back("[" + std::to_string(i) + "]");
            return st;
          }
          ++i;
        }
        return Status::Ok();
      }
      if (!set && (f.ptr || f.message->kind == MessageKind::kListWrapper)) return Status::Ok();
      return WriteMessageField(out, f.tag, *f.message, set ? v : nullptr, ctx);
    }
    case FieldKind::kMap:
      if (!set) return Status::Ok();
      if (!v->is_object()) return Mismatch("an object", *v);
      return WriteMapEntries(out, f, v->get_object(), ctx);
    case FieldKind::kEmbedded:
      break;
  }
  return Status::Ok();
}

Status EncodeStruct(const MessagePlan& plan, const json::value* v, std::string& out, EncodeContext& ctx) {
  const json::object* obj = nullptr;
  if (IsSet(v)) {
    obj = v->if_object();
    if (obj == nullptr) return Mismatch("an object", *v);
  }
  for (const FieldPlan& f : plan.fields) {
    Status st = WriteField(out, f, v, obj, ctx);
    if (!st.ok()) {
      if (f.kind != FieldKind::kEmbedded) ctx.error_path.push_back(f.json_name);
      return st;
    }
  }
  return Status::Ok();
}

Status EncodeTime(const MessagePlan& plan, const json::value* v, std::string& out) {
  if (!IsSet(v)) return Status::Ok();  // the zero time: an empty message
  if (!v->is_string()) return Mismatch("an RFC 3339 string", *v);
  const bool micro = plan.kind == MessageKind::kTimeMicro;
  auto t = micro ? ParseRfc3339Micro(v->get_string()) : ParseRfc3339(v->get_string());
  if (!t.ok()) return Failure(t.status().message());
  if (t->seconds == kGoZeroTimeUnix && t->nanos == 0) return Status::Ok();
  AppendKey(out, 1, WireType::kVarint);
  AppendVarint(out, static_cast<uint64_t>(t->seconds));
  AppendKey(out, 2, WireType::kVarint);
  // Time drops the fraction on the wire; MicroTime keeps whole microseconds.
  AppendVarint(out, static_cast<uint64_t>(static_cast<int64_t>(micro ? t->nanos - t->nanos % 1000 : 0)));
  return Status::Ok();
}

Status EncodeQuantity(const json::value* v, std::string& out) {
  std::string text = "0";
  if (IsSet(v)) {
    if (!v->is_string() && !v->is_number()) return Mismatch("a quantity", *v);
    auto q = ParseQuantityJson(*v);
    if (!q.ok()) return Failure(q.status().message());
    text = q->String();
  }
  AppendLengthDelimited(out, 1, text);
  return Status::Ok();
}

Status EncodeIntOrString(const json::value* v, std::string& out) {
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
  return Status::Ok();
}

Status EncodeRawExtension(const MessagePlan& plan, const json::value* v, std::string& out, EncodeContext& ctx) {
  if (!IsSet(v)) return Status::Ok();
  if (plan.kind == MessageKind::kRawExtension && ctx.options.raw_extension_as_protobuf && ctx.kinds != nullptr &&
      v->is_object()) {
    const json::value* av = v->get_object().if_contains("apiVersion");
    const json::value* kv = v->get_object().if_contains("kind");
    if (av != nullptr && av->is_string() && kv != nullptr && kv->is_string()) {
      const GroupVersionKind gvk = FromApiVersionAndKind(av->get_string(), kv->get_string());
      auto embedded = ctx.kinds->PlanForKind(gvk);
      if (embedded.ok() && (*embedded)->kind == MessageKind::kStruct) {
        const size_t mark = BeginLengthDelimited(out, 1);
        RETURN_IF_ERROR(EncodeEnvelopedObject(**embedded, *v, av->get_string(), kv->get_string(), out, ctx));
        EndLengthDelimited(out, mark);
        return Status::Ok();
      }
    }
  }
  AppendLengthDelimited(out, 1, ToJson(*v));
  return Status::Ok();
}

Status EncodeSpecial(const MessagePlan& plan, const json::value* v, std::string& out, EncodeContext& ctx) {
  switch (plan.kind) {
    case MessageKind::kTimeSeconds:
    case MessageKind::kTimeMicro: return EncodeTime(plan, v, out);
    case MessageKind::kDuration: {
      int64_t ns = 0;
      if (IsSet(v)) {
        if (!v->is_string()) return Mismatch("a duration string", *v);
        auto d = ParseGoDuration(v->get_string());
        if (!d) return Failure("time: invalid duration " + GoQuote(std::string_view(v->get_string())));
        ns = d->count();
      }
      AppendKey(out, 1, WireType::kVarint);
      AppendVarint(out, static_cast<uint64_t>(ns));
      return Status::Ok();
    }
    case MessageKind::kQuantity: return EncodeQuantity(v, out);
    case MessageKind::kIntOrString: return EncodeIntOrString(v, out);
    case MessageKind::kRawExtension:
    case MessageKind::kRawJson: return EncodeRawExtension(plan, v, out, ctx);
    case MessageKind::kListWrapper: {
      if (!IsSet(v)) return Status::Ok();
      if (!v->is_array()) return Mismatch("an array of strings", *v);
      for (const json::value& e : v->get_array()) RETURN_IF_ERROR(WriteScalar(out, 1, ProtoType::kString, &e));
      return Status::Ok();
    }
    case MessageKind::kSchemaOrBool: {
      const bool is_schema = IsSet(v) && v->is_object();
      if (IsSet(v) && !is_schema && !v->is_bool()) return Mismatch("a boolean or a schema", *v);
      AppendKey(out, 1, WireType::kVarint);
      AppendVarint(out, is_schema || (IsSet(v) && v->get_bool()) ? 1 : 0);
      if (is_schema) return WriteMessageField(out, 2, *plan.schema, v, ctx);
      return Status::Ok();
    }
    case MessageKind::kSchemaOrArray:
    case MessageKind::kSchemaOrStringArray: {
      if (!IsSet(v)) return Status::Ok();
      if (v->is_object()) return WriteMessageField(out, 1, *plan.schema, v, ctx);
      if (!v->is_array()) return Mismatch("a schema or an array", *v);
      for (const json::value& e : v->get_array()) {
        if (plan.kind == MessageKind::kSchemaOrStringArray) {
          RETURN_IF_ERROR(WriteScalar(out, 2, ProtoType::kString, &e));
        } else {
          RETURN_IF_ERROR(WriteMessageField(out, 2, *plan.schema, &e, ctx));
        }
      }
      return Status::Ok();
    }
    case MessageKind::kGroupVersion: {
      GroupVersion gv;
      if (IsSet(v)) {
        if (!v->is_string()) return Mismatch("a group/version string", *v);
        auto parsed = ParseGroupVersion(v->get_string());
        if (!parsed.ok()) return Failure(parsed.status().message());
        gv = *parsed;
      }
      AppendLengthDelimited(out, 1, gv.group);
      AppendLengthDelimited(out, 2, gv.version);
      return Status::Ok();
    }
    case MessageKind::kUnknown:
    case MessageKind::kNone:
    case MessageKind::kStruct:
      break;
  }
  return Failure("object " + plan.go_name + " has no protobuf form");
}

}  // namespace

Status EncodeMessage(const MessagePlan& plan, const json::value* value, std::string& out, EncodeContext& ctx) {
  if (++ctx.depth > kMaxMessageDepth) {
    --ctx.depth;
    return Failure("messages nested more than " + std::to_string(kMaxMessageDepth) + " deep");
  }
  Status st = plan.kind == MessageKind::kStruct ? EncodeStruct(plan, value, out, ctx) : EncodeSpecial(plan, value, out, ctx);
  --ctx.depth;
  return st;
}

Status EncodeEnvelopedObject(const MessagePlan& plan, const json::value& object, std::string_view api_version,
                             std::string_view kind, std::string& out, EncodeContext& ctx) {
  if (plan.kind != MessageKind::kStruct) return Failure("object " + plan.go_name + " has no protobuf form");
  const size_t mark = BeginEnvelope(out, api_version, kind);
  RETURN_IF_ERROR(EncodeMessage(plan, &object, out, ctx));
  FinishEnvelope(out, mark);
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
