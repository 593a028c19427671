// apimachinery/managedfields/field_manager.h: server-side apply's field manager (kube's
// fieldmanager over structured-merge-diff), written for Capstan's JSON objects.
//
// RecordUpdate runs on every create, update and non-apply patch: the fields the write added or
// changed become the writer's (one "Update" entry per manager, apiVersion and subresource, its time
// renewed only when it gains fields), others lose what was changed or removed, and fields of objects
// that were never tracked stay untracked until the first apply. A request may replace managedFields
// wholesale (kept when they decode) or clear them ([{}]). Apply merges an apply configuration into the
// live object (null: create by apply), makes the applier own exactly the configuration's fields,
// removes fields the applier owned before and no longer applies when no one else owns them, and
// fails with kube's 409 listing each conflicting field and manager unless forced (forcing takes the
// fields from their owners). apiVersion, kind and the server-set metadata are never owned; the status
// of a resource with a status subresource is owned only through it, and that subresource owns only
// status. Pure functions; thread-safe.
#pragma once

#include <boost/json/object.hpp>
#include <string>

#include "apimachinery/managedfields/managed_fields.h"
#include "apimachinery/managedfields/typed.h"
#include "apimachinery/schema.h"
#include "apimachinery/status.h"

namespace capstan::apimachinery::managedfields {

// Fields a write through this endpoint cannot own (kube's strategies' reset fields).
enum class ResetScope {
  kNone,          // no status subresource: every field
  kStatus,        // the main resource of a kind with a status subresource: all but status
  kAllButStatus,  // the status subresource: status (and metadata) only
};

struct FieldManagerScope {
  const Schema* schema = nullptr;  // the kind's schema; null: every field is deduced from the value
  std::string api_version;         // recorded in Update entries, e.g. "apps/v1"
  std::string subresource;         // "" or "status"
  ResetScope reset = ResetScope::kNone;
  // The empty object a create is compared against (kube compares against the zero value of the Go
  // type, so fields a create leaves at their zero value are not owned). Null: {}.
  const boost::json::object* empty_object = nullptr;
};

// The zero value of a built-in kind as kube's Go types write it (non-pointer structs as {}, non-omitempty
// slices, maps and pointers as null): what a create of a built-in kind is compared against. Cached per
// schema; only for schemas that live as long as the process (the built-in ones). Thread-safe.
const boost::json::object& GoZeroObject(const Schema* schema);

// The most Update managers kept; older ones merge into "ancient-changes" (kube's cap).
inline constexpr size_t kMaxUpdateManagers = 10;

// Records a write by `manager` in `obj`'s managedFields. `live`: the stored object (null: a create).
void RecordUpdate(const FieldManagerScope& scope, const boost::json::object* live, boost::json::object& obj,
                  const std::string& manager, const std::string& now);

// The object an apply of `config` by `manager` writes. `live`: the stored object (null: create).
StatusOr<boost::json::object> Apply(const FieldManagerScope& scope, const boost::json::object* live,
                                    const boost::json::object& config, const std::string& manager, bool force,
                                    const std::string& now);

// kube's 409 for apply conflicts, one cause per field.
Status ConflictError(const std::vector<std::pair<ManagerId, Path>>& conflicts);

}  // namespace capstan::apimachinery::managedfields
