#include "endpoints/openapi_v3.h"

#include <cctype>
#include <set>

#include "util/strings.h"

namespace capstan::endpoints {

namespace json = boost::json;

json::object OpenApiV3Parameter(const OpenApiParam& p) {
  json::object o;
  o["name"] = p.name;
  o["in"] = p.in;
  if (p.required) o["required"] = true;
  json::object schema;
  schema["type"] = p.type;
  schema["uniqueItems"] = true;
  o["schema"] = std::move(schema);
  return o;
}

std::string V3ServerRelativeUrl(const std::string& root, const std::string& etag) {
  // path.Join("/openapi/v3", root) and url.Values{"hash": etag}.Encode().
  std::string url = "/openapi/v3";
  if (!root.empty()) url += "/" + root;
  url += "?hash=";
  for (unsigned char c : etag) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      url.push_back(static_cast<char>(c));
    } else if (c == ' ') {
      url.push_back('+');
    } else {
      static const char* kHex = "0123456789ABCDEF";
      url.push_back('%');
      url.push_back(kHex[c >> 4]);
      url.push_back(kHex[c & 15]);
    }
  }
  return url;
}

json::object BuildOpenApiV3Index(const std::map<std::string, std::string>& etags_by_root) {
  json::object paths;
  for (const auto& [root, etag] : etags_by_root) {
    json::object gv;
    gv["serverRelativeURL"] = V3ServerRelativeUrl(root, etag);
    paths[root] = std::move(gv);
  }
  json::object doc;
  doc["paths"] = std::move(paths);
  return doc;
}

namespace {

json::object Content(const std::vector<std::string>& media_types, const std::string& schema) {
  std::set<std::string> sorted(media_types.begin(), media_types.end());  // Go's map order
  json::object content;
  for (const auto& mt : sorted) {
    json::object m;
    m["schema"] = DefinitionRef(schema, OpenApiVersion::kV3);
    content[mt] = std::move(m);
  }
  return content;
}

json::object Operation(const OpenApiRoute& r, const std::vector<OpenApiParam>& params) {
  json::object op;
  op["tags"] = json::array(r.tags.begin(), r.tags.end());
  op["description"] = r.description;
  op["operationId"] = r.operation_id;
  json::array ps;
  const OpenApiParam* body = nullptr;
  for (const auto& p : params) {
    if (p.in == "body") {
      body = &p;
    } else {
      ps.push_back(OpenApiV3Parameter(p));
    }
  }
  if (!ps.empty()) op["parameters"] = std::move(ps);
  if (body != nullptr) {
    json::object rb;
    rb["content"] = Content(r.consumes, body->schema);
    if (body->required) rb["required"] = true;
    op["requestBody"] = std::move(rb);
  }
  json::object responses;
  for (const auto& resp : r.responses) {
    json::object o;
    o["description"] = resp.description;
    o["content"] = Content(r.produces, resp.schema);
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

json::object BuildOpenApiV3Document(const OpenApiService& service, const OpenApiDefinitions& defs,
                                    const OpenApiInfo& info, std::vector<std::string>* missing) {
  std::map<std::string, std::vector<const OpenApiRoute*>> by_path;
  std::vector<std::string> roots;
  std::set<std::string> seen;
  auto root = [&](const std::string& name) {
    if (!name.empty() && seen.insert(name).second) roots.push_back(name);
  };
  for (const auto& r : service.routes) {
    by_path[r.path].push_back(&r);
    for (const auto& p : r.params) {
      if (p.in == "body") root(p.schema);
    }
    for (const auto& resp : r.responses) root(resp.schema);
  }

  json::object paths;
  paths.reserve(by_path.size());
  for (const auto& [path, routes] : by_path) {
    PathParams split = SplitPathParams(routes);
    json::object item;
    for (size_t i = 0; i < routes.size(); ++i) item[routes[i]->method] = Operation(*routes[i], split.per_route[i]);
    if (!split.common.empty()) {
      json::array ps;
      for (const auto& p : split.common) ps.push_back(OpenApiV3Parameter(p));
      item["parameters"] = std::move(ps);
    }
    paths[path] = std::move(item);
  }

  DefinitionSet set = BuildDefinitions(defs, roots, OpenApiVersion::kV3);
  if (missing) missing->insert(missing->end(), set.missing.begin(), set.missing.end());
  json::object schemas;
  schemas.reserve(set.definitions.size());
  for (auto& [name, schema] : set.definitions) schemas[name] = std::move(schema);

  json::object doc;
  doc["openapi"] = "3.0.0";
  json::object inf;
  inf["title"] = info.title;
  inf["version"] = info.version;
  doc["info"] = std::move(inf);
  doc["paths"] = std::move(paths);
  json::object components;
  components["schemas"] = std::move(schemas);
  json::object schemes;
  json::object bearer;
  bearer["type"] = "apiKey";
  bearer["description"] = "Bearer Token authentication";
  bearer["name"] = "authorization";
  bearer["in"] = "header";
  schemes["BearerToken"] = std::move(bearer);
  components["securitySchemes"] = std::move(schemes);
  doc["components"] = std::move(components);
  return doc;
}

}  // namespace capstan::endpoints
