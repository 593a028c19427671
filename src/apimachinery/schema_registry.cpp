#include "apimachinery/schema_registry.h"

#include <boost/json/parse.hpp>
#include <unordered_set>

#include "util/strings.h"

namespace capstan::apimachinery {

namespace json = boost::json;

namespace {

// Schema JSON nests two levels per schema level ("properties" -> name -> schema).
constexpr size_t kMaxSchemaJsonDepth = 600;

StatusOr<json::value> ParseJsonText(std::string_view text) {
  json::parse_options opts;
  opts.max_depth = kMaxSchemaJsonDepth;
  boost::system::error_code ec;
  json::value v = json::parse(text, ec, json::storage_ptr(), opts);
  if (ec) return Status(400, "BadRequest", "invalid schema JSON: " + ec.message());
  return v;
}

// "#/definitions/<name>" or "#/components/schemas/<name>" -> <name>.
std::optional<std::string_view> RefName(std::string_view ref) {
  for (std::string_view prefix : {std::string_view("#/definitions/"), std::string_view("#/components/schemas/")}) {
    if (StartsWith(ref, prefix) && ref.size() > prefix.size()) return ref.substr(prefix.size());
  }
  return std::nullopt;
}

}  // namespace

SchemaRegistry::SchemaRegistry() = default;
SchemaRegistry::~SchemaRegistry() = default;

Status SchemaRegistry::AddDocument(const json::value& doc) {
  if (!doc.is_object()) return Status(400, "BadRequest", "a definitions document must be a JSON object");
  const json::value* defs = doc.get_object().if_contains("definitions");
  if (defs == nullptr) {
    if (const json::value* comps = doc.get_object().if_contains("components"); comps && comps->is_object()) {
      defs = comps->get_object().if_contains("schemas");
    }
  }
  if (defs == nullptr || !defs->is_object()) {
    return Status(400, "BadRequest", "a definitions document needs a \"definitions\" object");
  }
  for (const auto& kv : defs->get_object()) {
    RETURN_IF_ERROR(Add(std::string(kv.key()), kv.value()));
  }
  return Status::Ok();
}

Status SchemaRegistry::AddDocumentJson(std::string_view json_text) {
  ASSIGN_OR_RETURN(json::value doc, ParseJsonText(json_text));
  return AddDocument(doc);
}

const Schema* SchemaRegistry::Find(std::string_view name) const {
  auto it = definitions_.find(name);
  if (it != definitions_.end()) return it->second;
  return fallback_ ? fallback_->Find(name) : nullptr;
}

void SchemaRegistry::AddDescriptions(std::string package, std::string_view json_text) {
  descriptions_[std::move(package)] = json_text;
}

std::string_view SchemaRegistry::DescriptionsFor(std::string_view definition) const {
  size_t dot = definition.rfind('.');
  if (dot != std::string_view::npos) {
    if (auto it = descriptions_.find(definition.substr(0, dot)); it != descriptions_.end()) return it->second;
  }
  return fallback_ ? fallback_->DescriptionsFor(definition) : std::string_view();
}

Status SchemaRegistry::Resolve(std::shared_ptr<const SchemaRegistry> fallback) {
  if (resolved_) return Status(500, "InternalError", "schema registry is already resolved");
  fallback_ = std::move(fallback);
  for (Schema& s : nodes_) {
    if (s.ref.empty()) continue;
    auto name = RefName(s.ref);
    const Schema* target = name ? Find(*name) : nullptr;
    if (target == nullptr) return Status(400, "BadRequest", "schema $ref " + GoQuote(s.ref) + " does not resolve");
    s.ref_target = target;
  }
  // A chain of bare references must end at a node with structure.
  for (const Schema& s : nodes_) {
    std::unordered_set<const Schema*> seen;
    for (const Schema* p = &s; p->ref_target != nullptr; p = p->ref_target) {
      if (!seen.insert(p).second || seen.size() > 32) {
        return Status(400, "BadRequest", "schema $ref " + GoQuote(s.ref) + " is part of a reference cycle");
      }
    }
  }
  resolved_ = true;
  return Status::Ok();
}

namespace {
struct StandaloneSchema {
  SchemaRegistry arena;
  const Schema* root = nullptr;
};
}  // namespace

StatusOr<std::shared_ptr<const Schema>> ParseSchema(const json::value& schema_json,
                                                    std::shared_ptr<const SchemaRegistry> definitions) {
  auto holder = std::make_shared<StandaloneSchema>();
  ASSIGN_OR_RETURN(holder->root, holder->arena.ParseAnonymous(schema_json));
  RETURN_IF_ERROR(holder->arena.Resolve(std::move(definitions)));
  const Schema* root = holder->root;
  return std::shared_ptr<const Schema>(std::move(holder), root);
}

StatusOr<std::shared_ptr<const Schema>> ParseSchemaJson(std::string_view json_text,
                                                        std::shared_ptr<const SchemaRegistry> definitions) {
  ASSIGN_OR_RETURN(json::value v, ParseJsonText(json_text));
  return ParseSchema(v, std::move(definitions));
}

}  // namespace capstan::apimachinery
