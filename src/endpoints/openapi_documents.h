// endpoints/openapi_documents.h: the serialized OpenAPI documents of the live API, cached per
// ApiRegistry snapshot.
//
// The documents are built from the snapshot the registry holds when one is asked for, and kept
// with that snapshot: while the snapshot is unchanged every request is served the same bytes (and
// ETag); when it changes (a CRD comes or goes) the next request rebuilds. The v2 document is one
// whole; the v3 documents are rebuilt per service only where the service changed (a service's
// fingerprint: its resources, their kinds, verbs and schemas), so adding a custom resource
// re-serializes its group's document and the index, not every document. ETags are kube's: the
// upper-case hex SHA-512 of the JSON bytes.
//
// Definitions come from the built-in SchemaRegistry, and, for a resource whose definition the
// registry lacks (a custom resource), from the resource's own schema in the snapshot.
//
// Thread-safety: all methods may be called from any thread; readers take no lock once a snapshot's
// documents exist (atomic shared_ptr), builders serialize on a mutex.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "apimachinery/schema_registry.h"
#include "endpoints/api_registry.h"
#include "endpoints/openapi_v2.h"

namespace capstan::endpoints {

struct OpenApiDocument {
  std::string json;  // the document's bytes
  std::string etag;  // upper-case hex SHA-512 of `json` (unquoted)
  std::chrono::system_clock::time_point modified;

  // The protobuf form (v2 only), made on first use; see OpenApiDocuments::V2Protobuf.
  mutable std::once_flag proto_once;
  mutable std::string proto;
};

// Upper-case hex SHA-512 of `data`.
std::string OpenApiEtag(std::string_view data);

class OpenApiDocuments {
 public:
  OpenApiDocuments(const ApiRegistry& apis, const apimachinery::SchemaRegistry* schemas, OpenApiInfo info)
      : apis_(apis), schemas_(schemas), info_(std::move(info)) {}

  // /openapi/v2.
  std::shared_ptr<const OpenApiDocument> V2();
  // The protobuf form of a document V2() returned (openapi_proto.h), made once per document.
  static const std::string& V2Protobuf(const OpenApiDocument& v2);
  // /openapi/v3: the index.
  std::shared_ptr<const OpenApiDocument> V3Index();
  // /openapi/v3/<root>; nullptr when the snapshot has no such service.
  std::shared_ptr<const OpenApiDocument> V3(std::string_view root);

  struct Stats {
    uint64_t v2_builds = 0;       // v2 documents serialized
    uint64_t v3_builds = 0;       // v3 service documents serialized
    uint64_t v3_index_builds = 0;  // v3 indexes serialized
  };
  Stats stats() const;

 private:
  struct V2State {
    std::shared_ptr<const ApiSnapshot> snapshot;
    std::shared_ptr<const OpenApiDocument> doc;
  };
  struct V3Entry {
    std::string fingerprint;
    std::shared_ptr<const OpenApiDocument> doc;
  };
  struct V3State {
    std::shared_ptr<const ApiSnapshot> snapshot;
    std::map<std::string, V3Entry, std::less<>> docs;  // by root
    std::shared_ptr<const OpenApiDocument> index;
  };

  std::shared_ptr<const V3State> CurrentV3();

  const ApiRegistry& apis_;
  const apimachinery::SchemaRegistry* schemas_;
  const OpenApiInfo info_;

  std::mutex build_mu_;
  std::shared_ptr<const V2State> v2_;  // atomic_load/atomic_store
  std::shared_ptr<const V3State> v3_;  // atomic_load/atomic_store
  std::atomic<uint64_t> v2_builds_{0}, v3_builds_{0}, v3_index_builds_{0};
};

}  // namespace capstan::endpoints
