// flowcontrol/rules.h: which FlowSchema a request matches (kube's rule.go), the flow it belongs to,
// and the hash that shuffle-shards that flow onto queues. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "flowcontrol/config.h"

namespace capstan::flowcontrol {

// True when some rule of the schema matches: a subject (User name or "*", Group name or "*",
// ServiceAccount namespace/name, name "*" for every account of the namespace) and, for a resource
// request, a resource rule (verb, apiGroup, resource or "resource/subresource", and the namespace,
// or clusterScope for a cluster-scoped request), for a non-resource request a non-resource rule
// (verb, and the path: "*", the exact path, or a prefix "/x/*"; "/x" matches "/x/..." as well).
bool MatchesFlowSchema(const RequestDigest& digest, const FlowSchema& schema);

// The flow distinguisher: the user name (ByUser), the namespace (ByNamespace), or "".
std::string FlowDistinguisher(const RequestDigest& digest, Distinguisher method);

// kube's hashFlowID: the first 8 bytes (little endian) of sha256(schema name, 0x00, distinguisher).
uint64_t HashFlowId(const std::string& schema_name, const std::string& distinguisher);

}  // namespace capstan::flowcontrol
