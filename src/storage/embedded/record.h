// storage/embedded/record.h: the bytes the embedded store writes: revision keys, history records and
// the small integers of the meta table. docs/storage-format.md describes the layout in full.
//
// A revision key is 12 bytes, the main revision (8 bytes big-endian) then the sub revision (4 bytes
// big-endian), so LMDB's byte order is revision order. A history record carries one change of one
// key: a CRC-32C of the rest, a flags byte (format version, tombstone), the key, create_revision,
// version and lease (varints). A put's value is a separate CRC-prefixed entry under the same revision
// key. Decoding checks every length and checksum, so a corrupted record is a Status, never a crash.
//
// Thread-safety: pure functions on values.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "apimachinery/status.h"

namespace capstan::storage::embedded {

// One change's position in history: the store revision and its index within that revision's txn.
struct Revision {
  int64_t main = 0;
  int32_t sub = 0;
  auto operator<=>(const Revision&) const = default;
  bool operator==(const Revision&) const = default;
};

inline constexpr size_t kRevisionKeySize = 12;

std::string EncodeRevisionKey(Revision r);
StatusOr<Revision> DecodeRevisionKey(std::string_view bytes);

// The header of one change (the "history" table); the value of a put is stored apart (the "values"
// table, see EncodeValue) so that opening the store reads only the small headers. Views point into
// the decoded buffer (an LMDB page while its txn is open).
struct Record {
  bool tombstone = false;
  std::string_view key;
  int64_t create_revision = 0;
  int64_t version = 0;
  int64_t lease = 0;
};

std::string EncodeRecord(const Record& r);
StatusOr<Record> DecodeRecord(std::string_view bytes, bool verify_checksum = true);

// A value with its CRC-32C in front.
std::string EncodeValue(std::string_view value);
StatusOr<std::string_view> DecodeValue(std::string_view bytes);

// Fixed 8-byte big-endian integers (meta values, lease ids as keys).
std::string EncodeFixed64(int64_t v);
StatusOr<int64_t> DecodeFixed64(std::string_view bytes);

uint32_t Crc32c(std::string_view data);

}  // namespace capstan::storage::embedded
