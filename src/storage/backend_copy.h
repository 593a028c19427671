// storage/backend_copy.h: copies every key under a prefix from one Backend to another, byte for byte
// (`capstan migrate`, cmd/migrate_command.h). Both backends hold values in the same format
// (storage_codec.h, then the transformer, whose authenticated data is the key, which is kept), so the
// copy is served as it was.
//
// The source is read at one revision (the first page's), in pages; the target must hold nothing under
// the prefix (else kKeyExists: a copy never overwrites). Keys go in batches of puts, one transaction
// each. Keys attached to a lease get a lease of the same TTL in the target (one per source lease); keys
// whose lease has expired are left out, as the source would delete them. The target's revisions are
// its own: resourceVersions change, as after an etcd restore, and clients relist when their watches
// end with 410. Blocking; run from a command, not from an I/O thread.
#pragma once

#include <cstdint>
#include <string>

#include "apimachinery/status.h"
#include "storage/backend.h"

namespace capstan::storage {

struct CopyStats {
  int64_t keys = 0;
  int64_t bytes = 0;           // keys and values
  int64_t leases = 0;          // leases granted in the target
  int64_t expired_keys = 0;    // left out: their lease had expired
  int64_t source_revision = 0;
  int64_t target_revision = 0;  // after the copy
};

StatusOr<CopyStats> CopyKeys(Backend& from, Backend& to, const std::string& prefix);

}  // namespace capstan::storage
