#include "apimachinery/object_meta.h"

#include <boost/json/array.hpp>
#include <boost/json/string.hpp>

#include "apimachinery/json_path.h"

namespace capstan::apimachinery {
namespace {

namespace json = boost::json;

const json::value* MetaField(const json::object& obj, std::string_view k) {
  const json::object* m = GetMetadata(obj);
  if (m == nullptr) return nullptr;
  auto it = m->find(k);
  return it == m->end() ? nullptr : &it->value();
}

std::string_view MetaString(const json::object& obj, std::string_view k) {
  const json::value* v = MetaField(obj, k);
  return v != nullptr && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

std::optional<int64_t> AsInt(const json::value* v) {
  if (v == nullptr) return std::nullopt;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64() && v->get_uint64() <= static_cast<uint64_t>(INT64_MAX)) return static_cast<int64_t>(v->get_uint64());
  if (v->is_double() && static_cast<double>(static_cast<int64_t>(v->get_double())) == v->get_double()) {
    return static_cast<int64_t>(v->get_double());
  }
  return std::nullopt;
}

StringPairs MetaMap(const json::object& obj, std::string_view k) {
  StringPairs out;
  const json::value* v = MetaField(obj, k);
  if (v == nullptr || !v->is_object()) return out;
  for (const auto& kv : v->get_object()) {
    if (kv.value().is_string()) out.emplace_back(std::string(kv.key()), std::string(kv.value().get_string()));
  }
  return out;
}

std::string Str(const json::object& o, std::string_view k) {
  auto it = o.find(k);
  return it != o.end() && it->value().is_string() ? std::string(it->value().get_string()) : std::string();
}

std::optional<bool> Bool(const json::object& o, std::string_view k) {
  auto it = o.find(k);
  if (it == o.end() || !it->value().is_bool()) return std::nullopt;
  return it->value().get_bool();
}

void SetMetaString(json::object& obj, std::string_view k, std::string_view v) {
  if (v.empty()) {
    if (json::object* m = const_cast<json::object*>(GetMetadata(obj))) m->stable_erase(k);
    return;
  }
  MutableMetadata(obj)[k] = json::string(v);
}

void SetMapEntry(json::object& obj, std::string_view map, std::string_view key, std::string_view value) {
  json::value& m = MutableMetadata(obj)[map];
  if (!m.is_object()) m = json::object();
  m.get_object()[key] = json::string(value);
}

}  // namespace

json::object OwnerReference::ToJson() const {
  json::object o;
  o["apiVersion"] = api_version;
  o["kind"] = kind;
  o["name"] = name;
  o["uid"] = uid;
  if (controller.has_value()) o["controller"] = *controller;
  if (block_owner_deletion.has_value()) o["blockOwnerDeletion"] = *block_owner_deletion;
  return o;
}

const json::object* GetMetadata(const json::object& obj) {
  auto it = obj.find("metadata");
  return it != obj.end() && it->value().is_object() ? &it->value().get_object() : nullptr;
}

json::object& MutableMetadata(json::object& obj) {
  json::value& m = obj["metadata"];
  if (!m.is_object()) m = json::object();
  return m.get_object();
}

std::string_view GetName(const json::object& obj) { return MetaString(obj, "name"); }
std::string_view GetGenerateName(const json::object& obj) { return MetaString(obj, "generateName"); }
std::string_view GetNamespace(const json::object& obj) { return MetaString(obj, "namespace"); }
std::string_view GetUid(const json::object& obj) { return MetaString(obj, "uid"); }
std::string_view GetResourceVersion(const json::object& obj) { return MetaString(obj, "resourceVersion"); }
int64_t GetGeneration(const json::object& obj) { return AsInt(MetaField(obj, "generation")).value_or(0); }
std::string_view GetCreationTimestamp(const json::object& obj) { return MetaString(obj, "creationTimestamp"); }

std::optional<std::string_view> GetDeletionTimestamp(const json::object& obj) {
  const json::value* v = MetaField(obj, "deletionTimestamp");
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return std::string_view(v->get_string());
}

std::optional<int64_t> GetDeletionGracePeriodSeconds(const json::object& obj) {
  return AsInt(MetaField(obj, "deletionGracePeriodSeconds"));
}

StringPairs GetLabels(const json::object& obj) { return MetaMap(obj, "labels"); }
StringPairs GetAnnotations(const json::object& obj) { return MetaMap(obj, "annotations"); }

std::optional<std::string_view> GetLabel(const json::object& obj, std::string_view key) {
  const json::value* v = MetaField(obj, "labels");
  if (v == nullptr || !v->is_object()) return std::nullopt;
  auto it = v->get_object().find(key);
  if (it == v->get_object().end() || !it->value().is_string()) return std::nullopt;
  return std::string_view(it->value().get_string());
}

std::vector<std::string> GetFinalizers(const json::object& obj) {
  std::vector<std::string> out;
  const json::value* v = MetaField(obj, "finalizers");
  if (v == nullptr || !v->is_array()) return out;
  for (const json::value& f : v->get_array()) {
    if (f.is_string()) out.emplace_back(f.get_string());
  }
  return out;
}

std::vector<OwnerReference> GetOwnerReferences(const json::object& obj) {
  std::vector<OwnerReference> out;
  const json::value* v = MetaField(obj, "ownerReferences");
  if (v == nullptr || !v->is_array()) return out;
  for (const json::value& r : v->get_array()) {
    if (!r.is_object()) continue;
    const json::object& o = r.get_object();
    out.push_back(OwnerReference{Str(o, "apiVersion"), Str(o, "kind"), Str(o, "name"), Str(o, "uid"),
                                 Bool(o, "controller"), Bool(o, "blockOwnerDeletion")});
  }
  return out;
}

std::vector<ManagedFieldsEntry> GetManagedFields(const json::object& obj) {
  std::vector<ManagedFieldsEntry> out;
  const json::value* v = MetaField(obj, "managedFields");
  if (v == nullptr || !v->is_array()) return out;
  for (const json::value& e : v->get_array()) {
    if (!e.is_object()) continue;
    const json::object& o = e.get_object();
    out.push_back(ManagedFieldsEntry{Str(o, "manager"), Str(o, "operation"), Str(o, "apiVersion"), Str(o, "time"),
                                     Str(o, "fieldsType"), Str(o, "subresource")});
  }
  return out;
}

std::string_view GetApiVersion(const json::object& obj) {
  auto v = GetStringPath(obj, {"apiVersion"});
  return v.value_or(std::string_view());
}

std::string_view GetKind(const json::object& obj) {
  auto v = GetStringPath(obj, {"kind"});
  return v.value_or(std::string_view());
}

ObjectMeta ReadObjectMeta(const json::object& obj) {
  ObjectMeta m;
  m.name = GetName(obj);
  m.generate_name = GetGenerateName(obj);
  m.namespace_ = GetNamespace(obj);
  m.uid = GetUid(obj);
  m.resource_version = GetResourceVersion(obj);
  m.generation = GetGeneration(obj);
  m.creation_timestamp = GetCreationTimestamp(obj);
  if (auto d = GetDeletionTimestamp(obj)) m.deletion_timestamp = std::string(*d);
  m.deletion_grace_period_seconds = GetDeletionGracePeriodSeconds(obj);
  m.labels = GetLabels(obj);
  m.annotations = GetAnnotations(obj);
  m.finalizers = GetFinalizers(obj);
  m.owner_references = GetOwnerReferences(obj);
  m.managed_fields = GetManagedFields(obj);
  return m;
}

void SetName(json::object& obj, std::string_view v) { SetMetaString(obj, "name", v); }
void SetGenerateName(json::object& obj, std::string_view v) { SetMetaString(obj, "generateName", v); }
void SetNamespace(json::object& obj, std::string_view v) { SetMetaString(obj, "namespace", v); }
void SetUid(json::object& obj, std::string_view v) { SetMetaString(obj, "uid", v); }
void SetResourceVersion(json::object& obj, std::string_view v) { SetMetaString(obj, "resourceVersion", v); }
void SetCreationTimestamp(json::object& obj, std::string_view v) { SetMetaString(obj, "creationTimestamp", v); }

void SetGeneration(json::object& obj, int64_t v) {
  if (v == 0) {
    if (json::object* m = const_cast<json::object*>(GetMetadata(obj))) m->stable_erase("generation");
    return;
  }
  MutableMetadata(obj)["generation"] = v;
}

void SetDeletionTimestamp(json::object& obj, std::optional<std::string_view> v) {
  if (!v.has_value()) {
    if (json::object* m = const_cast<json::object*>(GetMetadata(obj))) m->stable_erase("deletionTimestamp");
    return;
  }
  MutableMetadata(obj)["deletionTimestamp"] = json::string(*v);
}

void SetDeletionGracePeriodSeconds(json::object& obj, std::optional<int64_t> v) {
  if (!v.has_value()) {
    if (json::object* m = const_cast<json::object*>(GetMetadata(obj))) m->stable_erase("deletionGracePeriodSeconds");
    return;
  }
  MutableMetadata(obj)["deletionGracePeriodSeconds"] = *v;
}

void SetFinalizers(json::object& obj, const std::vector<std::string>& v) {
  if (v.empty()) {
    if (json::object* m = const_cast<json::object*>(GetMetadata(obj))) m->stable_erase("finalizers");
    return;
  }
  json::array a;
  for (const std::string& f : v) a.emplace_back(f);
  MutableMetadata(obj)["finalizers"] = std::move(a);
}

void SetLabel(json::object& obj, std::string_view key, std::string_view value) { SetMapEntry(obj, "labels", key, value); }
void SetAnnotation(json::object& obj, std::string_view key, std::string_view value) {
  SetMapEntry(obj, "annotations", key, value);
}

void SetApiVersionAndKind(json::object& obj, std::string_view api_version, std::string_view kind) {
  obj["kind"] = json::string(kind);  // Go's TypeMeta order: kind, then apiVersion
  obj["apiVersion"] = json::string(api_version);
}

}  // namespace capstan::apimachinery
