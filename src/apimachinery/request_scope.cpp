#include "apimachinery/request_scope.h"

#include <algorithm>

namespace capstan {

bool RequestScope::AddAnnotation(const std::string& key, std::string value, AuditLevel level) {
  std::lock_guard lock(mu_);
  auto it = annotations_.find(key);
  if (it != annotations_.end()) return it->second.value == value;
  annotations_.emplace(key, Annotation{std::move(value), level});
  return true;
}

void RequestScope::AddWarning(std::string text) {
  std::lock_guard lock(mu_);
  if (std::find(warnings_.begin(), warnings_.end(), text) != warnings_.end()) return;
  warnings_.push_back(std::move(text));
}

std::map<std::string, RequestScope::Annotation> RequestScope::annotations() const {
  std::lock_guard lock(mu_);
  return annotations_;
}

std::vector<std::string> RequestScope::warnings() const {
  std::lock_guard lock(mu_);
  return warnings_;
}

}  // namespace capstan
