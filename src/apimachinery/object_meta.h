// apimachinery/object_meta.h: typed access to metadata of an object held as a boost::json::object.
//
// Getters read obj["metadata"][field] and return an empty/zero/nullopt value when the field is absent
// or of another JSON type (the structural schema rejects wrong types before anything reads them);
// setters create metadata as needed and keep the field's position when it exists. ReadObjectMeta
// reads all fields at once for validation. Thread-compatible: the same rules as the object itself.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace capstan::apimachinery {

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  std::optional<bool> controller;
  std::optional<bool> block_owner_deletion;
  // As Go's encoding of metav1.OwnerReference (apiVersion, kind, name, uid, controller, blockOwnerDeletion).
  boost::json::object ToJson() const;
};

struct ManagedFieldsEntry {
  std::string manager;
  std::string operation;
  std::string api_version;
  std::string time;
  std::string fields_type;
  std::string subresource;
};

using StringPairs = std::vector<std::pair<std::string, std::string>>;

struct ObjectMeta {
  std::string name;
  std::string generate_name;
  std::string namespace_;
  std::string uid;
  std::string resource_version;
  int64_t generation = 0;
  std::string creation_timestamp;                  // RFC 3339, "" when unset
  std::optional<std::string> deletion_timestamp;
  std::optional<int64_t> deletion_grace_period_seconds;
  StringPairs labels;                              // in document order; non-string values skipped
  StringPairs annotations;
  std::vector<std::string> finalizers;
  std::vector<OwnerReference> owner_references;
  std::vector<ManagedFieldsEntry> managed_fields;
};

// The whole metadata of obj (the resource, not its metadata object).
ObjectMeta ReadObjectMeta(const boost::json::object& obj);

const boost::json::object* GetMetadata(const boost::json::object& obj);
// Creates (or replaces a non-object) metadata.
boost::json::object& MutableMetadata(boost::json::object& obj);

std::string_view GetName(const boost::json::object& obj);
std::string_view GetGenerateName(const boost::json::object& obj);
std::string_view GetNamespace(const boost::json::object& obj);
std::string_view GetUid(const boost::json::object& obj);
std::string_view GetResourceVersion(const boost::json::object& obj);
int64_t GetGeneration(const boost::json::object& obj);
std::string_view GetCreationTimestamp(const boost::json::object& obj);
std::optional<std::string_view> GetDeletionTimestamp(const boost::json::object& obj);
std::optional<int64_t> GetDeletionGracePeriodSeconds(const boost::json::object& obj);
StringPairs GetLabels(const boost::json::object& obj);
StringPairs GetAnnotations(const boost::json::object& obj);
// A label's value, nullopt when there is no such label.
std::optional<std::string_view> GetLabel(const boost::json::object& obj, std::string_view key);
std::vector<std::string> GetFinalizers(const boost::json::object& obj);
std::vector<OwnerReference> GetOwnerReferences(const boost::json::object& obj);
std::vector<ManagedFieldsEntry> GetManagedFields(const boost::json::object& obj);
std::string_view GetApiVersion(const boost::json::object& obj);
std::string_view GetKind(const boost::json::object& obj);

// Setters. An empty string / nullopt removes the field (Go's omitempty).
void SetName(boost::json::object& obj, std::string_view v);
void SetGenerateName(boost::json::object& obj, std::string_view v);
void SetNamespace(boost::json::object& obj, std::string_view v);
void SetUid(boost::json::object& obj, std::string_view v);
void SetResourceVersion(boost::json::object& obj, std::string_view v);
void SetGeneration(boost::json::object& obj, int64_t v);  // 0 removes
void SetCreationTimestamp(boost::json::object& obj, std::string_view v);
void SetDeletionTimestamp(boost::json::object& obj, std::optional<std::string_view> v);
void SetDeletionGracePeriodSeconds(boost::json::object& obj, std::optional<int64_t> v);
void SetFinalizers(boost::json::object& obj, const std::vector<std::string>& v);  // empty removes
void SetLabel(boost::json::object& obj, std::string_view key, std::string_view value);
void SetAnnotation(boost::json::object& obj, std::string_view key, std::string_view value);
void SetApiVersionAndKind(boost::json::object& obj, std::string_view api_version, std::string_view kind);

}  // namespace capstan::apimachinery
