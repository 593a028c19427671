#include "apimachinery/schema_prune.h"

#include <algorithm>

namespace capstan::apimachinery {

namespace json = boost::json;

namespace {

bool IsMetaField(std::string_view k) { return k == "apiVersion" || k == "kind" || k == "metadata"; }

class Pruner {
 public:
  std::vector<std::string> paths;

  // `embedded` forces x-kubernetes-embedded-resource (the resource root).
  void Prune(json::value& x, const Schema* node, const std::string& parent, bool embedded) {
    if (node != nullptr && node->PreservesUnknownFields()) {
      SkipPrune(x, node, parent, embedded);
      return;
    }
    const Schema* s = node ? &node->Deref() : nullptr;
    if (x.is_object()) {
      json::object& obj = x.get_object();
      std::vector<std::string> remove;
      for (auto& kv : obj) {
        std::string_view k = kv.key();
        if (s == nullptr) {
          Record(parent, k);
          remove.emplace_back(k);
          continue;
        }
        if ((embedded || node->EmbeddedResource()) && IsMetaField(k)) continue;
        if (const Schema* prop = s->Property(k)) {
          Prune(kv.value(), prop, Key(parent, k), false);
        } else if (s->additional_properties_kind != AdditionalPropertiesKind::kUnset) {
          Prune(kv.value(), s->additional_properties, Key(parent, k), false);
        } else {
          if (!IsMetaField(k) || !parent.empty()) Record(parent, k);
          remove.emplace_back(k);
        }
      }
      for (const auto& k : remove) obj.erase(k);
    } else if (x.is_array()) {
      json::array& arr = x.get_array();
      for (size_t i = 0; i < arr.size(); ++i) Prune(arr[i], s ? s->items : nullptr, Index(parent, i), false);
    }
  }

 private:
  void SkipPrune(json::value& x, const Schema* node, const std::string& parent, bool embedded) {
    if (node == nullptr) return;
    const Schema& s = node->Deref();
    if (x.is_object()) {
      for (auto& kv : x.get_object()) {
        std::string_view k = kv.key();
        if ((embedded || node->EmbeddedResource()) && IsMetaField(k)) continue;
        if (const Schema* prop = s.Property(k)) {
          Prune(kv.value(), prop, Key(parent, k), false);
        } else if (s.additional_properties_kind != AdditionalPropertiesKind::kUnset) {
          Prune(kv.value(), s.additional_properties, Key(parent, k), false);
        }
      }
    } else if (x.is_array()) {
      json::array& arr = x.get_array();
      for (size_t i = 0; i < arr.size(); ++i) SkipPrune(arr[i], s.items, Index(parent, i), false);
    }
  }

  static std::string Key(const std::string& parent, std::string_view k) {
    return parent.empty() ? std::string(k) : parent + "." + std::string(k);
  }
  static std::string Index(const std::string& parent, size_t i) { return parent + "[" + std::to_string(i) + "]"; }
  void Record(const std::string& parent, std::string_view k) { paths.push_back(Key(parent, k)); }
};

}  // namespace

std::vector<std::string> PruneBySchema(json::value& value, const Schema* schema, bool is_resource_root) {
  Pruner p;
  if (is_resource_root && schema == nullptr) {
    // kube prunes the root with an empty schema that is an embedded resource.
    static const Schema kEmpty;
    schema = &kEmpty;
  }
  p.Prune(value, schema, "", is_resource_root);
  std::sort(p.paths.begin(), p.paths.end());
  return std::move(p.paths);
}

std::string UnknownFieldMessage(const std::string& path) { return "unknown field \"" + path + "\""; }

}  // namespace capstan::apimachinery
