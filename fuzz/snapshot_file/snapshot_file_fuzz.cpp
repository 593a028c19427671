// snapshot_file_fuzz: arbitrary bytes as a snapshot file (storage/embedded/snapshot_file.h). Whatever
// the input, ParseSnapshot answers without crashing; what it accepts is exactly what EncodeSnapshot
// writes for the parsed header and payload, and its payload lies inside the input.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "storage/embedded/snapshot_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace capstan::storage::embedded;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto parsed = ParseSnapshot(bytes);
  if (!parsed.ok()) {
    if (parsed.status().message().empty()) std::abort();
    return 0;
  }
  if (parsed->payload.data() < bytes.data() || parsed->payload.data() + parsed->payload.size() > bytes.data() + size) {
    std::abort();
  }
  if (EncodeSnapshot(parsed->header, parsed->payload) != bytes) std::abort();
  return 0;
}
