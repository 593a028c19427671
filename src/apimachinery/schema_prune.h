// apimachinery/schema_prune.h: kube's structural pruning. Removes every object field the schema does
// not specify, except under x-kubernetes-preserve-unknown-fields (which keeps unknown fields but
// still prunes inside specified properties and additionalProperties), and except apiVersion, kind
// and metadata of an embedded resource (x-kubernetes-embedded-resource) and of the resource root.
// Root metadata is not pruned by the schema (kube coerces ObjectMeta separately).
//
// It returns the pruned paths in kube's form and order (sorted), e.g. "spec.foo" or
// "spec.containers[0].bar", which the server turns into fieldValidation=Warn/Strict answers with
// UnknownFieldMessage. Mutates the value in place; the schema is only read. Thread-compatible.
#pragma once

#include <boost/json/value.hpp>
#include <string>
#include <vector>

#include "apimachinery/schema.h"

namespace capstan::apimachinery {

// kube's PruneWithOptions. `schema` may be null (everything but the root meta fields is unknown).
std::vector<std::string> PruneBySchema(boost::json::value& value, const Schema* schema, bool is_resource_root = true);

// `unknown field "spec.foo"`, the strict-decoding text for one pruned path.
std::string UnknownFieldMessage(const std::string& path);

}  // namespace capstan::apimachinery
