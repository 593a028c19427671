// api/apiextensions/custom_resource_conversion.h: what happens to a custom resource between the
// version a client speaks and the storage version (kube's CRD codec: the crConverter with its None or
// Webhook strategy, and the structural schema's pruning and defaulting on decode).
//
// CustomResourceConverter is the registry::VersionConverter of one served version:
//   - FromStorage (get, list items, watch events, write results, an update's current object): the
//     object is pruned and defaulted with the schema of the version it is stored in (defaults added to
//     a schema after the object was written show on read, as kube's decoding from storage does), then
//     converted to the served version (None: apiVersion rewritten; Webhook: ConversionWebhook) and,
//     when that is another version, pruned and defaulted again with the served version's schema;
//   - ToStorage (create bodies, an update's result): pruned, defaulted and validated with the served
//     version's schema (kube decodes and validates a request in its own version: 422 with that
//     version's field paths) and converted to the storage version.
// Objects already in the target version are not sent to a webhook. Lists convert in one review.
//
// Immutable; thread-safe.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "api/apiextensions/conversion_webhook.h"
#include "api/apiextensions/custom_resource_strategy.h"
#include "registry/converting_store.h"

namespace capstan::api::apiextensions {

struct CustomResourceConversion {
  std::string served_api_version;   // "group/v2"
  std::string storage_api_version;  // "group/v1"
  // Every version's strategy (served or not) by apiVersion, for pruning and defaulting in the
  // version an object is in; a version without a schema may be absent.
  std::map<std::string, std::shared_ptr<const CustomResourceStrategy>> strategies;
  std::shared_ptr<const ConversionWebhook> webhook;  // null: strategy None
};

class CustomResourceConverter : public registry::VersionConverter {
 public:
  explicit CustomResourceConverter(CustomResourceConversion c) : c_(std::move(c)) {}

  Task<StatusOr<Object>> ToStorage(Object obj) const override;
  Task<StatusOr<Object>> FromStorage(Object obj) const override;
  std::optional<Object> ToStorageNow(const Object& obj) const override;
  Task<StatusOr<std::vector<Object>>> FromStorageList(std::vector<Object> items) const override;

  // Converts `obj` to `api_version` by the CRD's strategy (no defaulting).
  Task<StatusOr<Object>> ConvertTo(Object obj, const std::string& api_version) const;

 private:
  void Default(Object& obj) const;  // in the version obj is in

  CustomResourceConversion c_;
};

// Whether a schema (openAPIV3Schema JSON) declares a default anywhere.
bool SchemaHasDefaults(const boost::json::value* schema);

}  // namespace capstan::api::apiextensions
