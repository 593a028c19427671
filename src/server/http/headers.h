// server/http/headers.h: an ordered, case-insensitive multimap of HTTP header fields. Thread-compatible.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace capstan::http {

class Headers {
 public:
  struct Field {
    std::string name;
    std::string value;
  };

  // The first value of a header, or empty when absent.
  std::string_view Get(std::string_view name) const;
  bool Has(std::string_view name) const;
  std::vector<std::string_view> GetAll(std::string_view name) const;
  // Whether any field of that name, read as a comma list, holds `token` (both compared ignoring ASCII
  // case): "Connection: keep-alive, Upgrade" has the token "upgrade".
  bool HasToken(std::string_view name, std::string_view token) const;
  void Add(std::string name, std::string value) { fields_.push_back({std::move(name), std::move(value)}); }
  // Replaces every field of that name with one.
  void Set(std::string name, std::string value);
  void Remove(std::string_view name);

  const std::vector<Field>& fields() const { return fields_; }
  bool empty() const { return fields_.empty(); }
  size_t size() const { return fields_.size(); }

 private:
  std::vector<Field> fields_;
};

}  // namespace capstan::http
