// A small protobuf text-format reader for the cel-spec conformance files: messages are trees of
// named fields whose values are scalars (strings unescaped, numbers and enums as written) or nested
// messages. Enough for SimpleTestFile; not a general implementation.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace capstan::cel::testing {

struct TextNode {
  std::string name;
  bool is_message = false;
  std::string scalar;      // unescaped string contents, or the token as written
  bool is_string = false;  // the scalar was a quoted string
  std::vector<TextNode> fields;

  const TextNode* Get(std::string_view n) const {
    for (const auto& f : fields) {
      if (f.name == n) return &f;
    }
    return nullptr;
  }
  std::vector<const TextNode*> All(std::string_view n) const {
    std::vector<const TextNode*> out;
    for (const auto& f : fields) {
      if (f.name == n) out.push_back(&f);
    }
    return out;
  }
};

// Parses a whole file into a root message node; false with `err` set on a syntax error.
bool ParseTextProto(std::string_view text, TextNode& root, std::string& err);

}  // namespace capstan::cel::testing
