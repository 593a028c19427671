#include "audit/request_scope.h"

namespace capstan::audit {

bool RequestScope::AddAnnotation(const std::string& key, std::string value, Level level) {
  std::lock_guard lock(mu_);
  auto it = annotations_.find(key);
  if (it != annotations_.end()) return it->second.value == value;
  annotations_.emplace(key, Annotation{std::move(value), level});
  return true;
}

void RequestScope::AddWarning(std::string text) {
  std::lock_guard lock(mu_);
  for (const auto& w : warnings_) {
    if (w == text) return;
  }
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

void RequestScopes::Register(const void* key, RequestScope* scope) {
  std::lock_guard lock(mu_);
  scopes_[key] = scope;
}

void RequestScopes::Unregister(const void* key) {
  std::lock_guard lock(mu_);
  scopes_.erase(key);
}

RequestScope* RequestScopes::Find(const void* key) const {
  if (!key) return nullptr;
  std::lock_guard lock(mu_);
  auto it = scopes_.find(key);
  return it == scopes_.end() ? nullptr : it->second;
}

size_t RequestScopes::size() const {
  std::lock_guard lock(mu_);
  return scopes_.size();
}

}  // namespace capstan::audit
