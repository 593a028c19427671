#include "storage/embedded/record.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace capstan::storage::embedded {
namespace {

constexpr uint8_t kFormatV1 = 0x10;   // high nibble: record format version
constexpr uint8_t kTombstone = 0x01;  // low bits: flags
constexpr size_t kCrcSize = 4;

Status Corrupt(std::string_view what) {
  return Status::Storage(StorageCode::kInternal, "embedded store: corrupt record: " + std::string(what));
}

void PutVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

bool GetVarint(std::string_view& in, uint64_t& v) {
  v = 0;
  for (int shift = 0; shift <= 63; shift += 7) {
    if (in.empty()) return false;
    uint8_t b = static_cast<uint8_t>(in.front());
    in.remove_prefix(1);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

bool GetNonNegative(std::string_view& in, int64_t& out) {
  uint64_t v;
  if (!GetVarint(in, v) || v > static_cast<uint64_t>(INT64_MAX)) return false;
  out = static_cast<int64_t>(v);
  return true;
}

std::array<uint32_t, 256> MakeCrcTable() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    t[i] = c;
  }
  return t;
}

uint32_t Crc32cSoftware(std::string_view data) {
  static const std::array<uint32_t, 256> table = MakeCrcTable();
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : data) c = table[(c ^ b) & 0xff] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t Crc32cHardware(std::string_view data) {
  uint64_t c = 0xFFFFFFFFu;
  const char* p = data.data();
  size_t n = data.size();
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    c = _mm_crc32_u64(c, w);
    p += 8;
    n -= 8;
  }
  uint32_t c32 = static_cast<uint32_t>(c);
  while (n-- > 0) c32 = _mm_crc32_u8(c32, static_cast<uint8_t>(*p++));
  return c32 ^ 0xFFFFFFFFu;
}
#endif

}  // namespace

uint32_t Crc32c(std::string_view data) {
#if defined(__x86_64__)
  static const bool hw = __builtin_cpu_supports("sse4.2");
  if (hw) return Crc32cHardware(data);
#endif
  return Crc32cSoftware(data);
}

std::string EncodeRevisionKey(Revision r) {
  std::string out(kRevisionKeySize, '\0');
  uint64_t m = static_cast<uint64_t>(r.main);
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(m >> (56 - 8 * i));
  uint32_t s = static_cast<uint32_t>(r.sub);
  for (int i = 0; i < 4; ++i) out[8 + i] = static_cast<char>(s >> (24 - 8 * i));
  return out;
}

StatusOr<Revision> DecodeRevisionKey(std::string_view b) {
  if (b.size() != kRevisionKeySize) return Corrupt("revision key of " + std::to_string(b.size()) + " bytes");
  uint64_t m = 0;
  for (int i = 0; i < 8; ++i) m = (m << 8) | static_cast<uint8_t>(b[i]);
  uint32_t s = 0;
  for (int i = 0; i < 4; ++i) s = (s << 8) | static_cast<uint8_t>(b[8 + i]);
  if (m > static_cast<uint64_t>(INT64_MAX) || s > static_cast<uint32_t>(INT32_MAX)) return Corrupt("revision out of range");
  return Revision{static_cast<int64_t>(m), static_cast<int32_t>(s)};
}

std::string EncodeRecord(const Record& r) {
  std::string out(kCrcSize, '\0');
  out.reserve(kCrcSize + 1 + 30 + r.key.size());
  out.push_back(static_cast<char>(kFormatV1 | (r.tombstone ? kTombstone : 0)));
  PutVarint(out, r.key.size());
  out.append(r.key);
  PutVarint(out, static_cast<uint64_t>(r.create_revision));
  PutVarint(out, static_cast<uint64_t>(r.version));
  PutVarint(out, static_cast<uint64_t>(r.lease));
  uint32_t crc = Crc32c(std::string_view(out).substr(kCrcSize));
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>(crc >> (8 * i));
  return out;
}

StatusOr<Record> DecodeRecord(std::string_view bytes, bool verify_checksum) {
  if (bytes.size() < kCrcSize + 1) return Corrupt("truncated");
  uint32_t want = 0;
  for (int i = 0; i < 4; ++i) want |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[i])) << (8 * i);
  std::string_view body = bytes.substr(kCrcSize);
  if (verify_checksum && Crc32c(body) != want) return Corrupt("checksum mismatch");
  uint8_t flags = static_cast<uint8_t>(body.front());
  body.remove_prefix(1);
  if ((flags & 0xF0) != kFormatV1) return Corrupt("unknown record format " + std::to_string(flags >> 4));
  if (flags & ~(0xF0 | kTombstone)) return Corrupt("unknown flags");
  Record r;
  r.tombstone = flags & kTombstone;
  uint64_t key_len;
  if (!GetVarint(body, key_len) || key_len > body.size()) return Corrupt("bad key length");
  r.key = body.substr(0, key_len);
  body.remove_prefix(key_len);
  if (!GetNonNegative(body, r.create_revision) || !GetNonNegative(body, r.version) ||
      !GetNonNegative(body, r.lease)) {
    return Corrupt("bad header");
  }
  if (!body.empty()) return Corrupt("trailing bytes");
  if (r.key.empty()) return Corrupt("empty key");
  return r;
}

std::string EncodeValue(std::string_view value) {
  std::string out(kCrcSize, '\0');
  out.reserve(kCrcSize + value.size());
  out.append(value);
  uint32_t crc = Crc32c(value);
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>(crc >> (8 * i));
  return out;
}

StatusOr<std::string_view> DecodeValue(std::string_view bytes) {
  if (bytes.size() < kCrcSize) return Corrupt("truncated value");
  uint32_t want = 0;
  for (int i = 0; i < 4; ++i) want |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[i])) << (8 * i);
  std::string_view value = bytes.substr(kCrcSize);
  if (Crc32c(value) != want) return Corrupt("value checksum mismatch");
  return value;
}

std::string EncodeFixed64(int64_t v) {
  std::string out(8, '\0');
  uint64_t u = static_cast<uint64_t>(v);
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(u >> (56 - 8 * i));
  return out;
}

StatusOr<int64_t> DecodeFixed64(std::string_view b) {
  if (b.size() != 8) return Corrupt("fixed64 of " + std::to_string(b.size()) + " bytes");
  uint64_t u = 0;
  for (int i = 0; i < 8; ++i) u = (u << 8) | static_cast<uint8_t>(b[i]);
  return static_cast<int64_t>(u);
}

}  // namespace capstan::storage::embedded
