#include "apimachinery/json_write.h"

#include <algorithm>
#include <array>

#include "util/go_float.h"
#include "apimachinery/utf8.h"

namespace capstan::apimachinery {
namespace {

namespace json = boost::json;

constexpr char kHex[] = "0123456789abcdef";

void AppendScalar(std::string& out, const json::value& v, const JsonWriteOptions& opts) {
  switch (v.kind()) {
    case json::kind::null: out += "null"; break;
    case json::kind::bool_: out += v.get_bool() ? "true" : "false"; break;
    case json::kind::int64: out += std::to_string(v.get_int64()); break;
    case json::kind::uint64: out += std::to_string(v.get_uint64()); break;
    case json::kind::double_: out += FormatFloatJson(v.get_double()); break;
    case json::kind::string: AppendJsonString(out, v.get_string(), opts.escape_html); break;
    default: break;
  }
}

// One open container on the writer's explicit stack.
struct Level {
  const json::value* container;
  size_t next = 0;                                   // index of the next member
  std::vector<const json::key_value_pair*> sorted;   // objects with sort_keys
};

// kube's ObjectMeta field order, for placing added metadata fields.
int MetaRank(std::string_view k) {
  static constexpr std::array<std::string_view, 15> kOrder = {
      "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
      "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations",
      "ownerReferences", "finalizers", "managedFields"};
  for (size_t i = 0; i < kOrder.size(); ++i) {
    if (kOrder[i] == k) return static_cast<int>(i);
  }
  return static_cast<int>(kOrder.size());
}

void AppendMetadata(std::string& out, const json::object* meta, const MetadataOverrides& overrides,
                    const JsonWriteOptions& opts) {
  std::vector<bool> written(overrides.size(), false);
  auto find = [&](std::string_view k) -> int {
    for (size_t i = 0; i < overrides.size(); ++i) {
      if (overrides[i].first == k) return static_cast<int>(i);
    }
    return -1;
  };
  bool first = true;
  auto member = [&](std::string_view k, const json::value& v) {
    if (!first) out.push_back(',');
    first = false;
    AppendJsonString(out, k, opts.escape_html);
    out.push_back(':');
    AppendJson(out, v, opts);
  };
  // Added fields that sort before the existing key k (by kube's order) are written first.
  std::vector<size_t> by_rank(overrides.size());
  for (size_t i = 0; i < by_rank.size(); ++i) by_rank[i] = i;
  std::stable_sort(by_rank.begin(), by_rank.end(), [&](size_t a, size_t b) {
    return MetaRank(overrides[a].first) < MetaRank(overrides[b].first);
  });
  auto flush_before = [&](int rank) {
    for (size_t i : by_rank) {
      if (!written[i] && (meta == nullptr || !meta->contains(overrides[i].first)) &&
          MetaRank(overrides[i].first) < rank) {
        written[i] = true;
        member(overrides[i].first, overrides[i].second);
      }
    }
  };
  out.push_back('{');
  if (meta != nullptr) {
    for (const auto& kv : *meta) {
      flush_before(MetaRank(kv.key()));
      int o = find(kv.key());
      if (o >= 0) {
        written[o] = true;
        member(kv.key(), overrides[o].second);
      } else {
        member(kv.key(), kv.value());
      }
    }
  }
  flush_before(1 << 20);
  out.push_back('}');
}

}  // namespace

void AppendJsonString(std::string& out, std::string_view s, bool escape_html) {
  out.push_back('"');
  size_t start = 0;
  for (size_t i = 0; i < s.size();) {
    unsigned char b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      bool safe = b >= 0x20 && b != '"' && b != '\\' && !(escape_html && (b == '<' || b == '>' || b == '&'));
      if (safe) {
        ++i;
        continue;
      }
      out.append(s.data() + start, i - start);
      switch (b) {
        case '\\': out += "\\\\"; break;
        case '"': out += "\\\""; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
          out += "\\u00";
          out.push_back(kHex[b >> 4]);
          out.push_back(kHex[b & 0xf]);
      }
      ++i;
      start = i;
      continue;
    }
    size_t n = Utf8SequenceLength(s.substr(i));
    if (n == 0) {
      out.append(s.data() + start, i - start);
      out += "\\ufffd";
      ++i;
      start = i;
      continue;
    }
    if (n == 3 && b == 0xe2 && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
        (static_cast<unsigned char>(s[i + 2]) == 0xa8 || static_cast<unsigned char>(s[i + 2]) == 0xa9)) {
      out.append(s.data() + start, i - start);
      out += static_cast<unsigned char>(s[i + 2]) == 0xa8 ? "\\u2028" : "\\u2029";
      i += 3;
      start = i;
      continue;
    }
    i += n;
  }
  out.append(s.data() + start, s.size() - start);
  out.push_back('"');
}

