// endpoints/apply.h: server-side apply requests (PATCH with application/apply-patch+yaml) and the
// field manager name of every write.
//
// An apply body (YAML or JSON) is an apply configuration: it must name the endpoint's apiVersion and
// carry no managedFields; fieldManager is required; force=true takes conflicting fields from their
// managers. The configuration is merged into the live object with apimachinery/managedfields (a
// missing object is created, 201), and what comes out goes through the Store like any update. A Scope
// lives on the request's coroutine; these functions are otherwise stateless.
#pragma once

#include <string>
#include <string_view>

#include "endpoints/scope.h"
#include "util/task.h"

namespace capstan::endpoints {

// Handles a PATCH whose Content-Type is application/apply-patch+yaml.
Task<void> HandleApplyPatch(Scope& s);

// kube's manager name for a write: fieldManager when given, else the user agent's product (what
// precedes the first "/", printable characters only, at most 128 bytes).
std::string ManagerOrUserAgent(const std::string& field_manager, std::string_view user_agent);

}  // namespace capstan::endpoints
