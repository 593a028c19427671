#include "api/schemas/wire_reader.h"

#include <utility>

namespace capstan::api::testing {

bool WireReader::ReadVarint(std::string_view data, size_t* pos, uint64_t* value) {
  uint64_t result = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (*pos >= data.size()) return false;
    uint8_t b = static_cast<uint8_t>(data[(*pos)++]);
    result |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      *value = result;
      return true;
    }
  }
  return false;
}

bool WireReader::Fail(std::string message) {
  error_ = std::move(message) + " at offset " + std::to_string(pos_);
  return false;
}

bool WireReader::Next(WireField* out) {
  if (!error_.empty() || pos_ >= data_.size()) return false;
  uint64_t key = 0;
  if (!ReadVarint(data_, &pos_, &key)) return Fail("truncated field key");
  uint64_t number = key >> 3;
  if (number == 0 || number > 0x1fffffff) return Fail("invalid field number " + std::to_string(number));
  out->number = static_cast<uint32_t>(number);
  out->type = static_cast<WireType>(key & 7);
  out->varint = 0;
  out->payload = {};
  switch (out->type) {
    case WireType::kVarint:
      if (!ReadVarint(data_, &pos_, &out->varint)) return Fail("truncated varint");
      return true;
    case WireType::kFixed64:
    case WireType::kFixed32: {
      size_t n = out->type == WireType::kFixed64 ? 8 : 4;
      if (data_.size() - pos_ < n) return Fail("truncated fixed-width value");
      uint64_t v = 0;
      for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(data_[pos_ + i])) << (8 * i);
      out->varint = v;
      pos_ += n;
      return true;
    }
    case WireType::kLen: {
      uint64_t len = 0;
      if (!ReadVarint(data_, &pos_, &len)) return Fail("truncated length");
      if (len > data_.size() - pos_) return Fail("length " + std::to_string(len) + " past the end");
      out->payload = data_.substr(pos_, static_cast<size_t>(len));
      pos_ += static_cast<size_t>(len);
      return true;
    }
    default:
      return Fail("unsupported wire type " + std::to_string(static_cast<int>(out->type)));
  }
}

}  // namespace capstan::api::testing
