#include "server/http/query.h"

#include "util/strings.h"

namespace capstan::http {

Query Query::Parse(std::string_view raw) {
  Query q;
  while (!raw.empty()) {
    size_t amp = raw.find('&');
    std::string_view pair = raw.substr(0, amp);
    raw = amp == std::string_view::npos ? std::string_view() : raw.substr(amp + 1);
    if (pair.find(';') != std::string_view::npos) {
      q.ok_ = false;
      continue;
    }
    if (pair.empty()) continue;
    size_t eq = pair.find('=');
    std::string key, value;
    if (!PercentDecode(pair.substr(0, eq), key, true) ||
        (eq != std::string_view::npos && !PercentDecode(pair.substr(eq + 1), value, true))) {
      q.ok_ = false;
      continue;
    }
    q.values_[key].push_back(std::move(value));
  }
  return q;
}

std::optional<std::string> Query::Get(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end() || it->second.empty()) return std::nullopt;
  return it->second.front();
}

std::string Query::GetOr(const std::string& key, std::string def) const {
  auto v = Get(key);
  return v ? *v : std::move(def);
}

const std::vector<std::string>* Query::GetAll(const std::string& key) const {
  auto it = values_.find(key);
  return it == values_.end() ? nullptr : &it->second;
}

}  // namespace capstan::http