void AppendJson(std::string& out, const boost::json::value& root, const JsonWriteOptions& opts) {
  if (!root.is_object() && !root.is_array()) {
    AppendScalar(out, root, opts);
    return;
  }
  std::vector<Level> stack;
  auto open = [&](const json::value& c) {
    Level l{&c};
    if (c.is_object()) {
      out.push_back('{');
      if (opts.sort_keys) {
        for (const auto& kv : c.get_object()) l.sorted.push_back(&kv);
        std::sort(l.sorted.begin(), l.sorted.end(),
                  [](const json::key_value_pair* a, const json::key_value_pair* b) { return a->key() < b->key(); });
      }
    } else {
      out.push_back('[');
    }
    stack.push_back(std::move(l));
  };
  open(root);
  while (!stack.empty()) {
    Level& l = stack.back();
    const json::value* child = nullptr;
    if (l.container->is_object()) {
      const json::object& o = l.container->get_object();
      if (l.next == o.size()) {
        out.push_back('}');
        stack.pop_back();
        continue;
      }
      const json::key_value_pair& kv = opts.sort_keys ? *l.sorted[l.next] : *(o.begin() + l.next);
      if (l.next > 0) out.push_back(',');
      AppendJsonString(out, kv.key(), opts.escape_html);
      out.push_back(':');
      child = &kv.value();
    } else {
      const json::array& a = l.container->get_array();
      if (l.next == a.size()) {
        out.push_back(']');
        stack.pop_back();
        continue;
      }
      if (l.next > 0) out.push_back(',');
      child = &a[l.next];
    }
    ++l.next;
    if (child->is_object() || child->is_array()) {
      open(*child);  // may reallocate stack: l is not used after this
    } else {
      AppendScalar(out, *child, opts);
    }
  }
}

std::string ToJson(const boost::json::value& v, const JsonWriteOptions& opts) {
  std::string out;
  AppendJson(out, v, opts);
  return out;
}

void AppendJsonWithMetadata(std::string& out, const boost::json::object& obj,
                            const MetadataOverrides& overrides, const JsonWriteOptions& opts) {
  std::vector<const json::key_value_pair*> members;
  for (const auto& kv : obj) members.push_back(&kv);
  if (opts.sort_keys) {
    std::sort(members.begin(), members.end(),
              [](const json::key_value_pair* a, const json::key_value_pair* b) { return a->key() < b->key(); });
  }
  bool has_meta = obj.contains("metadata") && obj.at("metadata").is_object();
  bool first = true;
  bool meta_done = has_meta || overrides.empty();
  auto write_meta = [&](const json::object* meta) {
    if (!first) out.push_back(',');
    first = false;
    AppendJsonString(out, "metadata", opts.escape_html);
    out.push_back(':');
    AppendMetadata(out, meta, overrides, opts);
  };
  out.push_back('{');
  for (const json::key_value_pair* kv : members) {
    std::string_view k = kv->key();
    if (k == "metadata" && (has_meta || !overrides.empty())) {
      // An object is rewritten with the overrides; anything else is replaced by them.
      if (has_meta || !meta_done) write_meta(has_meta ? &kv->value().get_object() : nullptr);
      meta_done = true;
      continue;
    }
    if (k != "metadata" && !meta_done && k != "apiVersion" && k != "kind" &&
        (!opts.sort_keys || k > "metadata")) {
      write_meta(nullptr);
      meta_done = true;
    }
    if (!first) out.push_back(',');
    first = false;
    AppendJsonString(out, k, opts.escape_html);
    out.push_back(':');
    AppendJson(out, kv->value(), opts);
  }
  if (!meta_done) write_meta(nullptr);
  out.push_back('}');
}

std::string ToJsonWithResourceVersion(const boost::json::object& obj, std::string_view resource_version) {
  std::string out;
  MetadataOverrides o;
  o.emplace_back("resourceVersion", boost::json::string(resource_version));
  AppendJsonWithMetadata(out, obj, o);
  return out;
}

}  // namespace capstan::apimachinery
