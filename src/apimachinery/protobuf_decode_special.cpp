// The hand-written message kinds (docs/schema-format.md, "Special messages"): Time, MicroTime,
// Duration, Quantity, IntOrString, RawExtension, FieldsV1/JSON, list wrappers, the apiextensions
// schema-or-* unions and GroupVersion.
#include <chrono>
#include <cstdint>

#include "apimachinery/json_parse.h"
#include "apimachinery/protobuf_decoder.h"
#include "apimachinery/protobuf_envelope.h"
#include "apimachinery/quantity.h"
#include "apimachinery/time_util.h"
#include "util/duration.h"

namespace capstan::apimachinery::protobuf::detail {

namespace {

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

}  // namespace

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

}  // namespace capstan::apimachinery::protobuf::detail
