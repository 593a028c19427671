#include "endpoints/openapi_v2.h"

#include <map>
#include <set>

#include "apimachinery/json_write.h"
#include "util/strings.h"

namespace capstan::endpoints {

namespace json = boost::json;

json::object BearerTokenScheme() {
  json::object o;
  o["description"] = "Bearer Token authentication";
  o["type"] = "apiKey";
  o["name"] = "authorization";
  o["in"] = "header";
  return o;
}

std::string SharedParameterName(const std::string& param_name, const std::string& param_json) {
  uint64_t h = 14695981039346656037ULL;  // FNV-1, 64 bit
  for (unsigned char c : param_json) {
    h *= 1099511628211ULL;
    h ^= c;
  }
  std::string bytes;
  for (int i = 7; i >= 2; --i) bytes.push_back(static_cast<char>((h >> (8 * i)) & 0xff));  // first 6 bytes, big endian
  return (param_name.empty() ? std::string("param") : param_name) + "-" + Base64UrlEncode(bytes);
}

json::object SwaggerParameter(const OpenApiParam& p) {
  json::object o;
  if (p.in == "body") {
    o["name"] = p.name;
    o["in"] = "body";
    if (p.required) o["required"] = true;
    o["schema"] = DefinitionRef(p.schema, OpenApiVersion::kV2);
    return o;
  }
  o["uniqueItems"] = true;
  o["type"] = p.type;
  o["name"] = p.name;
  o["in"] = p.in;
  if (p.required) o["required"] = true;
  return o;
}

namespace {

// kube keeps these parameters on their operations: the name (its description names the kind),
// fieldValidation and dryRun (kubectl looks for them to detect server support), and bodies that
// carry the kind's own schema.
bool Shareable(const OpenApiParam& p) {
  if ((p.in == "query" || p.in == "path") && p.name == "name") return false;
  if (p.in == "query" && (p.name == "fieldValidation" || p.name == "dryRun")) return false;
  if (p.in == "body" && !StartsWith(p.schema, "io.k8s.apimachinery")) return false;
  return true;
}

class SharedParameters {
 public:
  // The parameter as written in the document: a reference when shareable.
  json::value Use(const OpenApiParam& p) {
    json::object o = SwaggerParameter(p);
    if (!Shareable(p)) return o;
    std::string key = apimachinery::ToJson(o);
    auto it = names_by_json_.find(key);
    if (it == names_by_json_.end()) {
      std::string name = SharedParameterName(p.name, key);
      for (int i = 1; parameters_.count(name); ++i) name = p.name + "-" + std::to_string(i);
      parameters_.emplace(name, std::move(o));
      it = names_by_json_.emplace(std::move(key), name).first;
    }
    json::object ref;
    ref["$ref"] = "#/parameters/" + it->second;
    return ref;
  }
  json::object Take() {
    json::object o;
    for (auto& [k, v] : parameters_) o[k] = std::move(v);
    return o;
  }

 private:
  std::map<std::string, std::string> names_by_json_;
  std::map<std::string, json::object> parameters_;
};

json::array Strings(const std::vector<std::string>& v) {
  json::array a;
  for (const auto& s : v) a.emplace_back(s);
  return a;
}

json::object Operation(const OpenApiRoute& r, const std::vector<OpenApiParam>& params, SharedParameters& shared) {
  json::object op;
  op["description"] = r.description;
  op["consumes"] = Strings(r.consumes);
  op["produces"] = Strings(r.produces);
  op["schemes"] = json::array{"https"};
  op["tags"] = Strings(r.tags);
  op["operationId"] = r.operation_id;
  if (!params.empty()) {
    json::array ps;
    for (const auto& p : params) ps.push_back(shared.Use(p));
    op["parameters"] = std::move(ps);
  }
  json::object responses;
  for (const auto& resp : r.responses) {
    json::object o;
    o["description"] = resp.description;
    o["schema"] = DefinitionRef(resp.schema, OpenApiVersion::kV2);
    responses[std::to_string(resp.code)] = std::move(o);
  }
  json::object unauthorized;
  unauthorized["description"] = "Unauthorized";
  responses["401"] = std::move(unauthorized);
  op["responses"] = std::move(responses);
  if (!r.action.empty()) op["x-kubernetes-action"] = r.action;
  if (r.gvk) {
    json::object g;
    g["group"] = r.gvk->group;
    g["kind"] = r.gvk->kind;
    g["version"] = r.gvk->version;
    op["x-kubernetes-group-version-kind"] = std::move(g);
  }
  return op;
}

}  // namespace

json::object BuildSwaggerDocument(const std::vector<OpenApiService>& services, const OpenApiDefinitions& defs,
                                  const OpenApiInfo& info, std::vector<std::string>* missing) {
  std::map<std::string, std::vector<const OpenApiRoute*>> by_path;
  std::vector<std::string> roots;
  std::set<std::string> seen_roots;
  auto root = [&](const std::string& name) {
    if (!name.empty() && seen_roots.insert(name).second) roots.push_back(name);
  };
  for (const auto& svc : services) {
    for (const auto& r : svc.routes) {
      by_path[r.path].push_back(&r);
      for (const auto& p : r.params) {
        if (p.in == "body") root(p.schema);
      }
      for (const auto& resp : r.responses) root(resp.schema);
    }
  }

  SharedParameters shared;
  json::object paths;
  paths.reserve(by_path.size());
  for (const auto& [path, routes] : by_path) {
    PathParams split = SplitPathParams(routes);
    json::object item;
    for (size_t i = 0; i < routes.size(); ++i) item[routes[i]->method] = Operation(*routes[i], split.per_route[i], shared);
    if (!split.common.empty()) {
      json::array ps;
      for (const auto& p : split.common) ps.push_back(shared.Use(p));
      item["parameters"] = std::move(ps);
    }
    paths[path] = std::move(item);
  }

  DefinitionSet set = BuildDefinitions(defs, roots, OpenApiVersion::kV2);
  if (missing) missing->insert(missing->end(), set.missing.begin(), set.missing.end());
  json::object definitions;
  definitions.reserve(set.definitions.size());
  for (auto& [name, schema] : set.definitions) definitions[name] = std::move(schema);

  json::object doc;
  doc["swagger"] = "2.0";
  json::object inf;
  inf["title"] = info.title;
  inf["version"] = info.version;
  doc["info"] = std::move(inf);
  doc["paths"] = std::move(paths);
  doc["definitions"] = std::move(definitions);
  doc["parameters"] = shared.Take();
  json::object sec;
  sec["BearerToken"] = BearerTokenScheme();
  doc["securityDefinitions"] = std::move(sec);
  json::object req;
  req["BearerToken"] = json::array();
  doc["security"] = json::array{std::move(req)};
  return doc;
}

}  // namespace capstan::endpoints
