#include "api/apiextensions/custom_resource_conversion.h"

#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"

namespace capstan::api::apiextensions {

namespace am = capstan::apimachinery;
namespace json = boost::json;

bool SchemaHasDefaults(const json::value* schema) {
  if (!schema) return false;
  if (schema->is_object()) {
    for (const auto& [k, v] : schema->get_object()) {
      if (k == "default") return true;
      if (SchemaHasDefaults(&v)) return true;
    }
  } else if (schema->is_array()) {
    for (const auto& v : schema->get_array()) {
      if (SchemaHasDefaults(&v)) return true;
    }
  }
  return false;
}

void CustomResourceConverter::Default(Object& obj) const {
  auto it = c_.strategies.find(std::string(am::GetApiVersion(obj)));
  if (it != c_.strategies.end() && it->second) it->second->PruneAndDefault(obj);
}

Task<StatusOr<Object>> CustomResourceConverter::ConvertTo(Object obj, const std::string& api_version) const {
  if (am::GetApiVersion(obj) == api_version) co_return obj;
  if (!c_.webhook) {
    obj["apiVersion"] = api_version;
    co_return obj;
  }
  co_return co_await c_.webhook->Convert(std::move(obj), api_version);
}

Task<StatusOr<Object>> CustomResourceConverter::ToStorage(Object obj) const {
  if (c_.served_api_version == c_.storage_api_version && am::GetApiVersion(obj) == c_.storage_api_version) co_return obj;
  Default(obj);
  // Validated in the version the client wrote (kube validates in the request's version), so field
  // paths name that version's fields; the storage version's Store validates the converted object too.
  auto it = c_.strategies.find(std::string(am::GetApiVersion(obj)));
  if (it != c_.strategies.end() && it->second) {
    ErrorList errs = it->second->ValidateSchema(obj);
    if (!errs.empty()) {
      const std::string& av = c_.served_api_version;
      am::GroupKind gk{av.substr(0, av.find('/')), std::string(am::GetKind(obj))};
      co_return am::NewInvalid(gk, am::GetName(obj), errs);
    }
  }
  co_return co_await ConvertTo(std::move(obj), c_.storage_api_version);
}

Task<StatusOr<Object>> CustomResourceConverter::FromStorage(Object obj) const {
  Default(obj);
  if (am::GetApiVersion(obj) == c_.served_api_version) co_return obj;
  auto converted = co_await ConvertTo(std::move(obj), c_.served_api_version);
  if (!converted.ok()) co_return converted;
  Default(*converted);
  co_return converted;
}

Task<StatusOr<std::vector<Object>>> CustomResourceConverter::FromStorageList(std::vector<Object> items) const {
  bool converting = false;
  for (auto& item : items) {
    Default(item);
    converting = converting || am::GetApiVersion(item) != c_.served_api_version;
  }
  if (!converting) co_return items;
  if (c_.webhook) {
    auto converted = co_await c_.webhook->ConvertList(std::move(items), c_.served_api_version);
    if (!converted.ok()) co_return converted;
    items = std::move(*converted);
  } else {
    for (auto& item : items) item["apiVersion"] = c_.served_api_version;
  }
  for (auto& item : items) Default(item);
  co_return items;
}

std::optional<Object> CustomResourceConverter::ToStorageNow(const Object& obj) const {
  if (c_.webhook) return std::nullopt;
  Object o = obj;
  o["apiVersion"] = c_.storage_api_version;
  return o;
}

}  // namespace capstan::api::apiextensions
