#include "api/schemas/schema_index.h"

#include "api/schemas/builtin_schemas.h"

namespace capstan::api::testing {

namespace json = boost::json;

std::unique_ptr<SchemaIndex> SchemaIndex::Load(std::vector<std::string>* errors) {
  auto index = std::make_unique<SchemaIndex>();
  index->docs_.reserve(BuiltinSchemaFiles().size());
  for (const BuiltinSchemaFile& file : BuiltinSchemaFiles()) {
    boost::system::error_code ec;
    json::value doc = json::parse(file.text, ec);
    if (ec) {
      errors->push_back(std::string(file.name) + ": " + ec.message());
      continue;
    }
    index->docs_.push_back(std::move(doc));
    const json::value& d = index->docs_.back();
    const json::object* top = d.if_object();
    const json::value* defs = top ? top->if_contains("definitions") : nullptr;
    if (defs == nullptr || !defs->is_object()) {
      errors->push_back(std::string(file.name) + ": no \"definitions\" object");
      continue;
    }
    for (const auto& [name, schema] : defs->get_object()) {
      std::string n(name);
      if (!schema.is_object()) {
        errors->push_back(std::string(file.name) + ": " + n + " is not an object");
        continue;
      }
      if (!index->defs_.emplace(n, &schema.get_object()).second) {
        errors->push_back(std::string(file.name) + ": " + n + " is defined twice");
        continue;
      }
      index->file_of_[n] = std::string(file.name);
      if (const json::value* gvks = schema.get_object().if_contains("x-kubernetes-group-version-kind")) {
        for (const json::value& g : gvks->get_array()) {
          const json::object& o = g.get_object();
          index->kinds_[{std::string(o.at("group").get_string()), std::string(o.at("version").get_string()),
                         std::string(o.at("kind").get_string())}] = n;
        }
      }
    }
  }
  return index;
}

const json::object* SchemaIndex::Find(std::string_view name) const {
  auto it = defs_.find(std::string(name));
  return it == defs_.end() ? nullptr : it->second;
}

std::string SchemaIndex::RefName(std::string_view ref) {
  if (ref.substr(0, kRefPrefix.size()) != kRefPrefix) return "";
  return std::string(ref.substr(kRefPrefix.size()));
}

const json::object* SchemaIndex::Resolve(const json::object& schema) const {
  const json::object* s = &schema;
  for (int depth = 0; depth < 16; ++depth) {
    const json::value* ref = s->if_contains("$ref");
    if (ref == nullptr) return s;
    if (!ref->is_string()) return nullptr;
    s = Find(RefName(ref->get_string()));
    if (s == nullptr) return nullptr;
  }
  return nullptr;
}

std::string SchemaIndex::DefinitionForKind(const std::string& group, const std::string& version,
                                           const std::string& kind) const {
  auto it = kinds_.find({group, version, kind});
  return it == kinds_.end() ? "" : it->second;
}

std::set<std::pair<std::string, std::string>> SchemaIndex::GroupVersions() const {
  std::set<std::pair<std::string, std::string>> out;
  for (const auto& [k, v] : kinds_) out.insert({std::get<0>(k), std::get<1>(k)});
  return out;
}

}  // namespace capstan::api::testing
