#include "apimachinery/protobuf_decode.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "apimachinery/protobuf_decoder.h"
#include "apimachinery/protobuf_envelope.h"

namespace capstan::apimachinery::protobuf {

namespace detail {

namespace {

void SortKeys(json::object& obj) {
  const json::key_value_pair* prev = nullptr;
  bool sorted = true;
  for (const auto& kv : obj) {
    if (prev != nullptr && kv.key() < prev->key()) {
      sorted = false;
      break;
    }
    prev = &kv;
  }
  if (sorted) return;
  std::vector<std::pair<std::string, json::value>> entries;
  entries.reserve(obj.size());
  for (auto& kv : obj) entries.emplace_back(std::string(kv.key()), std::move(kv.value()));
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  obj.clear();
  for (auto& [k, v] : entries) obj.emplace(k, std::move(v));
}

}  // namespace

bool Decoder::Float(double d, json::value& out) {
  if (!std::isfinite(d)) {
    return Fail(Bad(std::string("json: unsupported value: ") + (std::isnan(d) ? "NaN" : d > 0 ? "+Inf" : "-Inf")));
  }
  out = d;
  return true;
}

bool Decoder::Scalar(WireReader& r, ProtoType t, json::value& out, std::string_view message) {
  switch (t) {
    case ProtoType::kDouble: {
      uint64_t bits;
      if (!r.ReadFixed64(bits)) return WireFail(r, message);
      return Float(std::bit_cast<double>(bits), out);
    }
    case ProtoType::kFloat: {
      uint32_t bits;
      if (!r.ReadFixed32(bits)) return WireFail(r, message);
      const float f = std::bit_cast<float>(bits);
      if (!std::isfinite(f)) return Float(f, out);
      // Go writes a float32 with its own shortest digits: go through them so 0.1f stays 0.1.
      char buf[64];
      auto res = std::to_chars(buf, buf + sizeof(buf) - 1, f);
      *res.ptr = '\0';
      return Float(std::strtod(buf, nullptr), out);
    }
    case ProtoType::kString: {
      std::string_view s;
      if (!r.ReadLengthDelimited(s)) return WireFail(r, message);
      out = s;
      return true;
    }
    default: {
      uint64_t v;
      if (!r.ReadVarint(v)) return WireFail(r, message);
      switch (t) {
        case ProtoType::kBool: out = v != 0; return true;
        case ProtoType::kInt32: out = int64_t{static_cast<int32_t>(static_cast<uint32_t>(v))}; return true;
        case ProtoType::kInt64: out = static_cast<int64_t>(v); return true;
        case ProtoType::kUint32: out = int64_t{static_cast<uint32_t>(v)}; return true;
        case ProtoType::kUint64: out = Unsigned(v); return true;
        default: return Fail(Bad("proto: not a varint type"));
      }
    }
  }
}

// Decodes the concatenation of spans (a message given in several records merges, as Go's generated
// code merges it), or only the last one for the hand-written Time and MicroTime, which replace.
// No spans: the zero message.
bool Decoder::Spans(const MessagePlan& plan, const std::string_view* spans, size_t n, json::value& out) {
  if (!EnterMessage()) return false;
  bool ok;
  if (plan.kind == MessageKind::kStruct) {
    ok = Struct(plan, spans, n, out.emplace_object());
  } else if (n == 0) {
    ok = Special(plan, std::string_view(), out);
  } else if (n == 1 || plan.kind == MessageKind::kTimeSeconds || plan.kind == MessageKind::kTimeMicro) {
    ok = Special(plan, spans[n - 1], out);
  } else {
    std::string joined;
    for (size_t i = 0; i < n; ++i) joined.append(spans[i]);
    ok = Special(plan, joined, out);
  }
  LeaveMessage();
  return ok;
}

bool Decoder::MapEntry(const FieldPlan& f, std::string_view entry, json::object& map, const MessagePlan& owner) {
  WireReader r(entry);
  std::string_view key;
  bool has_value = false;
  json::value value;
  std::string_view message_value;
  const WireType value_wt = ScalarWireType(f.map_value);
  while (!r.done()) {
    int32_t tag;
    WireType wt;
    if (!r.ReadKey(tag, wt)) return WireFail(r, owner.go_name);
    if (tag == 1 && wt == WireType::kLengthDelimited) {
      if (!r.ReadLengthDelimited(key)) return WireFail(r, owner.go_name);
    } else if (tag == 2 && wt == value_wt) {
      has_value = true;
      if (f.map_value == ProtoType::kMessage) {
        if (!r.ReadLengthDelimited(message_value)) return WireFail(r, owner.go_name);
      } else if (f.map_value == ProtoType::kBytes) {
        std::string_view b;
        if (!r.ReadLengthDelimited(b)) return WireFail(r, owner.go_name);
        SetBase64(value, b);
      } else if (!Scalar(r, f.map_value, value, owner.go_name)) {
        return false;
      }
    } else if (!r.SkipValue(wt)) {
      return WireFail(r, owner.go_name);
    }
  }
  json::value& slot = map[key];  // a repeated key: the last entry wins, as in a Go map
  if (f.map_value == ProtoType::kMessage) return Spans(*f.message, &message_value, has_value ? 1 : 0, slot);
  slot = has_value ? std::move(value) : ZeroScalar(f.map_value);
  return true;
}

bool Decoder::Field(const FieldPlan& f, WireType wt, WireReader& r, Slot& s, const MessagePlan& plan) {
  switch (f.kind) {
    case FieldKind::kScalar: {
      const WireType want = ScalarWireType(f.type);
      if (!f.repeated) {
        if (wt != want) return Fail(WrongWireType(wt, f.go_name));
        s.seen = true;
        return Scalar(r, f.type, s.value, plan.go_name);
      }
      if (!s.seen) {
        s.value.emplace_array();
        s.seen = true;
      }
      json::array& arr = s.value.get_array();
      if (wt == want) return Scalar(r, f.type, arr.emplace_back(nullptr), plan.go_name);
      if (wt == WireType::kLengthDelimited && want != WireType::kLengthDelimited) {  // packed
        std::string_view packed;
        if (!r.ReadLengthDelimited(packed)) return WireFail(r, plan.go_name);
        WireReader pr(packed);
        while (!pr.done()) {
          if (!Scalar(pr, f.type, arr.emplace_back(nullptr), plan.go_name)) return false;
        }
        return true;
      }
      return Fail(WrongWireType(wt, f.go_name));
    }
    case FieldKind::kBytes: {
      if (wt != WireType::kLengthDelimited) return Fail(WrongWireType(wt, f.go_name));
      std::string_view b;
      if (!r.ReadLengthDelimited(b)) return WireFail(r, plan.go_name);
      if (f.repeated) {
        if (!s.seen) s.value.emplace_array();
        SetBase64(s.value.get_array().emplace_back(nullptr), b);
      } else {
        SetBase64(s.value, b);
      }
      s.seen = true;
      return true;
    }
    case FieldKind::kMessage: {
      if (wt != WireType::kLengthDelimited) return Fail(WrongWireType(wt, f.go_name));
      std::string_view m;
      if (!r.ReadLengthDelimited(m)) return WireFail(r, plan.go_name);
      if (f.repeated) {
        if (!s.seen) s.value.emplace_array();
        s.seen = true;
        return Spans(*f.message, &m, 1, s.value.get_array().emplace_back(nullptr));
      }
      s.seen = true;
      s.spans.push_back(m);
      return true;
    }
    case FieldKind::kMap: {
      if (wt != WireType::kLengthDelimited) return Fail(WrongWireType(wt, f.go_name));
      std::string_view entry;
      if (!r.ReadLengthDelimited(entry)) return WireFail(r, plan.go_name);
      if (!s.seen) s.value.emplace_object();
      s.seen = true;
      return MapEntry(f, entry, s.value.get_object(), plan);
    }
    case FieldKind::kEmbedded: {
      if (wt != WireType::kLengthDelimited) return Fail(WrongWireType(wt, f.go_name));
      std::string_view m;
      if (!r.ReadLengthDelimited(m)) return WireFail(r, plan.go_name);
      s.seen = true;
      s.spans.push_back(m);
      return true;
    }
  }
  return true;
}

bool Decoder::Emit(const FieldPlan& f, Slot& s, json::object& out) {
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
      return true;
    case FieldKind::kMessage: {
      if (f.repeated) {
        if (!s.seen || s.value.get_array().empty()) {
          EmitNil(out, f);
        } else {
          out.emplace(f.json_name, std::move(s.value));
        }
        return true;
      }
      const bool slice = f.message->kind == MessageKind::kListWrapper;  // a Go slice type
      if (!s.seen && (f.ptr || slice)) {
        EmitNil(out, f);
        return true;
      }
      auto [it, inserted] = out.emplace(f.json_name, nullptr);
      if (!Spans(*f.message, s.spans.data(), s.spans.size(), it->value())) return false;
      if (slice && f.omitempty && it->value().get_array().empty()) out.erase(it);
      return true;
    }
    case FieldKind::kMap:
      if (!s.seen || s.value.get_object().empty()) {
        EmitNil(out, f);
      } else {
        SortKeys(s.value.get_object());
        out.emplace(f.json_name, std::move(s.value));
      }
      return true;
    case FieldKind::kEmbedded: {
      if (!s.seen && f.ptr) return true;
      if (f.message->kind != MessageKind::kStruct) return Fail(Bad("proto: embedded " + f.go_name + " is not a struct"));
      if (!EnterMessage()) return false;
      const bool ok = Struct(*f.message, s.spans.data(), s.spans.size(), out);
      LeaveMessage();
      return ok;
    }
  }
  return true;
}

bool Decoder::Struct(const MessagePlan& plan, const std::string_view* spans, size_t n, json::object& out) {
  const size_t count = plan.fields.size();
  // The message's slots, cleaned and released however this returns.
  struct Frame {
    Decoder& d;
    size_t count;
    Mark mark;
    Slot* slots = d.Push(count, mark);
    ~Frame() {
      for (size_t i = 0; i < count; ++i) {
        Slot& s = slots[i];
        if (!s.seen) continue;
        s.seen = false;
        if (!s.value.is_null()) s.value = nullptr;
        s.spans.clear();
      }
      Pop(mark);
    }
  } frame{*this, count, {}};
  Slot* slots = frame.slots;
  bool ok = true;
  for (size_t i = 0; ok && i < n; ++i) {
    WireReader r(spans[i]);
    while (!r.done()) {
      int32_t tag;
      WireType wt;
      if (!r.ReadKey(tag, wt)) {
        ok = WireFail(r, plan.go_name);
        break;
      }
      const FieldPlan* f = plan.Field(tag);
      if (f == nullptr) {
        if (!r.SkipValue(wt)) {
          ok = WireFail(r, plan.go_name);
          break;
        }
        continue;
      }
      if (!Field(*f, wt, r, slots[f - plan.fields.data()], plan)) {
        ok = false;
        break;
      }
    }
  }
  if (ok) {
    // Room for the keys that will be written, so the object is not rehashed while it grows.
    size_t keys = 0;
    for (size_t i = 0; i < count; ++i) {
      const FieldPlan& f = plan.fields[i];
      if (slots[i].seen || (!f.omitempty && f.kind != FieldKind::kEmbedded) ||
          (f.kind == FieldKind::kMessage && !f.repeated && !f.ptr)) {
        ++keys;
      } else if (f.kind == FieldKind::kEmbedded) {
        keys += f.message->fields.size();
      }
    }
    out.reserve(out.size() + keys);
    for (size_t i = 0; ok && i < count; ++i) ok = Emit(plan.fields[i], slots[i], out);
  }
  return ok;
}

}  // namespace detail

using detail::Bad;
using detail::Decoder;
namespace json = boost::json;

Status DecodeMessage(const MessagePlan& plan, std::string_view message, json::value& out, DecodeContext& ctx) {
  Decoder d(ctx);
  if (!d.Spans(plan, &message, 1, out)) return d.TakeError();
  return Status::Ok();
}

Status DecodeObjectMessage(const MessagePlan& plan, std::string_view message, std::string_view api_version,
                           std::string_view kind, json::value& out, DecodeContext& ctx) {
  if (plan.kind != MessageKind::kStruct) return Bad("object " + plan.go_name + " has no protobuf form");
  Decoder d(ctx);
  if (!d.EnterMessage()) return d.TakeError();
  json::object& obj = out.emplace_object();
  if (!kind.empty()) obj.emplace("kind", kind);
  if (!api_version.empty()) obj.emplace("apiVersion", api_version);
  const bool ok = d.Struct(plan, &message, 1, obj);
  d.LeaveMessage();
  if (!ok) return d.TakeError();
  return Status::Ok();
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
