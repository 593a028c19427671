// apimachinery/protobuf_decoder.h: the decoder's internals, shared by protobuf_decode.cpp (structs,
// fields, maps) and protobuf_decode_special.cpp (the hand-written message kinds). Not an API: use
// protobuf_decode.h / protobuf_codec.h. A Decoder serves one decode call on one thread.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "apimachinery/protobuf_decode.h"
#include "apimachinery/protobuf_wire.h"
#include "util/strings.h"

namespace capstan::apimachinery::protobuf::detail {

namespace json = boost::json;

inline Status Bad(std::string msg) { return Status(400, "BadRequest", std::move(msg)); }

inline Status WrongWireType(WireType wt, std::string_view field) {
  return Bad("proto: wrong wireType = " + std::to_string(static_cast<int>(wt)) + " for field " + std::string(field));
}

inline json::value Unsigned(uint64_t v) {
  return v <= static_cast<uint64_t>(INT64_MAX) ? json::value(static_cast<int64_t>(v)) : json::value(v);
}

inline json::value ZeroScalar(ProtoType t) {
  switch (t) {
    case ProtoType::kBool: return json::value(false);
    case ProtoType::kString:
    case ProtoType::kBytes: return json::value(json::string());
    case ProtoType::kDouble:
    case ProtoType::kFloat: return json::value(0.0);
    default: return json::value(int64_t{0});
  }
}

inline bool IsZeroScalar(const json::value& v) {
  switch (v.kind()) {
    case json::kind::bool_: return !v.get_bool();
    case json::kind::int64: return v.get_int64() == 0;
    case json::kind::uint64: return v.get_uint64() == 0;
    case json::kind::double_: return v.get_double() == 0;
    case json::kind::string: return v.get_string().empty();
    default: return false;
  }
}

inline void SetBase64(json::value& out, std::string_view bytes) { out = json::string(Base64Encode(bytes)); }

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

}  // namespace capstan::apimachinery::protobuf::detail
