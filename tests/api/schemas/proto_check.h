#pragma once

// Checks protobuf-encoded objects against the x-proto description of the built-in schemas,
// without generated code: the Kubernetes envelope (magic "k8s\0" + runtime.Unknown) is opened,
// and the raw message is walked with a generic wire reader. Every field number must be a field of
// its message (per docs/schema-format.md: properties' x-proto, x-proto-embedded, or the
// definition's x-proto-message fields) with a compatible wire type, recursively into nested
// messages, map entries and repeated fields; fields must come in ascending number order, as Go's
// generated marshalers write them. Stateless; thread-safe.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/schemas/schema_index.h"

namespace capstan::api::testing {

struct Envelope {
  std::string api_version;
  std::string kind;
  std::string_view raw;
  std::string content_encoding;
  std::string content_type;
};

// Splits "k8s\0" + runtime.Unknown. Returns the problems found (empty: *out is filled).
std::vector<std::string> OpenEnvelope(std::string_view data, Envelope* out);

// Walks one encoded message of `definition`. Returns one message per disagreement.
std::vector<std::string> CheckProtoAgainstSchema(const SchemaIndex& index, const std::string& definition,
                                                 std::string_view message);

// One protobuf field of a message, as the schema describes it.
struct ProtoField {
  std::string name;       // JSON property name, or the x-proto-message field name
  std::string type;       // string bytes bool int32 int64 uint32 uint64 float double message map
  bool repeated = false;
  std::string ref;        // message: its definition
  std::string key;        // map: key type
  std::string value;      // map: value type
  std::string value_ref;  // map with message values: their definition
};

// The fields of a definition's message by number; problems in the description go to *errors.
std::map<uint32_t, ProtoField> ProtoFieldsOf(const SchemaIndex& index, const std::string& definition,
                                             std::vector<std::string>* errors);

}  // namespace capstan::api::testing
