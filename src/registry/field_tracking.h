// registry/field_tracking.h: the Store's side of server-side apply: every create and update records
// its writer in metadata.managedFields (apimachinery/managedfields), after the strategy prepared the
// object, so defaulted fields belong to the writer and reset fields to no one, as in kube. The writer
// is Context::field_manager (the endpoints put the fieldManager parameter or the user agent's product
// there); with none (in-process writes, or an apply that did its own bookkeeping) ownership is kept
// as the object carries it. Pure functions; thread-safe.
#pragma once

#include <string>

#include "registry/rest.h"
#include "registry/store.h"

namespace capstan::registry {

// Updates obj's managedFields for a write of it over `live` (null: a create). `requested`: the
// managedFields the write carried before the strategy prepared it (a status strategy that copies the
// stored metadata must not undo them), as RequestedManagedFields returned; null: obj's own.
void TrackManagedFields(const StoreConfig& c, const Context& ctx, const Object* live, Object& obj,
                        const std::string& now, const boost::json::value* requested = nullptr);

// The managedFields an object carries (null when none), to hand to TrackManagedFields.
boost::json::value RequestedManagedFields(const Object& obj);

}  // namespace capstan::registry
