#include "storage/embedded/snapshot_file.h"

#include <openssl/sha.h>

#include <cstring>

#include "storage/embedded/record.h"

namespace capstan::storage::embedded {

namespace {

void PutBigEndian(std::string& out, uint64_t v) {
  for (int i = 7; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t GetBigEndian(std::string_view b) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) v = (v << 8) | static_cast<unsigned char>(b[i]);
  return v;
}

std::string Sha256(std::string_view data) {
  unsigned char md[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), md);
  return std::string(reinterpret_cast<const char*>(md), sizeof(md));
}

Status Bad(std::string msg) { return Status(400, "BadRequest", "invalid snapshot: " + std::move(msg)); }

}  // namespace

std::string EncodeSnapshot(const SnapshotHeader& header, std::string_view payload) {
  std::string out;
  out.reserve(kSnapshotHeaderBytes + payload.size() + kSnapshotChecksumBytes);
  out.append(kSnapshotMagic);
  PutBigEndian(out, static_cast<uint64_t>(kSnapshotFormatVersion));
  PutBigEndian(out, static_cast<uint64_t>(header.revision));
  PutBigEndian(out, static_cast<uint64_t>(header.compact_revision));
  PutBigEndian(out, static_cast<uint64_t>(header.total_keys));
  PutBigEndian(out, payload.size());
  out.append(payload);
  out.append(Sha256(out));
  return out;
}

StatusOr<ParsedSnapshot> ParseSnapshot(std::string_view bytes) {
  if (bytes.size() < kSnapshotMagic.size() || bytes.substr(0, kSnapshotMagic.size()) != kSnapshotMagic) {
    return Bad("not a Capstan snapshot file (it does not start with \"capstan-snapshot\")");
  }
  if (bytes.size() < kSnapshotHeaderBytes + kSnapshotChecksumBytes) {
    return Bad("the file is truncated: " + std::to_string(bytes.size()) + " bytes, shorter than an empty snapshot");
  }
  std::string_view h = bytes.substr(kSnapshotMagic.size());
  const uint64_t version = GetBigEndian(h.substr(0, 8));
  if (version != static_cast<uint64_t>(kSnapshotFormatVersion)) {
    return Bad("format version " + std::to_string(version) + " is not one this Capstan reads (it reads version " +
               std::to_string(kSnapshotFormatVersion) + ")");
  }
  ParsedSnapshot out;
  out.header.revision = static_cast<int64_t>(GetBigEndian(h.substr(8, 8)));
  out.header.compact_revision = static_cast<int64_t>(GetBigEndian(h.substr(16, 8)));
  out.header.total_keys = static_cast<int64_t>(GetBigEndian(h.substr(24, 8)));
  const uint64_t payload_size = GetBigEndian(h.substr(32, 8));
  const uint64_t room = bytes.size() - kSnapshotHeaderBytes - kSnapshotChecksumBytes;
  if (payload_size > room) {
    return Bad("the file is truncated: it holds " + std::to_string(room) + " of the " + std::to_string(payload_size) +
               " data bytes its header announces");
  }
  if (payload_size < room) {
    return Bad(std::to_string(room - payload_size) + " unexpected bytes after the data (the file is damaged)");
  }
  const size_t body = kSnapshotHeaderBytes + payload_size;
  if (Sha256(bytes.substr(0, body)) != bytes.substr(body, kSnapshotChecksumBytes)) {
    return Bad("the SHA-256 checksum does not match: the file is corrupted");
  }
  if (out.header.revision < 1 || out.header.compact_revision < 0 || out.header.compact_revision > out.header.revision ||
      out.header.total_keys < 0) {
    return Bad("the header's revisions are inconsistent");
  }
  out.payload = bytes.substr(kSnapshotHeaderBytes, payload_size);
  out.hash = Crc32c(out.payload);
  return out;
}

}  // namespace capstan::storage::embedded
