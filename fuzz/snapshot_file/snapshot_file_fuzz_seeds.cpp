// Writes the snapshot_file_fuzz seed corpus: whole snapshots (empty and small payloads), so the fuzzer
// starts from files that pass the checksum and mutates from there.
#include <cstdio>
#include <fstream>
#include <string>

#include "storage/embedded/snapshot_file.h"

int main(int argc, char** argv) {
  using namespace capstan::storage::embedded;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  int n = 0;
  for (const std::string payload : {std::string(), std::string("x"), std::string(300, '\x5a')}) {
    std::ofstream(dir + "/seed-" + std::to_string(n++), std::ios::binary) << EncodeSnapshot({7, 3, 2}, payload);
  }
  return 0;
}
