#include "server/http/headers.h"

#include <algorithm>

#include "util/strings.h"

namespace capstan::http {

std::string_view Headers::Get(std::string_view name) const {
  for (const auto& f : fields_) {
    if (EqualsIgnoreCase(f.name, name)) return f.value;
  }
  return {};
}

bool Headers::Has(std::string_view name) const {
  for (const auto& f : fields_) {
    if (EqualsIgnoreCase(f.name, name)) return true;
  }
  return false;
}

std::vector<std::string_view> Headers::GetAll(std::string_view name) const {
  std::vector<std::string_view> out;
  for (const auto& f : fields_) {
    if (EqualsIgnoreCase(f.name, name)) out.push_back(f.value);
  }
  return out;
}

bool Headers::HasToken(std::string_view name, std::string_view token) const {
  for (const auto& f : fields_) {
    if (!EqualsIgnoreCase(f.name, name)) continue;
    for (const auto& item : Split(f.value, ',')) {
      if (EqualsIgnoreCase(TrimSpace(item), token)) return true;
    }
  }
  return false;
}

void Headers::Set(std::string name, std::string value) {
  Remove(name);
  fields_.push_back({std::move(name), std::move(value)});
}

void Headers::Remove(std::string_view name) {
  fields_.erase(std::remove_if(fields_.begin(), fields_.end(),
                               [&](const Field& f) { return EqualsIgnoreCase(f.name, name); }),
                fields_.end());
}

}  // namespace capstan::http
