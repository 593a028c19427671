// The Backend conformance suite against the embedded LMDB store.
#include "storage/embedded/embedded_backend.h"
#include "storage_conformance/backend_conformance.h"

namespace capstan::storage::conformance {
namespace {

BackendFactory EmbeddedFactory() {
  BackendFactory f;
  f.name = "Embedded";
  f.open = [](const std::string& dir) -> StatusOr<std::unique_ptr<Backend>> {
    EmbeddedOptions o;
    o.dir = dir;
    o.quota_bytes = 256LL << 20;
    return OpenEmbeddedBackend(o);
  };
  f.can_restart = true;
  f.lease_ttl = 1;
  return f;
}

INSTANTIATE_TEST_SUITE_P(Embedded, BackendConformance, ::testing::Values(EmbeddedFactory()), BackendFactoryName);

}  // namespace
}  // namespace capstan::storage::conformance
