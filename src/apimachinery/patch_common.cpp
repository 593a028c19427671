#include "apimachinery/patch_common.h"

#include "apimachinery/errors.h"
#include "apimachinery/json_parse.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace capstan::apimachinery {

int JsonDepth(const boost::json::value& root) {
  int max_depth = 0;
  std::vector<std::pair<const boost::json::value*, int>> stack{{&root, 0}};
  while (!stack.empty()) {
    auto [v, d] = stack.back();
    stack.pop_back();
    max_depth = std::max(max_depth, d);
    if (v->is_object()) {
      for (const auto& kv : v->get_object()) stack.emplace_back(&kv.value(), d + 1);
    } else if (v->is_array()) {
      for (const auto& e : v->get_array()) stack.emplace_back(&e, d + 1);
    }
  }
  return max_depth;
}

StatusOr<boost::json::value> ParsePatchBody(std::string_view body) {
  auto parsed = ParseJsonValue(body);
  if (!parsed.ok()) return NewBadRequest("invalid JSON patch");
  return std::move(parsed).value();
}

Status PatchUnprocessable() {
  Status s(422, "Invalid", "the server rejected our request due to an error in our request");
  s.WithDetails(StatusDetails{});
  return s;
}

Status PatchPlainError(std::string message) { return Status(500, "", std::move(message)); }

}  // namespace capstan::apimachinery
