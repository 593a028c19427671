// apimachinery/protobuf_wire.h: the protobuf wire format at the byte level (varints, zigzag, fixed32/64,
// field keys, length-delimited records), as the Kubernetes protobuf codec reads and writes it.
//
// WireReader walks untrusted bytes: every read checks the bounds first, a length is compared with the
// bytes that remain before anything is sliced (nothing is ever allocated from a length read off the
// wire), and group skipping is depth-limited. A failed read leaves an error code in the reader; the
// texts follow the Go code Kubernetes generates for its types ("unexpected EOF", "proto: integer
// overflow", "proto: negative length found during unmarshaling", "proto: Pod: illegal tag 0 (wire type
// 0)", ...), and WireErrorStatus() turns them into a 400 BadRequest Status.
//
// The writer side appends to a std::string; a nested message is written in place and its length patched
// afterwards (BeginLengthDelimited/EndLengthDelimited), so no message is built twice.
//
// Pure functions and plain values: a reader or a string being written belongs to one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "apimachinery/status.h"

namespace capstan::apimachinery::protobuf {

enum class WireType : uint8_t {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

inline constexpr int32_t kMaxFieldNumber = (1 << 29) - 1;
inline constexpr size_t kMaxVarintBytes = 10;
// Nesting of groups an unknown field may hold before the reader gives up (Go's skip code has no bound;
// ours protects the stack and the time spent).
inline constexpr int kMaxGroupDepth = 64;

enum class WireError : uint8_t {
  kNone,
  kUnexpectedEof,        // "unexpected EOF"
  kIntegerOverflow,      // "proto: integer overflow" (a varint longer than 10 bytes)
  kNegativeLength,       // "proto: negative length found during unmarshaling"
  kIllegalTag,           // "proto: <Msg>: illegal tag N (wire type W)"
  kEndGroupForNonGroup,  // "proto: <Msg>: wiretype end group for non-group"
  kIllegalWireType,      // "proto: illegal wireType N"
  kUnexpectedEndOfGroup, // "proto: unexpected end of group"
  kGroupTooDeep,         // "proto: groups nested too deeply"
};

inline uint64_t ZigZagEncode64(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }
inline int64_t ZigZagDecode64(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }
inline uint32_t ZigZagEncode32(int32_t v) { return (static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31); }
inline int32_t ZigZagDecode32(uint32_t v) { return static_cast<int32_t>(v >> 1) ^ -static_cast<int32_t>(v & 1); }

// Bytes a varint of v takes (1..10).
inline size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

inline uint64_t MakeKey(int32_t field, WireType wt) {
  return (static_cast<uint64_t>(field) << 3) | static_cast<uint64_t>(wt);
}

class WireReader {
 public:
  explicit WireReader(std::string_view data) : data_(data) {}

  bool done() const { return pos_ >= data_.size(); }
  size_t position() const { return pos_; }
  size_t remaining() const { return data_.size() - pos_; }
  std::string_view data() const { return data_; }
  WireError error() const { return error_; }
  // For kIllegalTag and kIllegalWireType: the offending values.
  uint64_t error_field() const { return error_field_; }
  uint64_t error_wire_type() const { return error_wire_type_; }

  // A field key. Fails on field number 0 (or one past 2^29-1), wire types 6 and 7, and end-group
  // outside a group.
  bool ReadKey(int32_t& field, WireType& wt);
  // Go reads at most 10 bytes; the bits past 64 are dropped as Go drops them.
  bool ReadVarint(uint64_t& v);
  bool ReadFixed32(uint32_t& v);
  bool ReadFixed64(uint64_t& v);
  // A length varint and that many bytes, as a view into the input.
  bool ReadLengthDelimited(std::string_view& out);
  // Skips the value of a field whose key was just read (unknown fields, which are ignored).
  bool SkipValue(WireType wt) { return SkipValue(wt, 0); }

  // Sets an error from outside (a decoder that finds a wrong wire type, for example) so one path reports it.
  void Fail(WireError e) { error_ = e; }

 private:
  bool SkipValue(WireType wt, int depth);
  bool Eof() {
    error_ = WireError::kUnexpectedEof;
    return false;
  }

  std::string_view data_;
  size_t pos_ = 0;
  WireError error_ = WireError::kNone;
  uint64_t error_field_ = 0;
  uint64_t error_wire_type_ = 0;
};

// The Go text of a reader error; `message` names the message being read (for the tag errors).
std::string WireErrorText(const WireReader& r, std::string_view message);
// 400 BadRequest carrying WireErrorText.
Status WireErrorStatus(const WireReader& r, std::string_view message);

// --- writing

inline void AppendVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
inline void AppendKey(std::string& out, int32_t field, WireType wt) { AppendVarint(out, MakeKey(field, wt)); }
void AppendFixed32(std::string& out, uint32_t v);
void AppendFixed64(std::string& out, uint64_t v);
// key + length + bytes.
void AppendLengthDelimited(std::string& out, int32_t field, std::string_view bytes);

// A nested record written in place: Begin writes the key and reserves one length byte and returns a
// mark; End patches the length, moving the content when the length needs more than one byte.
size_t BeginLengthDelimited(std::string& out, int32_t field);
void EndLengthDelimited(std::string& out, size_t mark);

}  // namespace capstan::apimachinery::protobuf
