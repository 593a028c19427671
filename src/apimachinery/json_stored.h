// apimachinery/json_stored.h: JSON this server wrote itself (stored objects, watch-cache entries,
// serialized list items) read back under the same nesting limit as request bodies.
//
// kube decodes request bodies and stored objects with one decoder (Go's encoding/json, 10000 levels),
// so an object a write accepted is always readable. Capstan parses request bodies with ParseJson
// (Go's texts and rules) and re-reads its own bytes with Boost.JSON's faster parser; both use
// kJsonMaxDepth. Boost.JSON's default limit (32 levels) must never be used on stored bytes: real
// CRDs (cert-manager's, Argo CD's) nest deeper than that.
//
// The server adds fields on write (metadata.managedFields mirrors the object's own nesting), so a
// stored object can be a few levels deeper than the body it came from. JsonDepth lets the storage
// layer refuse such a write instead of acknowledging bytes no read could decode.
// Thread-safe (no shared state).
#pragma once

#include <boost/json/value.hpp>
#include <string_view>

#include "apimachinery/json_parse.h"
#include "apimachinery/status.h"

namespace capstan::apimachinery {

// Parses bytes the server serialized itself, with max depth kJsonMaxDepth. A failure is a 500
// InternalError whose message is Boost.JSON's (the caller adds where the bytes came from).
StatusOr<boost::json::value> ParseStoredJson(std::string_view text);

// The nesting depth of a serialized JSON text (0 for a scalar, 1 for {} or []), counting brackets
// outside strings. The text is assumed well formed (it is the server's own serialization).
int JsonDepth(std::string_view text);

}  // namespace capstan::apimachinery
