#include "apimachinery/status.h"


namespace capstan {

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string s = std::to_string(code_) + " " + reason_ + ": " + message_;
  return s;
}

}  // namespace capstan
