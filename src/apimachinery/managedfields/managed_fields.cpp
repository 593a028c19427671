// apimachinery/managedfields/managed_fields.cpp: managedFields entries decoded and encoded.
#include "apimachinery/managedfields/managed_fields.h"

#include <algorithm>
#include <boost/json.hpp>
#include <vector>

#include "apimachinery/json_write.h"

namespace capstan::apimachinery::managedfields {

namespace json = boost::json;

std::string ManagerId::Identifier() const {
  json::object o;
  if (!manager.empty()) o["manager"] = manager;
  if (!operation.empty()) o["operation"] = operation;
  if (!api_version.empty()) o["apiVersion"] = api_version;
  if (!subresource.empty()) o["subresource"] = subresource;
  return ToJson(o);
}

std::string DescribeManager(const ManagerId& id) {
  std::string out = ToJson(json::value(id.manager));
  if (!id.subresource.empty()) out += " with subresource " + ToJson(json::value(id.subresource));
  if (id.operation == "Update") out += " using " + id.api_version;
  return out;
}

namespace {

Status Bad(const std::string& m) { return Status(400, "BadRequest", m); }

std::string StringField(const json::object& o, std::string_view k) {
  const auto* v = o.if_contains(k);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

}  // namespace

StatusOr<Managers> DecodeManagedFields(const json::value* mf) {
  Managers out;
  if (!mf || mf->is_null()) return out;
  if (!mf->is_array()) return Bad("managedFields must be a list");
  const auto& arr = mf->get_array();
  for (size_t i = 0; i < arr.size(); ++i) {
    if (!arr[i].is_object()) return Bad("managed fields entry " + std::to_string(i) + " must be an object");
    const auto& e = arr[i].get_object();
    ManagerId id;
    id.manager = StringField(e, "manager");
    id.operation = StringField(e, "operation");
    if (id.operation != "Apply" && id.operation != "Update") return Bad("operation must be `Apply` or `Update`");
    std::string api_version = StringField(e, "apiVersion");
    if (api_version.empty()) return Bad("apiVersion must not be empty");
    std::string fields_type = StringField(e, "fieldsType");
    if (fields_type.empty()) return Bad("missing fieldsType in managed fields entry " + std::to_string(i));
    if (fields_type != "FieldsV1") {
      return Bad("invalid fieldsType \"" + fields_type + "\" in managed fields entry " + std::to_string(i));
    }
    id.subresource = StringField(e, "subresource");
    if (id.operation == "Update") id.api_version = api_version;
    ManagedEntry entry;
    entry.api_version = api_version;
    if (const auto* f = e.if_contains("fieldsV1"); f && !f->is_null()) {
      auto set = FieldSet::FromFieldsV1(*f);
      if (!set.ok()) return Bad("error decoding set: " + set.status().message());
      entry.fields = std::move(*set);
    }
    if (const auto* t = e.if_contains("time"); t && t->is_string()) entry.time = std::string(t->get_string());
    out[id] = std::move(entry);
  }
  return out;
}

json::array EncodeManagedFields(const Managers& m) {
  struct Row {
    const ManagerId* id;
    const ManagedEntry* e;
  };
  std::vector<Row> rows;
  for (const auto& [id, e] : m) rows.push_back({&id, &e});
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    if (a.id->operation != b.id->operation) return a.id->operation < b.id->operation;
    // RFC 3339 times in UTC with second precision sort as strings; no time sorts first.
    std::string ta = a.e->time.value_or(""), tb = b.e->time.value_or("");
    if (ta != tb) return ta < tb;
    if (a.id->manager != b.id->manager) return a.id->manager < b.id->manager;
    if (a.e->api_version != b.e->api_version) return a.e->api_version < b.e->api_version;
    return a.id->subresource < b.id->subresource;
  });
  json::array out;
  for (const auto& r : rows) {
    json::object o;
    if (!r.id->manager.empty()) o["manager"] = r.id->manager;
    o["operation"] = r.id->operation;
    o["apiVersion"] = r.e->api_version;
    if (r.e->time) o["time"] = *r.e->time;
    o["fieldsType"] = "FieldsV1";
    o["fieldsV1"] = r.e->fields.ToFieldsV1();
    if (!r.id->subresource.empty()) o["subresource"] = r.id->subresource;
    out.push_back(std::move(o));
  }
  return out;
}

bool IsResetManagedFields(const json::value* mf) {
  if (!mf || !mf->is_array()) return false;
  const auto& arr = mf->get_array();
  if (arr.empty()) return true;
  return arr.size() == 1 && arr[0].is_object() && arr[0].get_object().empty();
}

}  // namespace capstan::apimachinery::managedfields
