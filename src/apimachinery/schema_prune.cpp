#include "apimachinery/schema_prune.h"

#include <algorithm>
#include <vector>

namespace capstan::apimachinery {

namespace json = boost::json;

namespace {

bool IsMetaField(std::string_view k) { return k == "apiVersion" || k == "kind" || k == "metadata"; }

// A path segment on the recursion stack; the text is built only for a pruned field, so deep
// documents cost no per-level strings.
struct Seg {
  const Seg* parent = nullptr;
  std::string_view key;  // empty for an index
  size_t index = 0;
  bool is_index = false;
};

// kube's ParentPath joining: keys joined with ".", indexes appended as "[i]".
std::string Render(const Seg* s) {
  std::vector<const Seg*> chain;
  for (; s != nullptr; s = s->parent) chain.push_back(s);
  std::string out;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    if ((*it)->is_index) {
      out += "[" + std::to_string((*it)->index) + "]";
    } else {
      if (!out.empty()) out.push_back('.');
      out += (*it)->key;
    }
  }
  return out;
}

class Pruner {
 public:
  std::vector<std::string> paths;

  // `embedded` forces x-kubernetes-embedded-resource (the resource root).
  void Prune(json::value& x, const Schema* node, const Seg* parent, bool embedded) {
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
          Seg seg = Key(parent, k);
          Prune(kv.value(), prop, &seg, false);
        } else if (s->additional_properties_kind != AdditionalPropertiesKind::kUnset) {
          Seg seg = Key(parent, k);
          Prune(kv.value(), s->additional_properties, &seg, false);
        } else {
          if (!IsMetaField(k) || parent != nullptr) Record(parent, k);
          remove.emplace_back(k);
        }
      }
      for (const auto& k : remove) obj.erase(k);
    } else if (x.is_array()) {
      json::array& arr = x.get_array();
      for (size_t i = 0; i < arr.size(); ++i) {
        Seg seg = Index(parent, i);
        Prune(arr[i], s ? s->items : nullptr, &seg, false);
      }
    }
  }

 private:
  void SkipPrune(json::value& x, const Schema* node, const Seg* parent, bool embedded) {
    if (node == nullptr) return;
    const Schema& s = node->Deref();
    if (x.is_object()) {
      for (auto& kv : x.get_object()) {
        std::string_view k = kv.key();
        if ((embedded || node->EmbeddedResource()) && IsMetaField(k)) continue;
        if (const Schema* prop = s.Property(k)) {
          Seg seg = Key(parent, k);
          Prune(kv.value(), prop, &seg, false);
        } else if (s.additional_properties_kind != AdditionalPropertiesKind::kUnset) {
          Seg seg = Key(parent, k);
          Prune(kv.value(), s.additional_properties, &seg, false);
        }
      }
    } else if (x.is_array()) {
      json::array& arr = x.get_array();
      for (size_t i = 0; i < arr.size(); ++i) {
        Seg seg = Index(parent, i);
        SkipPrune(arr[i], s.items, &seg, false);
      }
    }
  }

  static Seg Key(const Seg* parent, std::string_view k) { return Seg{parent, k, 0, false}; }
  static Seg Index(const Seg* parent, size_t i) { return Seg{parent, {}, i, true}; }
  void Record(const Seg* parent, std::string_view k) {
    Seg leaf = Key(parent, k);
    paths.push_back(Render(&leaf));
  }
};

}  // namespace

std::vector<std::string> PruneBySchema(json::value& value, const Schema* schema, bool is_resource_root) {
  Pruner p;
  if (is_resource_root && schema == nullptr) {
    // kube prunes the root with an empty schema that is an embedded resource.
    static const Schema kEmpty;
    schema = &kEmpty;
  }
  p.Prune(value, schema, nullptr, is_resource_root);
  std::sort(p.paths.begin(), p.paths.end());
  return std::move(p.paths);
}

std::string UnknownFieldMessage(const std::string& path) { return "unknown field \"" + path + "\""; }

}  // namespace capstan::apimachinery
