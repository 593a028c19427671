#include "apimachinery/gvk.h"

#include <algorithm>

namespace capstan::apimachinery {

StatusOr<GroupVersion> ParseGroupVersion(std::string_view gv) {
  if (gv.empty() || gv == "/") return GroupVersion{};
  auto slashes = std::count(gv.begin(), gv.end(), '/');
  if (slashes == 0) return GroupVersion{"", std::string(gv)};
  if (slashes == 1) {
    size_t i = gv.find('/');
    return GroupVersion{std::string(gv.substr(0, i)), std::string(gv.substr(i + 1))};
  }
  return Status(400, "BadRequest", "unexpected GroupVersion string: " + std::string(gv));
}

GroupVersionKind FromApiVersionAndKind(std::string_view api_version, std::string_view kind) {
  auto gv = ParseGroupVersion(api_version);
  if (gv.ok()) return {gv->group, gv->version, std::string(kind)};
  return {"", "", std::string(kind)};
}

GroupResource ParseGroupResource(std::string_view s) {
  size_t i = s.find('.');
  if (i == std::string_view::npos) return {"", std::string(s)};
  return {std::string(s.substr(i + 1)), std::string(s.substr(0, i))};
}

GroupKind ParseGroupKind(std::string_view s) {
  size_t i = s.find('.');
  if (i == std::string_view::npos) return {"", std::string(s)};
  return {std::string(s.substr(i + 1)), std::string(s.substr(0, i))};
}

}  // namespace capstan::apimachinery
