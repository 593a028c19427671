#include "apimachinery/json_stored.h"

#include <boost/json/parse.hpp>
#include <boost/json/parse_options.hpp>

namespace capstan::apimachinery {

StatusOr<boost::json::value> ParseStoredJson(std::string_view text) {
  boost::json::parse_options opts;
  opts.max_depth = kJsonMaxDepth;
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(text, ec, boost::json::storage_ptr(), opts);
  if (ec) return Status(500, "InternalError", ec.message());
  return v;
}

int JsonDepth(std::string_view text) {
  int depth = 0;
  int max_depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character, whatever it is
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    switch (c) {
      case '"': in_string = true; break;
      case '{':
      case '[':
        if (++depth > max_depth) max_depth = depth;
        break;
      case '}':
      case ']': --depth; break;
      default: break;
    }
  }
  return max_depth;
}

}  // namespace capstan::apimachinery
