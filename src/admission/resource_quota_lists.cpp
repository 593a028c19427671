#include "admission/resource_quota_lists.h"

#include <algorithm>
#include <boost/json.hpp>
#include <set>

#include "util/strings.h"

namespace capstan::admission::quota {

namespace json = boost::json;
namespace am = capstan::apimachinery;

ResourceList ResourceListFromJson(const json::value* v) {
  ResourceList out;
  if (!v || !v->is_object()) return out;
  for (const auto& [k, q] : v->get_object()) {
    auto parsed = am::ParseQuantityJson(q);
    if (parsed.ok()) out.emplace(std::string(k), std::move(*parsed));
  }
  return out;
}

json::object ResourceListToJson(const ResourceList& l) {
  json::object o;
  for (const auto& [k, q] : l) o[k] = q.String();
  return o;
}

ResourceList Add(const ResourceList& a, const ResourceList& b) {
  ResourceList out;
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    out.emplace(k, it == b.end() ? v : v.Add(it->second));
  }
  for (const auto& [k, v] : b) out.emplace(k, v);  // no-op for keys already set
  return out;
}

ResourceList SubtractNonNegative(const ResourceList& a, const ResourceList& b) {
  ResourceList out;
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    Quantity d = it == b.end() ? v : v.Sub(it->second);
    out.emplace(k, d.Sign() > 0 ? d : Quantity());
  }
  for (const auto& [k, v] : b) out.emplace(k, Quantity());
  return out;
}

ResourceList Mask(const ResourceList& l, const std::vector<std::string>& names) {
  ResourceList out;
  for (const auto& n : names) {
    auto it = l.find(n);
    if (it != l.end()) out.emplace(n, it->second);
  }
  return out;
}

bool LessThanOrEqual(const ResourceList& a, const ResourceList& b, std::vector<std::string>* exceeded) {
  bool ok = true;
  for (const auto& [k, v] : b) {
    auto it = a.find(k);
    if (it != a.end() && it->second.Cmp(v) > 0) {
      ok = false;
      if (exceeded) exceeded->push_back(k);
    }
  }
  return ok;
}

bool Equals(const ResourceList& a, const ResourceList& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    if (it == b.end() || it->second.Cmp(v) != 0) return false;
  }
  return true;
}

ResourceList RemoveZeros(const ResourceList& l) {
  ResourceList out;
  for (const auto& [k, v] : l) {
    if (!v.IsZero()) out.emplace(k, v);
  }
  return out;
}

std::vector<std::string> IsNegative(const ResourceList& l) {
  std::vector<std::string> out;
  for (const auto& [k, v] : l) {
    if (v.Sign() < 0) out.push_back(k);
  }
  return out;
}

std::vector<std::string> Names(const ResourceList& l) {
  std::vector<std::string> out;
  for (const auto& [k, v] : l) out.push_back(k);
  return out;
}

std::vector<std::string> Intersection(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::set<std::string> in_b(b.begin(), b.end()), out;
  for (const auto& n : a) {
    if (in_b.count(n)) out.insert(n);
  }
  return {out.begin(), out.end()};
}

std::string PrettyPrint(const ResourceList& l) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : l) parts.push_back(k + "=" + v.String());  // std::map: sorted keys
  return Join(parts, ",");
}

std::string PrettyPrintNames(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  return Join(names, ",");
}

}  // namespace capstan::admission::quota
