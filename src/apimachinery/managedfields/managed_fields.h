// apimachinery/managedfields/managed_fields.h: metadata.managedFields as server-side apply reads and
// writes it: one entry per manager identity (manager, operation, subresource, and for Update entries
// the apiVersion), its field set, and the time it last changed. Decoding checks what kube checks
// (operation Apply or Update, apiVersion set, fieldsType FieldsV1); encoding writes kube's field order
// and sorts entries as kube does (operation, time, manager, apiVersion, subresource). Values;
// thread-compatible.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "apimachinery/managedfields/field_set.h"
#include "apimachinery/status.h"

namespace capstan::apimachinery::managedfields {

struct ManagerId {
  std::string manager;
  std::string operation;    // "Apply" or "Update"
  std::string api_version;  // empty for Apply: an applier is one manager across versions
  std::string subresource;
  // kube's manager identifier: the entry's JSON without fields and time.
  std::string Identifier() const;
  bool operator<(const ManagerId& o) const {
    return std::tie(manager, operation, api_version, subresource) <
           std::tie(o.manager, o.operation, o.api_version, o.subresource);
  }
  bool operator==(const ManagerId& o) const = default;
};

struct ManagedEntry {
  FieldSet fields;
  std::string api_version;
  std::optional<std::string> time;  // RFC 3339
};

using Managers = std::map<ManagerId, ManagedEntry>;

// Reads metadata.managedFields (absent or null: none). Errors name the entry as kube's do.
StatusOr<Managers> DecodeManagedFields(const boost::json::value* managed_fields);
// The managedFields array, entries in kube's order (empty when there are no managers).
boost::json::array EncodeManagedFields(const Managers& m);
// A request asks to clear managedFields: an empty list or a list of one empty entry.
bool IsResetManagedFields(const boost::json::value* managed_fields);
// How kube names a manager in conflict messages: "name" [with subresource "s"] [using apps/v1].
std::string DescribeManager(const ManagerId& id);

}  // namespace capstan::apimachinery::managedfields
