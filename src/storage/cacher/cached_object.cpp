#include "storage/cacher/cached_object.h"

#include <atomic>
#include <boost/json.hpp>

#include "apimachinery/json_stored.h"
#include "apimachinery/object_meta.h"
#include "util/log.h"

namespace capstan::storage {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

void PutVarint(std::string& out, size_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

size_t GetVarint(std::string_view s, size_t& pos) {
  size_t v = 0;
  int shift = 0;
  while (pos < s.size()) {
    auto b = static_cast<unsigned char>(s[pos++]);
    v |= static_cast<size_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) break;
    shift += 7;
  }
  return v;
}

void PutString(std::string& out, std::string_view s) {
  PutVarint(out, s.size());
  out.append(s);
}

std::string_view GetString(std::string_view s, size_t& pos) {
  size_t n = GetVarint(s, pos);
  std::string_view v = s.substr(pos, n);
  pos += n;
  return v;
}

// Walks the packed attributes: calls label(k, v) for each label, then field(f, v) for each field;
// either returns true to stop.
template <class L, class F>
void WalkAttrs(std::string_view a, L label, F field) {
  size_t pos = 0;
  size_t n = GetVarint(a, pos);
  for (size_t i = 0; i < n; ++i) {
    std::string_view k = GetString(a, pos);
    std::string_view v = GetString(a, pos);
    if (label(k, v)) return;
  }
  size_t m = GetVarint(a, pos);
  for (size_t i = 0; i < m; ++i) {
    std::string_view k = GetString(a, pos);
    std::string_view v = GetString(a, pos);
    if (field(k, v)) return;
  }
}

size_t HeapBytes(const std::string& s) {
  // libstdc++ keeps up to 15 characters inline.
  return s.capacity() > 15 ? s.capacity() + 1 : 0;
}

}  // namespace

CachedObjectPtr CachedObject::Make(std::string key, size_t rest_offset, Object obj, int64_t revision,
                                   const FieldsFunc& fields, const am::JsonWriteOptions& write) {
  auto out = std::make_shared<CachedObject>();
  CachedObject& o = *out;
  o.key_ = std::move(key);
  o.rest_offset_ = static_cast<uint16_t>(std::min<size_t>(rest_offset, o.key_.size()));
  o.revision_ = revision;
  o.sort_keys_ = write.sort_keys;

  // Labels (string values only, as selectors read them).
  std::string attrs;
  const json::object* labels = nullptr;
  if (const json::object* md = am::GetMetadata(obj)) {
    if (auto it = md->find("labels"); it != md->end() && it->value().is_object()) labels = &it->value().get_object();
  }
  size_t n = 0;
  if (labels) {
    for (const auto& kv : *labels) n += kv.value().is_string() ? 1 : 0;
  }
  PutVarint(attrs, n);
  if (labels) {
    for (const auto& kv : *labels) {
      if (!kv.value().is_string()) continue;
      PutString(attrs, kv.key());
      PutString(attrs, kv.value().get_string());
    }
  }
  // Selectable fields, but not the name and namespace the key already says.
  am::FieldSet fs;
  if (fields) {
    fs = fields(obj);
  } else {
    fs["metadata.name"] = std::string(am::GetName(obj));
    fs["metadata.namespace"] = std::string(am::GetNamespace(obj));
  }
  size_t m = 0;
  std::string packed_fields;
  for (const auto& [f, v] : fs) {
    if (f == "metadata.name" && v == o.name()) continue;
    if (f == "metadata.namespace" && v == o.namespace_()) continue;
    PutString(packed_fields, f);
    PutString(packed_fields, v);
    ++m;
  }
  PutVarint(attrs, m);
  attrs += packed_fields;
  o.attrs_ = std::move(attrs);
  o.attrs_.shrink_to_fit();

  // The JSON with the resourceVersion written where kube's ObjectMeta order puts it.
  if (auto* md = obj.if_contains("metadata"); md && md->is_object()) md->get_object().stable_erase("resourceVersion");
  std::string rv = std::to_string(revision);
  am::MetadataOverrides overrides;
  overrides.emplace_back("resourceVersion", json::string(rv));
  am::AppendJsonWithMetadata(o.json_, obj, overrides, write);
  o.json_.shrink_to_fit();
  // Remember where the digits are, so another revision of the same content is a splice. Only when
  // the pattern is unique (a nested object could hold the same key and value).
  std::string pattern = "\"resourceVersion\":\"" + rv + "\"";
  size_t at = o.json_.find(pattern);
  if (at != std::string::npos && o.json_.find(pattern, at + 1) == std::string::npos && at < UINT32_MAX) {
    o.rv_offset_ = static_cast<uint32_t>(at + pattern.size() - rv.size() - 1);
    o.rv_len_ = static_cast<uint16_t>(rv.size());
  }
  return out;
}

