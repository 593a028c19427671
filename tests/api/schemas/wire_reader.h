#pragma once

// A small reader of the protobuf wire format, for tests that walk encoded messages without
// generated code: it splits a message into (field number, wire type, payload) records. It never
// reads past the buffer; malformed input (truncated varints or payloads, field number 0, group
// wire types) is reported through ok() == false. Not thread-safe; one reader per buffer.

#include <cstdint>
#include <string>
#include <string_view>

namespace capstan::api::testing {

enum class WireType : int { kVarint = 0, kFixed64 = 1, kLen = 2, kStartGroup = 3, kEndGroup = 4, kFixed32 = 5 };

struct WireField {
  uint32_t number = 0;
  WireType type = WireType::kVarint;
  uint64_t varint = 0;        // kVarint; kFixed64/kFixed32 hold their raw bits here too
  std::string_view payload;   // kLen
};

class WireReader {
 public:
  explicit WireReader(std::string_view data) : data_(data) {}

  // Reads the next field into *out. Returns false at the end of the buffer or on malformed input
  // (then ok() is false and error() says why).
  bool Next(WireField* out);

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  size_t offset() const { return pos_; }

  // Decodes one varint at *pos; false when truncated or longer than 10 bytes.
  static bool ReadVarint(std::string_view data, size_t* pos, uint64_t* value);

 private:
  bool Fail(std::string message);

  std::string_view data_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace capstan::api::testing
