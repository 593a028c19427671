#include "registry/table.h"

#include "apimachinery/object_meta.h"
#include "apimachinery/time_util.h"

namespace capstan::registry {

namespace am = capstan::apimachinery;

namespace {
constexpr const char* kNameDescription =
    "Name must be unique within a namespace. Is required when creating resources, although some resources may allow "
    "a client to request the generation of an appropriate name automatically. Name is primarily intended for creation "
    "idempotence and configuration definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
constexpr const char* kCreationDescription =
    "CreationTimestamp is a timestamp representing the server time when this object was created. It is not "
    "guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is "
    "represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
}  // namespace

TableColumn NameColumn() { return {"Name", "string", "name", kNameDescription, 0}; }
TableColumn AgeColumn() { return {"Age", "string", "", kCreationDescription, 0}; }

std::vector<TableColumn> DefaultTableColumns() {
  return {NameColumn(), {"Created At", "date", "", kCreationDescription, 0}};
}

boost::json::array DefaultTableCells(const Object& obj) {
  boost::json::array cells;
  cells.push_back(boost::json::value(am::GetName(obj)));
  cells.push_back(boost::json::value(am::GetCreationTimestamp(obj)));
  return cells;
}

std::string HumanDuration(std::chrono::seconds d) {
  int64_t s = d.count();
  if (s < -1) return "<invalid>";
  if (s < 0) return "0s";
  if (s < 60 * 2) return std::to_string(s) + "s";
  int64_t minutes = s / 60;
  if (minutes < 10) {
    int64_t rem = s % 60;
    return rem == 0 ? std::to_string(minutes) + "m" : std::to_string(minutes) + "m" + std::to_string(rem) + "s";
  }
  if (minutes < 60 * 3) return std::to_string(minutes) + "m";
  int64_t hours = minutes / 60;
  if (hours < 8) {
    int64_t rem = minutes % 60;
    return rem == 0 ? std::to_string(hours) + "h" : std::to_string(hours) + "h" + std::to_string(rem) + "m";
  }
  if (hours < 48) return std::to_string(hours) + "h";
  if (hours < 24 * 8) {
    int64_t rem = hours % 24;
    return rem == 0 ? std::to_string(hours / 24) + "d" : std::to_string(hours / 24) + "d" + std::to_string(rem) + "h";
  }
  if (hours < 24 * 365 * 2) return std::to_string(hours / 24) + "d";
  if (hours < 24 * 365 * 8) {
    int64_t dy = (hours / 24) % 365;
    return dy == 0 ? std::to_string(hours / 24 / 365) + "y"
                   : std::to_string(hours / 24 / 365) + "y" + std::to_string(dy) + "d";
  }
  return std::to_string(hours / 24 / 365) + "y";
}

std::string TranslateTimestampSince(std::string_view rfc3339) {
  if (rfc3339.empty()) return "<unknown>";
  auto t = am::ParseRfc3339(rfc3339);
  if (!t.ok()) return "<unknown>";
  auto since = std::chrono::system_clock::now() - t->ToTimePoint();
  return HumanDuration(std::chrono::duration_cast<std::chrono::seconds>(since));
}

}  // namespace capstan::registry
