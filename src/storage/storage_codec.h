// storage/storage_codec.h: the bytes an object is stored as (before encryption at rest), as
// kube-apiserver 1.32 writes them, and back.
//
// Writing follows --storage-media-type (kube's default application/vnd.kubernetes.protobuf):
//   - built-in kinds (the key roots RegisterResource names, each with the kind stored there) in that
//     media type: protobuf is kube's envelope, "k8s\0" + runtime.Unknown{typeMeta = the object's
//     apiVersion and kind (the storage version's), raw = the object's message}; JSON is the compact
//     text; YAML is sigs.k8s.io/yaml's. A kind without a protobuf form is written as JSON, as kube
//     falls back for types that are not protobuf-capable;
//   - everything else (custom resources, keys no built-in resource registered) as JSON, as kube's
//     unstructured storage codec writes custom resources whatever the flag says.
// Reading accepts all three whatever the setting (kube's storage decoder recognizes each), so data
// left by kube-apiserver, or by Capstan under another setting, is served: bytes starting with
// "k8s\0" are protobuf, bytes starting with '{' (after blanks) JSON, anything else YAML. The result
// is the JSON object kube would write for the same bytes, so the watch cache decodes each object once,
// when it enters, and serves JSON (and its own protobuf encodings) from then on.
//
// Some resources are stored in another version than the one served (kube keeps CRDs as
// apiextensions.k8s.io/v1beta1): RegisterConversion gives a key root the functions that turn the
// served object into the stored one and back; Decode applies the latter to whatever version it finds.
//
// The embedded store and etcd hold the same values, so copying bytes moves data between them.
// Thread-safety: Encode/Decode are safe from any thread; RegisterResource may run concurrently with
// them (new resources appear at run time).
#pragma once

#include <boost/json/object.hpp>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>

#include "apimachinery/gvk.h"
#include "apimachinery/status.h"

namespace capstan::apimachinery {
class ProtobufCodec;
}

namespace capstan::storage {

enum class StorageMediaType { kJson, kYaml, kProtobuf };

// "application/json", "application/yaml", "application/vnd.kubernetes.protobuf" (kube's allowed
// values); anything else is kube's "--storage-media-type %q invalid, allowed values: ..." (400).
StatusOr<StorageMediaType> ParseStorageMediaType(std::string_view text);

struct StorageConversion {
  std::function<StatusOr<boost::json::object>(boost::json::object)> to_storage;
  std::function<StatusOr<boost::json::object>(boost::json::object)> from_storage;
};

class StorageCodec {
 public:
  // `protobuf` may be null: then every value is written as JSON (or YAML) and protobuf values cannot
  // be read. It must outlive the codec.
  StorageCodec(StorageMediaType media_type, const apimachinery::ProtobufCodec* protobuf);
  StorageCodec(const StorageCodec&) = delete;
  StorageCodec& operator=(const StorageCodec&) = delete;

  StorageMediaType media_type() const { return media_type_; }

  // Keys under `key_root` ("/registry/deployments") hold a built-in kind, stored as `gvk` (kube's
  // storage version of the resource).
  void RegisterResource(const std::string& key_root, const apimachinery::GroupVersionKind& gvk);
  // Objects under `key_root` are converted on their way in and out (both functions set).
  void RegisterConversion(const std::string& key_root, StorageConversion conversion);
  // The storage version registered for the key's root, if any.
  std::optional<apimachinery::GroupVersionKind> StorageVersionOf(std::string_view key) const;

  // The stored bytes of `obj` (which carries no resourceVersion) under `key`.
  StatusOr<std::string> Encode(const boost::json::object& obj, std::string_view key) const;
  // An object back from its stored bytes in any of the three forms. A failure is a 500 naming the key.
  StatusOr<boost::json::object> Decode(std::string_view bytes, std::string_view key) const;

 private:
  std::shared_ptr<const StorageConversion> ConversionOf(std::string_view key) const;
  StatusOr<boost::json::object> DecodeStored(std::string_view bytes, std::string_view key) const;

  StorageMediaType media_type_;
  const apimachinery::ProtobufCodec* protobuf_;
  mutable std::shared_mutex mu_;
  std::map<std::string, apimachinery::GroupVersionKind, std::less<>> roots_;  // guarded by mu_
  std::map<std::string, std::shared_ptr<const StorageConversion>, std::less<>> conversions_;  // guarded by mu_
};

}  // namespace capstan::storage
