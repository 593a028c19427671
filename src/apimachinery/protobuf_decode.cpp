#include "apimachinery/protobuf_decode.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "apimachinery/json_parse.h"
#include "apimachinery/protobuf_envelope.h"
#include "apimachinery/protobuf_wire.h"
#include "apimachinery/quantity.h"
#include "apimachinery/time_util.h"
#include "util/duration.h"
#include "util/strings.h"

namespace capstan::apimachinery::protobuf {

namespace json = boost::json;

namespace {

Status Bad(std::string msg) { return Status(400, "BadRequest", std::move(msg)); }

Status WrongWireType(WireType wt, std::string_view field) {
  return Bad("proto: wrong wireType = " + std::to_string(static_cast<int>(wt)) + " for field " + std::string(field));
}

class DepthGuard {
 public:
  explicit DepthGuard(DecodeContext& ctx) : ctx_(ctx) { ++ctx_.depth; }
  ~DepthGuard() { --ctx_.depth; }
  bool exceeded() const { return ctx_.depth > kMaxMessageDepth; }

 private:
  DecodeContext& ctx_;
};

constexpr int64_t kGoZeroTimeUnix = -62135596800;  // 0001-01-01T00:00:00Z, Go's zero time

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

// time.Unix(seconds, nanos): nanos outside [0, 1e9) carry into the seconds.
Timestamp UnixTime(int64_t seconds, int64_t nanos) {
  if (nanos < 0 || nanos >= 1000000000) {
    const int64_t carry = FloorDiv(nanos, 1000000000);
    seconds += carry;
    nanos -= carry * 1000000000;
  }
  return Timestamp{seconds, static_cast<int32_t>(nanos)};
}

Status TooDeep() { return Bad("proto: messages nested more than " + std::to_string(kMaxMessageDepth) + " deep"); }

json::value Int(int64_t v) { return json::value(v); }
json::value Unsigned(uint64_t v) {
  return v <= static_cast<uint64_t>(INT64_MAX) ? json::value(static_cast<int64_t>(v)) : json::value(v);
}

Status ReadVarintScalar(ProtoType t, uint64_t v, json::value& out) {
  switch (t) {
    case ProtoType::kBool: out = v != 0; return Status::Ok();
    case ProtoType::kInt32: out = Int(static_cast<int32_t>(static_cast<uint32_t>(v))); return Status::Ok();
    case ProtoType::kInt64: out = Int(static_cast<int64_t>(v)); return Status::Ok();
    case ProtoType::kUint32: out = Int(static_cast<uint32_t>(v)); return Status::Ok();
    case ProtoType::kUint64: out = Unsigned(v); return Status::Ok();
    default: return Bad("proto: not a varint type");
  }
}

Status FloatValue(double d, json::value& out) {
  if (!std::isfinite(d)) {
    return Bad(std::string("json: unsupported value: ") + (std::isnan(d) ? "NaN" : d > 0 ? "+Inf" : "-Inf"));
  }
  out = d;
  return Status::Ok();
}

// One value of a scalar field whose wire type was checked.
Status ReadScalar(WireReader& r, ProtoType t, json::value& out, std::string_view message) {
  switch (t) {
    case ProtoType::kDouble: {
      uint64_t bits;
      if (!r.ReadFixed64(bits)) return WireErrorStatus(r, message);
      return FloatValue(std::bit_cast<double>(bits), out);
    }
    case ProtoType::kFloat: {
      uint32_t bits;
      if (!r.ReadFixed32(bits)) return WireErrorStatus(r, message);
      const float f = std::bit_cast<float>(bits);
      if (!std::isfinite(f)) return FloatValue(f, out);
      // Go writes a float32 with its own shortest digits: go through them so 0.1f stays "0.1".
      char buf[64];
      auto res = std::to_chars(buf, buf + sizeof(buf), f);
      *res.ptr = '\0';
      return FloatValue(std::strtod(buf, nullptr), out);
    }
    case ProtoType::kString: {
      std::string_view s;
      if (!r.ReadLengthDelimited(s)) return WireErrorStatus(r, message);
      out = json::string(s);
      return Status::Ok();
    }
    default: {
      uint64_t v;
      if (!r.ReadVarint(v)) return WireErrorStatus(r, message);
      return ReadVarintScalar(t, v, out);
    }
  }
}

json::value ZeroScalar(ProtoType t) {
  switch (t) {
    case ProtoType::kBool: return json::value(false);
    case ProtoType::kString:
    case ProtoType::kBytes: return json::value(json::string());
    case ProtoType::kDouble:
    case ProtoType::kFloat: return json::value(0.0);
    default: return json::value(int64_t{0});
  }
}

bool IsZeroScalar(const json::value& v) {
  switch (v.kind()) {
    case json::kind::bool_: return !v.get_bool();
    case json::kind::int64: return v.get_int64() == 0;
    case json::kind::uint64: return v.get_uint64() == 0;
    case json::kind::double_: return v.get_double() == 0;
    case json::kind::string: return v.get_string().empty();
    default: return false;
  }
}

json::value Base64(std::string_view bytes) { return json::value(json::string(Base64Encode(bytes))); }

// The fields of a special message, read generically: the last varint or bytes of each field number,
// and every occurrence for repeated ones.
struct SpecialField {
  int32_t tag;
  WireType wire_type;
  std::string_view go_name;
};

struct SpecialValues {
  bool has[5] = {};
  uint64_t num[5] = {};
  std::string_view bytes[5];
  std::vector<std::string_view> all[5];
};

Status ReadSpecial(const MessagePlan& plan, std::string_view message, std::initializer_list<SpecialField> fields,
                   SpecialValues& out) {
  WireReader r(message);
  while (!r.done()) {
    int32_t tag;
    WireType wt;
    if (!r.ReadKey(tag, wt)) return WireErrorStatus(r, plan.go_name);
    const SpecialField* f = nullptr;
    for (const SpecialField& c : fields) {
      if (c.tag == tag) f = &c;
    }
    if (f == nullptr) {
      if (!r.SkipValue(wt)) return WireErrorStatus(r, plan.go_name);
      continue;
    }
    if (wt != f->wire_type) return WrongWireType(wt, f->go_name);
    out.has[tag] = true;
    if (wt == WireType::kVarint) {
      if (!r.ReadVarint(out.num[tag])) return WireErrorStatus(r, plan.go_name);
    } else {
      if (!r.ReadLengthDelimited(out.bytes[tag])) return WireErrorStatus(r, plan.go_name);
      out.all[tag].push_back(out.bytes[tag]);
    }
  }
  return Status::Ok();
}

Status DecodeSpans(const MessagePlan& plan, const std::string_view* spans, size_t n, json::value& out,
                   DecodeContext& ctx);
Status DecodeStructFields(const MessagePlan& plan, const std::string_view* spans, size_t n, json::object& out,
                          DecodeContext& ctx);

Status DecodeEmbeddedEnvelope(std::string_view bytes, json::value& out, DecodeContext& ctx) {
  auto obj = DecodeEnvelopedObject(bytes, nullptr, ctx);
  if (!obj.ok()) return obj.TakeStatus();
  out = std::move(obj->object);
  return Status::Ok();
}

Status ParseEmbeddedJson(std::string_view text, std::string_view type, json::value& out) {
  auto v = ParseJsonValue(text);
  if (!v.ok()) {
    return Bad("json: error calling MarshalJSON for type " + std::string(type) + ": " + v.status().message());
  }
  out = std::move(*v);
  return Status::Ok();
}

Status DecodeSpecial(const MessagePlan& plan, std::string_view message, json::value& out, DecodeContext& ctx) {
  SpecialValues v;
  switch (plan.kind) {
    case MessageKind::kTimeSeconds:
    case MessageKind::kTimeMicro: {
      if (message.empty()) {
        out = nullptr;
        return Status::Ok();
      }
      RETURN_IF_ERROR(ReadSpecial(plan, message,
                                  {{1, WireType::kVarint, "Seconds"}, {2, WireType::kVarint, "Nanos"}}, v));
      const auto seconds = static_cast<int64_t>(v.num[1]);
      const int32_t nanos = static_cast<int32_t>(static_cast<uint32_t>(v.num[2]));
      const bool micro = plan.kind == MessageKind::kTimeMicro;
      // Time keeps whole seconds; MicroTime truncates to microseconds (Go's Duration.Truncate).
      const Timestamp t = UnixTime(seconds, micro ? nanos - nanos % 1000 : 0);
      if (t.seconds == kGoZeroTimeUnix && t.nanos == 0) {
        out = nullptr;
      } else {
        out = json::string(micro ? FormatRfc3339Micro(t) : FormatRfc3339(t));
      }
      return Status::Ok();
    }
    case MessageKind::kDuration:
      RETURN_IF_ERROR(ReadSpecial(plan, message, {{1, WireType::kVarint, "Duration"}}, v));
      out = json::string(FormatGoDuration(std::chrono::nanoseconds(static_cast<int64_t>(v.num[1]))));
      return Status::Ok();
    case MessageKind::kQuantity: {
      RETURN_IF_ERROR(ReadSpecial(plan, message, {{1, WireType::kLengthDelimited, "String_"}}, v));
      if (!v.has[1]) {
        out = json::string("0");
        return Status::Ok();
      }
      auto q = ParseQuantity(v.bytes[1]);
      if (!q.ok()) return q.TakeStatus();
      out = json::string(q->String());
      return Status::Ok();
    }
    case MessageKind::kIntOrString: {
      RETURN_IF_ERROR(ReadSpecial(plan, message,
                                  {{1, WireType::kVarint, "Type"},
                                   {2, WireType::kVarint, "IntVal"},
                                   {3, WireType::kLengthDelimited, "StrVal"}},
                                  v));
      const auto type = static_cast<int64_t>(v.num[1]);
      if (type == 0) {
        out = Int(static_cast<int32_t>(static_cast<uint32_t>(v.num[2])));
      } else if (type == 1) {
        out = json::string(v.bytes[3]);
      } else {
        return Bad("json: error calling MarshalJSON for type *intstr.IntOrString: impossible IntOrString.Type");
      }
      return Status::Ok();
    }
    case MessageKind::kRawExtension:
    case MessageKind::kRawJson: {
      RETURN_IF_ERROR(ReadSpecial(plan, message, {{1, WireType::kLengthDelimited, "Raw"}}, v));
      const std::string_view raw = v.bytes[1];
      if (!v.has[1] || raw.empty()) {
        out = nullptr;
      } else if (plan.kind == MessageKind::kRawExtension && HasEnvelopeMagic(raw)) {
        RETURN_IF_ERROR(DecodeEmbeddedEnvelope(raw, out, ctx));
      } else {
        RETURN_IF_ERROR(ParseEmbeddedJson(raw, "*" + plan.go_name, out));
      }
      return Status::Ok();
    }
    case MessageKind::kListWrapper: {
      RETURN_IF_ERROR(ReadSpecial(plan, message, {{1, WireType::kLengthDelimited, "Items"}}, v));
      json::array& arr = out.emplace_array();
      arr.reserve(v.all[1].size());
      for (std::string_view s : v.all[1]) arr.emplace_back(json::string(s));
      return Status::Ok();
    }
    case MessageKind::kSchemaOrBool: {
      RETURN_IF_ERROR(ReadSpecial(plan, message,
                                  {{1, WireType::kVarint, "Allows"}, {2, WireType::kLengthDelimited, "Schema"}}, v));
      if (v.has[2]) return DecodeSpans(*plan.schema, v.all[2].data(), v.all[2].size(), out, ctx);
      out = v.num[1] != 0;
      return Status::Ok();
    }
    case MessageKind::kSchemaOrArray:
    case MessageKind::kSchemaOrStringArray: {
      const bool strings = plan.kind == MessageKind::kSchemaOrStringArray;
      RETURN_IF_ERROR(ReadSpecial(plan, message,
                                  {{1, WireType::kLengthDelimited, "Schema"},
                                   {2, WireType::kLengthDelimited, strings ? "Property" : "JSONSchemas"}},
                                  v));
      if (!v.all[2].empty()) {
        json::array& arr = out.emplace_array();
        for (std::string_view s : v.all[2]) {
          if (strings) {
            arr.emplace_back(json::string(s));
          } else {
            json::value elem;
            RETURN_IF_ERROR(DecodeSpans(*plan.schema, &s, 1, elem, ctx));
            arr.push_back(std::move(elem));
          }
        }
      } else if (v.has[1]) {
        return DecodeSpans(*plan.schema, v.all[1].data(), v.all[1].size(), out, ctx);
      } else {
        out = nullptr;
      }
      return Status::Ok();
    }
    case MessageKind::kGroupVersion: {
      RETURN_IF_ERROR(ReadSpecial(plan, message,
                                  {{1, WireType::kLengthDelimited, "Group"}, {2, WireType::kLengthDelimited, "Version"}},
                                  v));
      std::string s = v.bytes[1].empty() ? std::string(v.bytes[2])
                                          : std::string(v.bytes[1]) + "/" + std::string(v.bytes[2]);
      out = json::string(s);
      return Status::Ok();
    }
    case MessageKind::kUnknown:
    case MessageKind::kNone:
    case MessageKind::kStruct:
      break;
  }
  return Bad("object " + plan.go_name + " has no protobuf form");
}

// Decodes the concatenation of spans (one message given in several records merges, as Go's
// generated code merges it), or only the last one for the hand-written Time and MicroTime, which
// replace. No spans: the zero message.
Status DecodeSpans(const MessagePlan& plan, const std::string_view* spans, size_t n, json::value& out,
                   DecodeContext& ctx) {
  DepthGuard guard(ctx);
  if (guard.exceeded()) return TooDeep();
  if (plan.kind == MessageKind::kStruct) {
    return DecodeStructFields(plan, spans, n, out.emplace_object(), ctx);
  }
  if (n == 0) return DecodeSpecial(plan, std::string_view(), out, ctx);
  if (n == 1 || plan.kind == MessageKind::kTimeSeconds || plan.kind == MessageKind::kTimeMicro) {
    return DecodeSpecial(plan, spans[n - 1], out, ctx);
  }
  std::string joined;
  for (size_t i = 0; i < n; ++i) joined.append(spans[i]);
  return DecodeSpecial(plan, joined, out, ctx);
}

struct Slot {
  bool seen = false;
  json::value value;                     // last scalar, the list of a repeated field, a map's object
  std::vector<std::string_view> spans;   // occurrences of a message or embedded field
};

Status DecodeMapEntry(const FieldPlan& f, std::string_view entry, json::object& map, const MessagePlan& owner,
                      DecodeContext& ctx) {
  WireReader r(entry);
  std::string_view key;
  bool has_value = false;
  json::value value;
  std::string_view message_value;
  const WireType value_wt = ScalarWireType(f.map_value);
  while (!r.done()) {
    int32_t tag;
    WireType wt;
    if (!r.ReadKey(tag, wt)) return WireErrorStatus(r, owner.go_name);
    if (tag == 1 && wt == WireType::kLengthDelimited) {
      if (!r.ReadLengthDelimited(key)) return WireErrorStatus(r, owner.go_name);
    } else if (tag == 2 && wt == value_wt) {
      has_value = true;
      if (f.map_value == ProtoType::kMessage) {
        if (!r.ReadLengthDelimited(message_value)) return WireErrorStatus(r, owner.go_name);
      } else if (f.map_value == ProtoType::kBytes) {
        std::string_view b;
        if (!r.ReadLengthDelimited(b)) return WireErrorStatus(r, owner.go_name);
        value = Base64(b);
      } else {
        RETURN_IF_ERROR(ReadScalar(r, f.map_value, value, owner.go_name));
      }
    } else if (!r.SkipValue(wt)) {
      return WireErrorStatus(r, owner.go_name);
    }
  }
  if (f.map_value == ProtoType::kMessage) {
    RETURN_IF_ERROR(DecodeSpans(*f.message, &message_value, has_value ? 1 : 0, value, ctx));
  } else if (!has_value) {
    value = ZeroScalar(f.map_value);
  }
  map[key] = std::move(value);
  return Status::Ok();
}

void SortKeys(json::object& obj) {
  bool sorted = true;
  std::string_view prev;
  bool first = true;
  for (const auto& kv : obj) {
    if (!first && kv.key() < prev) {
      sorted = false;
      break;
    }
    prev = kv.key();
    first = false;
  }
  if (sorted) return;
  std::vector<std::pair<std::string, json::value>> entries;
  entries.reserve(obj.size());
  for (auto& kv : obj) entries.emplace_back(std::string(kv.key()), std::move(kv.value()));
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  obj.clear();
  for (auto& [k, v] : entries) obj.emplace(k, std::move(v));
}

// A nil list, map, pointer or bytes: left out with omitempty, else null.
void EmitNil(json::object& out, const FieldPlan& f) {
  if (!f.omitempty) out.emplace(f.json_name, nullptr);
}

Status ReadField(const FieldPlan& f, WireType wt, WireReader& r, Slot& s, const MessagePlan& plan, DecodeContext& ctx) {
  switch (f.kind) {
    case FieldKind::kScalar: {
      const WireType want = ScalarWireType(f.type);
      if (!f.repeated) {
        if (wt != want) return WrongWireType(wt, f.go_name);
        s.seen = true;
        return ReadScalar(r, f.type, s.value, plan.go_name);
      }
      if (!s.seen) {
        s.value.emplace_array();
        s.seen = true;
      }
      json::array& arr = s.value.get_array();
      if (wt == want) {
        json::value v;
        RETURN_IF_ERROR(ReadScalar(r, f.type, v, plan.go_name));
        arr.push_back(std::move(v));
        return Status::Ok();
      }
      if (wt == WireType::kLengthDelimited && want != WireType::kLengthDelimited) {  // packed
        std::string_view packed;
        if (!r.ReadLengthDelimited(packed)) return WireErrorStatus(r, plan.go_name);
        WireReader pr(packed);
        while (!pr.done()) {
          json::value v;
          RETURN_IF_ERROR(ReadScalar(pr, f.type, v, plan.go_name));
          arr.push_back(std::move(v));
        }
        return Status::Ok();
      }
      return WrongWireType(wt, f.go_name);
    }
    case FieldKind::kBytes: {
      if (wt != WireType::kLengthDelimited) return WrongWireType(wt, f.go_name);
      std::string_view b;
      if (!r.ReadLengthDelimited(b)) return WireErrorStatus(r, plan.go_name);
      if (f.repeated) {
        if (!s.seen) s.value.emplace_array();
        s.value.get_array().push_back(Base64(b));
      } else {
        s.value = Base64(b);
      }
      s.seen = true;
      return Status::Ok();
    }
    case FieldKind::kMessage: {
      if (wt != WireType::kLengthDelimited) return WrongWireType(wt, f.go_name);
      std::string_view m;
      if (!r.ReadLengthDelimited(m)) return WireErrorStatus(r, plan.go_name);
      if (f.repeated) {
        if (!s.seen) s.value.emplace_array();
        s.seen = true;
        json::value elem;
        RETURN_IF_ERROR(DecodeSpans(*f.message, &m, 1, elem, ctx));
        s.value.get_array().push_back(std::move(elem));
      } else {
        s.seen = true;
        s.spans.push_back(m);
      }
      return Status::Ok();
    }
    case FieldKind::kMap: {
      if (wt != WireType::kLengthDelimited) return WrongWireType(wt, f.go_name);
      std::string_view entry;
      if (!r.ReadLengthDelimited(entry)) return WireErrorStatus(r, plan.go_name);
      if (!s.seen) s.value.emplace_object();
      s.seen = true;
      return DecodeMapEntry(f, entry, s.value.get_object(), plan, ctx);
    }
    case FieldKind::kEmbedded: {
      if (wt != WireType::kLengthDelimited) return WrongWireType(wt, f.go_name);
      std::string_view m;
      if (!r.ReadLengthDelimited(m)) return WireErrorStatus(r, plan.go_name);
      s.seen = true;
      s.spans.push_back(m);
      return Status::Ok();
    }
  }
  return Status::Ok();
}

Status EmitField(const FieldPlan& f, Slot& s, json::object& out, DecodeContext& ctx) {
  switch (f.kind) {
    case FieldKind::kScalar:
    case FieldKind::kBytes:
      if (f.repeated) {
        if (!s.seen || s.value.get_array().empty()) {
          EmitNil(out, f);
        } else {
          out.emplace(f.json_name, std::move(s.value));
        }
      } else if (!s.seen) {
        if (f.ptr || f.kind == FieldKind::kBytes) {
          EmitNil(out, f);
        } else if (!f.omitempty) {
          out.emplace(f.json_name, ZeroScalar(f.type));
        }
      } else if (!(f.omitempty && !f.ptr && IsZeroScalar(s.value))) {
        out.emplace(f.json_name, std::move(s.value));
      }
      return Status::Ok();
    case FieldKind::kMessage: {
      if (f.repeated) {
        if (!s.seen || s.value.get_array().empty()) {
          EmitNil(out, f);
        } else {
          out.emplace(f.json_name, std::move(s.value));
        }
        return Status::Ok();
      }
      const bool slice = f.message->kind == MessageKind::kListWrapper;  // a Go slice type
      if (!s.seen && (f.ptr || slice)) {
        EmitNil(out, f);
        return Status::Ok();
      }
      json::value v;
      RETURN_IF_ERROR(DecodeSpans(*f.message, s.spans.data(), s.spans.size(), v, ctx));
      if (slice && f.omitempty && v.get_array().empty()) return Status::Ok();
      out.emplace(f.json_name, std::move(v));
      return Status::Ok();
    }
    case FieldKind::kMap:
      if (!s.seen || s.value.get_object().empty()) {
        EmitNil(out, f);
      } else {
        SortKeys(s.value.get_object());
        out.emplace(f.json_name, std::move(s.value));
      }
      return Status::Ok();
    case FieldKind::kEmbedded:
      if (!s.seen && f.ptr) return Status::Ok();
      if (f.message->kind != MessageKind::kStruct) return Bad("proto: embedded " + f.go_name + " is not a struct");
      {
        DepthGuard guard(ctx);
        if (guard.exceeded()) return TooDeep();
        return DecodeStructFields(*f.message, s.spans.data(), s.spans.size(), out, ctx);
      }
  }
  return Status::Ok();
}

Status DecodeStructFields(const MessagePlan& plan, const std::string_view* spans, size_t n, json::object& out,
                          DecodeContext& ctx) {
  std::vector<Slot> slots(plan.fields.size());
  for (size_t i = 0; i < n; ++i) {
    WireReader r(spans[i]);
    while (!r.done()) {
      int32_t tag;
      WireType wt;
      if (!r.ReadKey(tag, wt)) return WireErrorStatus(r, plan.go_name);
      const FieldPlan* f = plan.Field(tag);
      if (f == nullptr) {
        if (!r.SkipValue(wt)) return WireErrorStatus(r, plan.go_name);
        continue;
      }
      RETURN_IF_ERROR(ReadField(*f, wt, r, slots[static_cast<size_t>(f - plan.fields.data())], plan, ctx));
    }
  }
  for (size_t i = 0; i < plan.fields.size(); ++i) RETURN_IF_ERROR(EmitField(plan.fields[i], slots[i], out, ctx));
  return Status::Ok();
}

}  // namespace

Status DecodeMessage(const MessagePlan& plan, std::string_view message, json::value& out, DecodeContext& ctx) {
  return DecodeSpans(plan, &message, 1, out, ctx);
}

Status DecodeObjectMessage(const MessagePlan& plan, std::string_view message, std::string_view api_version,
                           std::string_view kind, json::value& out, DecodeContext& ctx) {
  if (plan.kind != MessageKind::kStruct) return Bad("object " + plan.go_name + " has no protobuf form");
  DepthGuard guard(ctx);
  if (guard.exceeded()) return TooDeep();
  json::object& obj = out.emplace_object();
  if (!kind.empty()) obj.emplace("kind", kind);
  if (!api_version.empty()) obj.emplace("apiVersion", api_version);
  return DecodeStructFields(plan, &message, 1, obj, ctx);
}

StatusOr<DecodedObject> DecodeEnvelopedObject(std::string_view bytes, const GroupVersionKind* defaults,
                                              DecodeContext& ctx) {
  ASSIGN_OR_RETURN(Envelope env, DecodeEnvelope(bytes));
  GroupVersionKind gvk;
  if (!env.api_version.empty()) {
    auto gv = ParseGroupVersion(env.api_version);
    if (!gv.ok()) return gv.TakeStatus();
    gvk.group = gv->group;
    gvk.version = gv->version;
  }
  gvk.kind = env.kind;
  if (defaults != nullptr) {  // kube's copyKindDefaults
    if (gvk.kind.empty()) gvk.kind = defaults->kind;
    if (gvk.version.empty() && !defaults->version.empty()) {
      gvk.group = defaults->group;
      gvk.version = defaults->version;
    }
  }
  const std::string type_meta =
      "runtime.TypeMeta{APIVersion:" + GoQuote(env.api_version) + ", Kind:" + GoQuote(env.kind) + "}";
  if (gvk.kind.empty()) return Bad("Object 'Kind' is missing in '" + type_meta + "'");
  if (gvk.version.empty()) return Bad("Object 'apiVersion' is missing in '" + type_meta + "'");
  if (ctx.kinds == nullptr) return Bad("proto: no kinds to decode an embedded object of kind " + gvk.kind);
  ASSIGN_OR_RETURN(const MessagePlan* plan, ctx.kinds->PlanForKind(gvk));
  DecodedObject out;
  RETURN_IF_ERROR(DecodeObjectMessage(*plan, env.raw, gvk.ApiVersion(), gvk.kind, out.object, ctx));
  out.gvk = std::move(gvk);
  return out;
}

}  // namespace capstan::apimachinery::protobuf