CachedObjectPtr CachedObject::AtRevision(int64_t revision) const {
  if (revision == revision_) return nullptr;
  auto out = std::make_shared<CachedObject>();
  CachedObject& o = *out;
  o.key_ = key_;
  o.attrs_ = attrs_;
  o.revision_ = revision;
  o.rest_offset_ = rest_offset_;
  o.sort_keys_ = sort_keys_;
  std::string rv = std::to_string(revision);
  if (rv_len_ > 0) {
    o.json_.reserve(json_.size() + rv.size() - rv_len_);
    o.json_.append(json_, 0, rv_offset_);
    o.json_ += rv;
    o.json_.append(json_, rv_offset_ + rv_len_, std::string::npos);
    o.rv_offset_ = rv_offset_;
    o.rv_len_ = static_cast<uint16_t>(rv.size());
    return out;
  }
  Object parsed = Parse();
  if (auto* md = parsed.if_contains("metadata"); md && md->is_object()) md->get_object().stable_erase("resourceVersion");
  am::MetadataOverrides overrides;
  overrides.emplace_back("resourceVersion", json::string(rv));
  am::JsonWriteOptions write;
  write.sort_keys = sort_keys_;
  am::AppendJsonWithMetadata(o.json_, parsed, overrides, write);
  return out;
}

SerializedObject CachedObject::Encoded(std::string_view form, const Encode& encode) const {
  auto head = std::atomic_load(&encoded_);
  for (auto* f = head.get(); f; f = f->next.get()) {
    if (f->form == form) return f->bytes;
  }
  std::optional<std::string> made = encode(json_);
  if (!made) return nullptr;
  auto node = std::make_shared<EncodedForm>();
  node->form = std::string(form);
  node->bytes = std::make_shared<const std::string>(std::move(*made));
  // Publish; when another thread published first, its list is searched again (both encodings agree).
  std::shared_ptr<const EncodedForm> expected = head;
  while (true) {
    node->next = expected;
    std::shared_ptr<const EncodedForm> desired = node;
    if (std::atomic_compare_exchange_weak(&encoded_, &expected, desired)) return node->bytes;
    for (auto* f = expected.get(); f; f = f->next.get()) {
      if (f->form == form) return f->bytes;
    }
  }
}

Object CachedObject::Parse() const {
  auto v = am::ParseStoredJson(json_);
  if (!v.ok() || !v->is_object()) {
    // The bytes are the cache's own serialization of an object the store decoded: a bug.
    LogError("watch cache: cannot re-read a cached object",
             {{"key", key_}, {"error", v.ok() ? std::string("not a JSON object") : v.status().message()}});
    return Object();
  }
  return std::move(v->get_object());
}

std::string_view CachedObject::name() const {
  std::string_view k = key_;
  size_t slash = k.rfind('/');
  return slash == std::string_view::npos ? k : k.substr(slash + 1);
}

std::string_view CachedObject::namespace_() const {
  std::string_view rest = std::string_view(key_).substr(rest_offset_);
  size_t slash = rest.rfind('/');
  if (slash == std::string_view::npos) return {};
  rest = rest.substr(0, slash);
  size_t before = rest.rfind('/');
  return before == std::string_view::npos ? rest : rest.substr(before + 1);
}

std::optional<std::string_view> CachedObject::Label(std::string_view key) const {
  std::optional<std::string_view> out;
  WalkAttrs(
      attrs_,
      [&](std::string_view k, std::string_view v) {
        if (k != key) return false;
        out = v;
        return true;
      },
      [](std::string_view, std::string_view) { return true; });
  return out;
}

std::string_view CachedObject::Field(std::string_view field) const {
  std::optional<std::string_view> out;
  WalkAttrs(
      attrs_, [](std::string_view, std::string_view) { return false; },
      [&](std::string_view f, std::string_view v) {
        if (f != field) return false;
        out = v;
        return true;
      });
  if (out) return *out;
  if (field == "metadata.name") return name();
  if (field == "metadata.namespace") return namespace_();
  return {};
}

bool CachedObject::Matches(const Selection& sel) const {
  if (sel.labels.IsNothing() || sel.fields.IsNothing()) return false;
  if (!sel.labels.Empty() &&
      !sel.labels.Matches([this](std::string_view k) -> std::optional<std::string_view> { return Label(k); })) {
    return false;
  }
  for (const auto& r : sel.fields.Requirements()) {
    if ((Field(r.field) == r.value) == r.not_equals) return false;
  }
  return true;
}

size_t CachedObject::MemoryBytes() const {
  size_t n = sizeof(*this) + HeapBytes(key_) + HeapBytes(json_) + HeapBytes(attrs_);
  auto head = std::atomic_load(&encoded_);
  for (auto* f = head.get(); f; f = f->next.get()) n += sizeof(*f) + HeapBytes(f->form) + sizeof(std::string) + HeapBytes(*f->bytes);
  return n;
}

CachedEventPtr MakeCachedEvent(CachedObjectPtr prev, CachedObjectPtr next, int64_t revision) {
  auto e = std::make_shared<CachedEvent>();
  e->revision = revision;
  if (!next) {
    e->type = CachedEvent::Type::kDeleted;
    e->object = prev->AtRevision(revision);
    if (!e->object) e->object = prev;
    e->prev = std::move(prev);
    return e;
  }
  e->type = prev ? CachedEvent::Type::kModified : CachedEvent::Type::kAdded;
  if (prev && !prev->SameAttributes(*next)) {
    e->prev_at_revision = prev->AtRevision(revision);
    if (!e->prev_at_revision) e->prev_at_revision = prev;
  }
  e->object = std::move(next);
  e->prev = std::move(prev);
  return e;
}

}  // namespace capstan::storage
