#include "controllers/volumeprotection/finalizer_util.h"

#include <algorithm>

#include "apimachinery/object_meta.h"

namespace capstan::controllers {

namespace am = capstan::apimachinery;

Mutation AddFinalizerMutation(std::string_view finalizer) {
  return [f = std::string(finalizer)](Object& obj) -> StatusOr<bool> {
    if (am::GetDeletionTimestamp(obj)) return false;
    auto list = am::GetFinalizers(obj);
    if (std::find(list.begin(), list.end(), f) != list.end()) return false;
    list.push_back(f);
    am::SetFinalizers(obj, list);
    return true;
  };
}

Mutation RemoveFinalizerMutation(std::string_view finalizer) {
  return [f = std::string(finalizer)](Object& obj) -> StatusOr<bool> {
    auto list = am::GetFinalizers(obj);
    auto it = std::remove(list.begin(), list.end(), f);
    if (it == list.end()) return false;
    list.erase(it, list.end());
    am::SetFinalizers(obj, list);
    return true;
  };
}

}  // namespace capstan::controllers
