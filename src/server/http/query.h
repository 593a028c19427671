// server/http/query.h: URL query strings, parsed as Go's url.ParseQuery does. Thread-compatible.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace capstan::http {

class Query {
 public:
  Query() = default;
  // Parses "a=1&b=x%20y&a=2". Malformed pairs (bad escapes, ';') are skipped and make ok() false.
  static Query Parse(std::string_view raw);

  bool ok() const { return ok_; }
  bool Has(const std::string& key) const { return values_.count(key) > 0; }
  // The first value, if the key is present.
  std::optional<std::string> Get(const std::string& key) const;
  std::string GetOr(const std::string& key, std::string def) const;
  const std::vector<std::string>* GetAll(const std::string& key) const;
  const std::map<std::string, std::vector<std::string>>& values() const { return values_; }
  void Set(const std::string& key, std::string value) { values_[key] = {std::move(value)}; }

 private:
  std::map<std::string, std::vector<std::string>> values_;
  bool ok_ = true;
};

}  // namespace capstan::http
