#include "apimachinery/protobuf_decode.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>
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

constexpr int64_t kGoZeroTimeUnix = -62135596800;  // 0001-01-01T00:00:00Z, Go's zero time

Status Bad(std::string msg) { return Status(400, "BadRequest", std::move(msg)); }

Status WrongWireType(WireType wt, std::string_view field) {
  return Bad("proto: wrong wireType = " + std::to_string(static_cast<int>(wt)) + " for field " + std::string(field));
}

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

json::value Unsigned(uint64_t v) {
  return v <= static_cast<uint64_t>(INT64_MAX) ? json::value(static_cast<int64_t>(v)) : json::value(v);
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

void SetBase64(json::value& out, std::string_view bytes) { out = json::string(Base64Encode(bytes)); }

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

// The fields of a special message, read generically: the last varint or bytes of each field number,
// and every occurrence of length-delimited ones.
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

// A field's state while its message is read: the last scalar, the list of a repeated field, a map's
// object, or the records of a (merged) message field.
struct Slot {
  bool seen = false;
  json::value value;
  std::vector<std::string_view> spans;
};

// One decode call: the error of the first failure, and a pool of slots reused by every message.
class Decoder {
 public:
  explicit Decoder(DecodeContext& ctx) : ctx_(ctx) {}

  bool Spans(const MessagePlan& plan, const std::string_view* spans, size_t n, json::value& out);
  bool Struct(const MessagePlan& plan, const std::string_view* spans, size_t n, json::object& out);
  bool EnterMessage() {
    if (++ctx_.depth > kMaxMessageDepth) {
      return Fail(Bad("proto: messages nested more than " + std::to_string(kMaxMessageDepth) + " deep"));
    }
    return true;
  }
  void LeaveMessage() { --ctx_.depth; }
  Status TakeError() { return std::move(error_); }

 private:
  bool Fail(Status st) {
    error_ = std::move(st);
    return false;
  }
  bool WireFail(const WireReader& r, std::string_view message) { return Fail(WireErrorStatus(r, message)); }

  bool Scalar(WireReader& r, ProtoType t, json::value& out, std::string_view message);
  bool Float(double d, json::value& out);
  bool ReadSpecial(const MessagePlan& plan, std::string_view message, std::initializer_list<SpecialField> fields,
                   SpecialValues& out);
  bool Special(const MessagePlan& plan, std::string_view message, json::value& out);
  bool Field(const FieldPlan& f, WireType wt, WireReader& r, Slot& s, const MessagePlan& plan);
  bool MapEntry(const FieldPlan& f, std::string_view entry, json::object& map, const MessagePlan& owner);
  bool Emit(const FieldPlan& f, Slot& s, json::object& out);
  void EmitNil(json::object& out, const FieldPlan& f) {
    if (!f.omitempty) out.emplace(f.json_name, nullptr);
  }

  // The slots of the messages being read, innermost last, shared by the decoders of one thread (an
  // embedded envelope starts a nested decoder above the current top). Each message takes a contiguous
  // run inside fixed chunks that never move, so slot pointers stay valid while nested messages take
  // more.
  static constexpr size_t kChunk = kMaxMessageFields;  // no message has more fields (PlanSet checks)
  struct SlotStack {
    std::vector<std::unique_ptr<Slot[]>> chunks;
    size_t chunk = 0;  // the chunk in use
    size_t used = 0;   // slots taken in it
  };
  static SlotStack& Stack() {
    thread_local SlotStack stack;
    return stack;
  }
  struct Mark {
    size_t chunk, used;
  };
  Slot* Push(size_t count, Mark& mark) {
    SlotStack& st = Stack();
    mark = {st.chunk, st.used};
    if (st.chunks.empty()) st.chunks.push_back(std::make_unique<Slot[]>(kChunk));
    if (st.used + count > kChunk) {
      ++st.chunk;
      st.used = 0;
      if (st.chunk == st.chunks.size()) st.chunks.push_back(std::make_unique<Slot[]>(kChunk));
    }
    Slot* run = &st.chunks[st.chunk][st.used];
    st.used += count;
    return run;
  }
  static void Pop(const Mark& mark) {
    Stack().chunk = mark.chunk;
    Stack().used = mark.used;
  }

  DecodeContext& ctx_;
  Status error_;
};

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

bool Decoder::ReadSpecial(const MessagePlan& plan, std::string_view message,
                          std::initializer_list<SpecialField> fields, SpecialValues& out) {
  WireReader r(message);
  while (!r.done()) {
    int32_t tag;
    WireType wt;
    if (!r.ReadKey(tag, wt)) return WireFail(r, plan.go_name);
    const SpecialField* f = nullptr;
    for (const SpecialField& c : fields) {
      if (c.tag == tag) f = &c;
    }
    if (f == nullptr) {
      if (!r.SkipValue(wt)) return WireFail(r, plan.go_name);
      continue;
    }
    if (wt != f->wire_type) return Fail(WrongWireType(wt, f->go_name));
    out.has[tag] = true;
    if (wt == WireType::kVarint) {
      if (!r.ReadVarint(out.num[tag])) return WireFail(r, plan.go_name);
    } else {
      if (!r.ReadLengthDelimited(out.bytes[tag])) return WireFail(r, plan.go_name);
      out.all[tag].push_back(out.bytes[tag]);
    }
  }
  return true;
}

bool Decoder::Special(const MessagePlan& plan, std::string_view message, json::value& out) {
  SpecialValues v;
  switch (plan.kind) {
    case MessageKind::kTimeSeconds:
    case MessageKind::kTimeMicro: {
      if (message.empty()) {
        out = nullptr;
        return true;
      }
      if (!ReadSpecial(plan, message, {{1, WireType::kVarint, "Seconds"}, {2, WireType::kVarint, "Nanos"}}, v)) {
        return false;
      }
      const auto seconds = static_cast<int64_t>(v.num[1]);
      const int32_t nanos = static_cast<int32_t>(static_cast<uint32_t>(v.num[2]));
      const bool micro = plan.kind == MessageKind::kTimeMicro;
      // Time keeps whole seconds; MicroTime truncates to microseconds (Go's Duration.Truncate).
      const Timestamp t = UnixTime(seconds, micro ? nanos - nanos % 1000 : 0);
      if (t.seconds == kGoZeroTimeUnix && t.nanos == 0) {
        out = nullptr;
      } else {
        out = micro ? FormatRfc3339Micro(t) : FormatRfc3339(t);
      }
      return true;
    }
    case MessageKind::kDuration:
      if (!ReadSpecial(plan, message, {{1, WireType::kVarint, "Duration"}}, v)) return false;
      out = FormatGoDuration(std::chrono::nanoseconds(static_cast<int64_t>(v.num[1])));
      return true;
    case MessageKind::kQuantity: {
      if (!ReadSpecial(plan, message, {{1, WireType::kLengthDelimited, "String_"}}, v)) return false;
      if (!v.has[1]) {
        out = "0";
        return true;
      }
      auto q = ParseQuantity(v.bytes[1]);
      if (!q.ok()) return Fail(q.TakeStatus());
      out = q->String();
      return true;
    }
    case MessageKind::kIntOrString: {
      if (!ReadSpecial(plan, message,
                       {{1, WireType::kVarint, "Type"},
                        {2, WireType::kVarint, "IntVal"},
                        {3, WireType::kLengthDelimited, "StrVal"}},
                       v)) {
        return false;
      }
      const auto type = static_cast<int64_t>(v.num[1]);
      if (type == 0) {
        out = int64_t{static_cast<int32_t>(static_cast<uint32_t>(v.num[2]))};
      } else if (type == 1) {
        out = v.bytes[3];
      } else {
        return Fail(Bad("json: error calling MarshalJSON for type *intstr.IntOrString: impossible IntOrString.Type"));
      }
      return true;
    }
    case MessageKind::kRawExtension:
    case MessageKind::kRawJson: {
      if (!ReadSpecial(plan, message, {{1, WireType::kLengthDelimited, "Raw"}}, v)) return false;
      const std::string_view raw = v.bytes[1];
      if (!v.has[1] || raw.empty()) {
        out = nullptr;
      } else if (plan.kind == MessageKind::kRawExtension && HasEnvelopeMagic(raw)) {
        auto obj = DecodeEnvelopedObject(raw, nullptr, ctx_);  // an object in its own envelope (watch events)
        if (!obj.ok()) return Fail(obj.TakeStatus());
        out = std::move(obj->object);
      } else {
        auto parsed = ParseJsonValue(raw);
        if (!parsed.ok()) {
          return Fail(Bad("json: error calling MarshalJSON for type *" + plan.go_name + ": " + parsed.status().message()));
        }
        out = std::move(*parsed);
      }
      return true;
    }
    case MessageKind::kListWrapper: {
      if (!ReadSpecial(plan, message, {{1, WireType::kLengthDelimited, "Items"}}, v)) return false;
      json::array& arr = out.emplace_array();
      arr.reserve(v.all[1].size());
      for (std::string_view s : v.all[1]) arr.emplace_back(s);
      return true;
    }
    case MessageKind::kSchemaOrBool: {
      if (!ReadSpecial(plan, message, {{1, WireType::kVarint, "Allows"}, {2, WireType::kLengthDelimited, "Schema"}}, v)) {
        return false;
      }
      if (v.has[2]) return Spans(*plan.schema, v.all[2].data(), v.all[2].size(), out);
      out = v.num[1] != 0;
      return true;
    }
    case MessageKind::kSchemaOrArray:
    case MessageKind::kSchemaOrStringArray: {
      const bool strings = plan.kind == MessageKind::kSchemaOrStringArray;
      if (!ReadSpecial(plan, message,
                       {{1, WireType::kLengthDelimited, "Schema"},
                        {2, WireType::kLengthDelimited, strings ? "Property" : "JSONSchemas"}},
                       v)) {
        return false;
      }
      if (!v.all[2].empty()) {
        json::array& arr = out.emplace_array();
        for (std::string_view s : v.all[2]) {
          if (strings) {
            arr.emplace_back(s);
          } else if (!Spans(*plan.schema, &s, 1, arr.emplace_back(nullptr))) {
            return false;
          }
        }
        return true;
      }
      if (v.has[1]) return Spans(*plan.schema, v.all[1].data(), v.all[1].size(), out);
      out = nullptr;
      return true;
    }
    case MessageKind::kGroupVersion: {
      if (!ReadSpecial(plan, message,
                       {{1, WireType::kLengthDelimited, "Group"}, {2, WireType::kLengthDelimited, "Version"}}, v)) {
        return false;
      }
      out = v.bytes[1].empty() ? std::string(v.bytes[2]) : std::string(v.bytes[1]) + "/" + std::string(v.bytes[2]);
      return true;
    }
    case MessageKind::kUnknown:
    case MessageKind::kNone:
    case MessageKind::kStruct:
      break;
  }
  return Fail(Bad("object " + plan.go_name + " has no protobuf form"));
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

}  // namespace

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
