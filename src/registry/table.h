// registry/table.h: server-side printing (metav1.Table): kube's default columns (Name, Created At) and
// the helpers resource printers use (AGE as kube prints it). Pure functions.
#pragma once

#include <boost/json/array.hpp>
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "registry/rest.h"

namespace capstan::registry {

std::vector<TableColumn> DefaultTableColumns();
boost::json::array DefaultTableCells(const Object& obj);

// The NAME column definition kube's printers use.
TableColumn NameColumn();
// An AGE column ("date" type would be formatted client-side; kube's printers send a string).
TableColumn AgeColumn();

// kube's duration.HumanDuration: 45s, 5m10s, 3h, 2d, 1y20d...
std::string HumanDuration(std::chrono::seconds d);
// The AGE cell for a RFC 3339 timestamp ("<unknown>" when unset).
std::string TranslateTimestampSince(std::string_view rfc3339);

}  // namespace capstan::registry
