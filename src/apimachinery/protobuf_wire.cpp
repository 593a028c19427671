#include "apimachinery/protobuf_wire.h"

#include <cstring>

namespace capstan::apimachinery::protobuf {

bool WireReader::ReadVarint(uint64_t& v) {
  uint64_t result = 0;
  for (size_t i = 0; i < kMaxVarintBytes; ++i) {
    if (pos_ >= data_.size()) return Eof();
    const uint8_t b = static_cast<uint8_t>(data_[pos_++]);
    result |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
    if (b < 0x80) {
      v = result;
      return true;
    }
  }
  error_ = WireError::kIntegerOverflow;
  return false;
}

bool WireReader::ReadKey(int32_t& field, WireType& wt) {
  uint64_t key = 0;
  if (!ReadVarint(key)) return false;
  const uint64_t w = key & 7;
  // Go converts the number with int32(wire >> 3): numbers past 2^31 wrap, and <= 0 is illegal.
  const int32_t number = static_cast<int32_t>(static_cast<uint32_t>(key >> 3));
  if (w == static_cast<uint64_t>(WireType::kEndGroup)) {
    error_ = WireError::kEndGroupForNonGroup;
    return false;
  }
  if (number <= 0) {
    error_ = WireError::kIllegalTag;
    error_field_ = static_cast<uint64_t>(static_cast<int64_t>(number));
    error_wire_type_ = key;
    return false;
  }
  if (w == 6 || w == 7) {
    error_ = WireError::kIllegalWireType;
    error_wire_type_ = w;
    return false;
  }
  field = number;
  wt = static_cast<WireType>(w);
  return true;
}

bool WireReader::ReadFixed32(uint32_t& v) {
  if (data_.size() - pos_ < 4) return Eof();
  uint32_t r = 0;
  for (int i = 3; i >= 0; --i) r = (r << 8) | static_cast<uint8_t>(data_[pos_ + i]);
  pos_ += 4;
  v = r;
  return true;
}

bool WireReader::ReadFixed64(uint64_t& v) {
  if (data_.size() - pos_ < 8) return Eof();
  uint64_t r = 0;
  for (int i = 7; i >= 0; --i) r = (r << 8) | static_cast<uint8_t>(data_[pos_ + i]);
  pos_ += 8;
  v = r;
  return true;
}

bool WireReader::ReadLengthDelimited(std::string_view& out) {
  uint64_t len = 0;
  if (!ReadVarint(len)) return false;
  // Go reads the length into an int: a value with bit 63 set is negative.
  if (static_cast<int64_t>(len) < 0) {
    error_ = WireError::kNegativeLength;
    return false;
  }
  if (len > data_.size() - pos_) return Eof();
  out = data_.substr(pos_, static_cast<size_t>(len));
  pos_ += static_cast<size_t>(len);
  return true;
}

bool WireReader::SkipValue(WireType wt, int depth) {
  switch (wt) {
    case WireType::kVarint: {
      uint64_t ignored;
      return ReadVarint(ignored);
    }
    case WireType::kFixed64:
      if (data_.size() - pos_ < 8) return Eof();
      pos_ += 8;
      return true;
    case WireType::kFixed32:
      if (data_.size() - pos_ < 4) return Eof();
      pos_ += 4;
      return true;
    case WireType::kLengthDelimited: {
      std::string_view ignored;
      return ReadLengthDelimited(ignored);
    }
    case WireType::kStartGroup: {
      if (depth >= kMaxGroupDepth) {
        error_ = WireError::kGroupTooDeep;
        return false;
      }
      // Fields until the matching end-group key.
      for (;;) {
        uint64_t key = 0;
        if (!ReadVarint(key)) return false;
        const uint64_t w = key & 7;
        if (w == static_cast<uint64_t>(WireType::kEndGroup)) return true;
        if (w == 6 || w == 7) {
          error_ = WireError::kIllegalWireType;
          error_wire_type_ = w;
          return false;
        }
        if (!SkipValue(static_cast<WireType>(w), depth + 1)) return false;
      }
    }
    case WireType::kEndGroup:
      error_ = WireError::kUnexpectedEndOfGroup;
      return false;
  }
  error_ = WireError::kIllegalWireType;
  error_wire_type_ = static_cast<uint64_t>(wt);
  return false;
}

std::string WireErrorText(const WireReader& r, std::string_view message) {
  switch (r.error()) {
    case WireError::kNone: return "";
    case WireError::kUnexpectedEof: return "unexpected EOF";
    case WireError::kIntegerOverflow: return "proto: integer overflow";
    case WireError::kNegativeLength: return "proto: negative length found during unmarshaling";
    case WireError::kIllegalTag:
      return "proto: " + std::string(message) + ": illegal tag " +
             std::to_string(static_cast<int64_t>(r.error_field())) + " (wire type " +
             std::to_string(r.error_wire_type()) + ")";
    case WireError::kEndGroupForNonGroup:
      return "proto: " + std::string(message) + ": wiretype end group for non-group";
    case WireError::kIllegalWireType: return "proto: illegal wireType " + std::to_string(r.error_wire_type());
    case WireError::kUnexpectedEndOfGroup: return "proto: unexpected end of group";
    case WireError::kGroupTooDeep: return "proto: groups nested too deeply";
  }
  return "proto: malformed message";
}

Status WireErrorStatus(const WireReader& r, std::string_view message) {
  return Status(400, "BadRequest", WireErrorText(r, message));
}

void AppendFixed32(std::string& out, uint32_t v) {
  char b[4];
  for (int i = 0; i < 4; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  out.append(b, 4);
}

void AppendFixed64(std::string& out, uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  out.append(b, 8);
}

void AppendLengthDelimited(std::string& out, int32_t field, std::string_view bytes) {
  AppendKey(out, field, WireType::kLengthDelimited);
  AppendVarint(out, bytes.size());
  out.append(bytes);
}

size_t BeginLengthDelimited(std::string& out, int32_t field) {
  AppendKey(out, field, WireType::kLengthDelimited);
  out.push_back('\0');
  return out.size();
}

void EndLengthDelimited(std::string& out, size_t mark) {
  const uint64_t len = out.size() - mark;
  const size_t n = VarintSize(len);
  if (n == 1) {
    out[mark - 1] = static_cast<char>(len);
    return;
  }
  // Make room for the longer length: grow, then move the content right by n-1 bytes.
  out.resize(out.size() + n - 1);
  std::memmove(&out[mark + n - 1], &out[mark], static_cast<size_t>(len));
  uint64_t v = len;
  size_t at = mark - 1;
  while (v >= 0x80) {
    out[at++] = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out[at] = static_cast<char>(v);
}

}  // namespace capstan::apimachinery::protobuf
