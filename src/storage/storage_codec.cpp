#include "storage/storage_codec.h"

#include <boost/json/serialize.hpp>
#include <algorithm>
#include <mutex>

#include "apimachinery/json_stored.h"
#include "apimachinery/protobuf_codec.h"
#include "apimachinery/protobuf_decode.h"
#include "apimachinery/yaml.h"

namespace capstan::storage {

namespace json = boost::json;
namespace am = apimachinery;

namespace {

constexpr std::string_view kJson = "application/json";
constexpr std::string_view kYaml = "application/yaml";

Status DecodeFailure(std::string_view key, std::string_view why) {
  return Status(500, "InternalError", "unable to decode stored object at " + std::string(key) + ": " + std::string(why));
}

std::string_view StringField(const json::object& obj, std::string_view name) {
  const json::value* v = obj.if_contains(name);
  return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

Status TooDeep() {
  return Status(400, "BadRequest", "the object nests more than " + std::to_string(am::kJsonMaxDepth) +
                                       " levels deep (with the fields the server adds) and cannot be stored");
}

// Each JSON level is at most one protobuf message level; leave room for the envelope.
constexpr int kProtobufDepthLimit = am::protobuf::kMaxMessageDepth - 4;

// The nesting depth of a value (0 for a scalar, 1 for {} or []), counting no further than `limit` + 1.
int ValueDepth(const json::value& v, int limit) {
  if (limit < 0) return 1;
  int inner = 0;
  if (const auto* o = v.if_object()) {
    for (const auto& kv : *o) inner = std::max(inner, ValueDepth(kv.value(), limit - 1));
  } else if (const auto* a = v.if_array()) {
    for (const auto& e : *a) inner = std::max(inner, ValueDepth(e, limit - 1));
  } else {
    return 0;
  }
  return inner + 1;
}
int ValueDepth(const json::object& o, int limit) {
  int inner = 0;
  for (const auto& kv : o) inner = std::max(inner, ValueDepth(kv.value(), limit - 1));
  return inner + 1;
}

}  // namespace

StatusOr<StorageMediaType> ParseStorageMediaType(std::string_view text) {
  if (text == kJson) return StorageMediaType::kJson;
  if (text == kYaml) return StorageMediaType::kYaml;
  if (text == am::protobuf::kProtobufContentType) return StorageMediaType::kProtobuf;
  // sets.List sorts the allowed values.
  return Status(400, "BadRequest",
                "--storage-media-type \"" + std::string(text) +
                    "\" invalid, allowed values: application/json, application/vnd.kubernetes.protobuf, application/yaml");
}

StorageCodec::StorageCodec(StorageMediaType media_type, const am::ProtobufCodec* protobuf)
    : media_type_(media_type), protobuf_(protobuf) {}

void StorageCodec::RegisterResource(const std::string& key_root, const am::GroupVersionKind& gvk) {
  std::string root = key_root;
  while (!root.empty() && root.back() == '/') root.pop_back();
  std::unique_lock lock(mu_);
  roots_[root] = gvk;
}

namespace {

// The entry of the longest registered root the key lies under: each "/" boundary, from the longest.
template <class Map>
const typename Map::mapped_type* UnderRoot(const Map& roots, std::string_view key) {
  if (roots.empty()) return nullptr;
  for (size_t end = key.size(); end != std::string_view::npos && end > 0; end = key.rfind('/', end - 1)) {
    auto it = roots.find(key.substr(0, end));
    if (it != roots.end()) return &it->second;
  }
  return nullptr;
}

}  // namespace

void StorageCodec::RegisterConversion(const std::string& key_root, StorageConversion conversion) {
  std::string root = key_root;
  while (!root.empty() && root.back() == '/') root.pop_back();
  std::unique_lock lock(mu_);
  conversions_[root] = std::make_shared<const StorageConversion>(std::move(conversion));
}

std::optional<am::GroupVersionKind> StorageCodec::StorageVersionOf(std::string_view key) const {
  std::shared_lock lock(mu_);
  const auto* gvk = UnderRoot(roots_, key);
  return gvk ? std::optional<am::GroupVersionKind>(*gvk) : std::nullopt;
}

std::shared_ptr<const StorageConversion> StorageCodec::ConversionOf(std::string_view key) const {
  std::shared_lock lock(mu_);
  const auto* c = UnderRoot(conversions_, key);
  return c ? *c : nullptr;
}

StatusOr<std::string> StorageCodec::Encode(const json::object& served, std::string_view key) const {
  std::optional<json::object> converted;
  if (auto conv = ConversionOf(key)) {
    auto c = conv->to_storage(served);
    if (!c.ok()) return c.TakeStatus();
    converted = std::move(*c);
  }
  const json::object& obj = converted ? *converted : served;
  std::optional<am::GroupVersionKind> builtin;
  if (media_type_ != StorageMediaType::kJson) builtin = StorageVersionOf(key);
  if (builtin && media_type_ == StorageMediaType::kYaml) {
    if (am::JsonDepth(json::serialize(obj)) > am::kJsonMaxDepth) return TooDeep();
    return am::JsonToYaml(obj);
  }
  if (builtin && protobuf_) {
    am::GroupVersionKind gvk = am::FromApiVersionAndKind(StringField(obj, "apiVersion"), StringField(obj, "kind"));
    if (gvk.kind.empty()) gvk = *builtin;
    // An object nested deeper than the protobuf reader goes (a CRD with a very deep schema) is kept
    // as JSON, which reads back whatever the setting.
    if (protobuf_->HasProtobufForm(gvk) && ValueDepth(obj, kProtobufDepthLimit) <= kProtobufDepthLimit) {
      auto bytes = protobuf_->EncodeObject(gvk, obj);
      if (!bytes.ok()) return Status(500, "InternalError", bytes.status().message());
      return bytes;
    }
  }
  std::string text = json::serialize(obj);
  // Never acknowledge bytes that Decode would refuse (see json_stored.h: fields the server adds can
  // nest deeper than the body did).
  if (am::JsonDepth(text) > am::kJsonMaxDepth) return TooDeep();
  return text;
}

StatusOr<json::object> StorageCodec::Decode(std::string_view bytes, std::string_view key) const {
  auto obj = DecodeStored(bytes, key);
  if (!obj.ok()) return obj;
  auto conv = ConversionOf(key);
  if (!conv) return obj;
  auto served = conv->from_storage(std::move(*obj));
  if (!served.ok()) return DecodeFailure(key, served.status().message());
  return served;
}

StatusOr<json::object> StorageCodec::DecodeStored(std::string_view bytes, std::string_view key) const {
  if (am::protobuf::HasEnvelopeMagic(bytes)) {
    if (!protobuf_) return DecodeFailure(key, "protobuf values cannot be read without the built-in schemas");
    auto decoded = protobuf_->DecodeObject(bytes);
    if (!decoded.ok()) return DecodeFailure(key, decoded.status().message());
    if (!decoded->object.is_object()) return DecodeFailure(key, "not an object");
    return std::move(decoded->object.get_object());
  }
  size_t first = bytes.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && bytes[first] == '{') {
    auto v = am::ParseStoredJson(bytes);
    if (!v.ok()) return DecodeFailure(key, v.status().message());
    if (!v->is_object()) return DecodeFailure(key, "not a JSON object");
    return std::move(v->get_object());
  }
  auto y = am::YamlToJson(bytes);
  if (!y.ok()) return DecodeFailure(key, y.status().message());
  if (!y->value.is_object()) return DecodeFailure(key, "not an object");
  return std::move(y->value.get_object());
}

}  // namespace capstan::storage
