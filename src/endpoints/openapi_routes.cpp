#include "endpoints/openapi_routes.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "util/strings.h"

namespace capstan::endpoints {

namespace {

constexpr std::string_view kMeta = "io.k8s.apimachinery.pkg.apis.meta.v1.";

std::string Meta(std::string_view kind) { return std::string(kMeta) + std::string(kind); }

// kube's media types for a group's serializer (negotiation.MediaTypesForSerializer).
std::vector<std::string> MediaTypes(bool protobuf) {
  if (protobuf) return {"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"};
  return {"application/json", "application/yaml"};
}
std::vector<std::string> AllMediaTypes(bool protobuf) {
  std::vector<std::string> v = MediaTypes(protobuf);
  v.emplace_back("application/json;stream=watch");
  if (protobuf) v.emplace_back("application/vnd.kubernetes.protobuf;stream=watch");
  return v;
}

OpenApiParam Query(std::string name, std::string type) {
  OpenApiParam p;
  p.name = std::move(name);
  p.in = "query";
  p.type = std::move(type);
  return p;
}
OpenApiParam PathParam(std::string name) {
  OpenApiParam p;
  p.name = std::move(name);
  p.in = "path";
  p.type = "string";
  p.required = true;
  return p;
}
OpenApiParam Body(std::string schema, bool required) {
  OpenApiParam p;
  p.name = "body";
  p.in = "body";
  p.schema = std::move(schema);
  p.required = required;
  return p;
}

void Append(std::vector<OpenApiParam>& to, const std::vector<OpenApiParam>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

// The query parameters of kube-apiserver 1.32's option kinds (AddObjectParams over meta/v1
// ListOptions, CreateOptions, UpdateOptions, PatchOptions, DeleteOptions).
std::vector<OpenApiParam> ListParams(bool for_deletecollection) {
  std::vector<OpenApiParam> v = {Query("labelSelector", "string"), Query("fieldSelector", "string")};
  if (!for_deletecollection) {
    v.push_back(Query("watch", "boolean"));
    v.push_back(Query("allowWatchBookmarks", "boolean"));
  }
  for (auto p : {Query("resourceVersion", "string"), Query("resourceVersionMatch", "string"),
                 Query("timeoutSeconds", "integer"), Query("limit", "integer"), Query("continue", "string"),
                 Query("sendInitialEvents", "boolean")}) {
    v.push_back(std::move(p));
  }
  return v;
}
std::vector<OpenApiParam> WriteParams(bool patch) {
  std::vector<OpenApiParam> v = {Query("dryRun", "string")};
  if (patch) v.push_back(Query("force", "boolean"));
  v.push_back(Query("fieldManager", "string"));
  v.push_back(Query("fieldValidation", "string"));
  return v;
}
std::vector<OpenApiParam> DeleteParams() {
  return {Query("gracePeriodSeconds", "integer"), Query("orphanDependents", "boolean"),
          Query("propagationPolicy", "string"), Query("dryRun", "string"),
          Query("ignoreStoreReadErrorWithClusterBreakingPotential", "boolean")};
}

// Go's cases.Title for a lower-case path segment ("status" -> "Status").
std::string Title(std::string_view s) {
  std::string out;
  bool start = true;
  for (char c : s) {
    const bool letter = std::isalpha(static_cast<unsigned char>(c)) != 0;
    out.push_back(start && letter ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
                                  : static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    start = !letter && !std::isdigit(static_cast<unsigned char>(c)) && c != '\'';
  }
  return out;
}

// kube's GetArticleForNoun(noun, " ").
std::string Article(std::string_view noun) {
  if (!EndsWith(noun, "ss") && EndsWith(noun, "s")) return " ";
  if (noun.empty()) return " a ";
  char c = static_cast<char>(std::tolower(static_cast<unsigned char>(noun[0])));
  return (c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u') ? " an " : " a ";
}

// ToValidOperationID: letters, '_' and non-leading digits kept; anything else capitalizes the next.
std::string ValidOperationId(std::string_view s, bool capitalize_first) {
  std::string out;
  bool capitalize = capitalize_first;
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (std::isalpha(c) || c == '_' || (i != 0 && std::isdigit(c))) {
      out.push_back(capitalize ? static_cast<char>(std::toupper(c)) : static_cast<char>(c));
      capitalize = false;
    } else {
      capitalize = true;
    }
  }
  return out;
}

enum class Verb { kList, kPost, kDeleteCollection, kWatchList, kGet, kPut, kPatch, kDelete, kWatch };

struct Action {
  Verb verb;
  std::string path;  // relative to the service root
  std::vector<OpenApiParam> params;
  bool all_namespaces = false;
};

OpenApiResponse Resp(int code, std::string schema) {
  OpenApiResponse r;
  r.code = code;
  r.description = code == 201 ? "Created" : code == 202 ? "Accepted" : "OK";
  r.schema = std::move(schema);
  return r;
}

OpenApiRoute Discovery(const std::string& path, const std::string& op, const std::string& doc,
                       std::vector<std::string> media, std::string schema) {
  OpenApiRoute r;
  r.path = path;
  r.method = "get";
  r.description = doc;
  OperationIdAndTags(op, path, &r.operation_id, &r.tags);
  r.consumes = media;
  r.produces = std::move(media);
  r.responses.push_back(Resp(200, std::move(schema)));
  return r;
}

void ResourceRoutes(const GroupVersionEntry& gv, const std::string& root, const ResourceEntry& e,
                    std::vector<OpenApiRoute>& out) {
  const registry::ResourceInfo& info = e.info;
  const std::string& resource = info.resource;
  const std::string& subresource = info.subresource;
  const bool is_sub = !subresource.empty();
  // A subresource's operations are named after its parent's kind.
  std::string kind = info.kind;
  if (is_sub) {
    auto parent = gv.resources.find(resource);
    if (parent != gv.resources.end()) kind = parent->second.info.kind;
  }
  const apimachinery::GroupVersionKind gvk{info.kind_group.empty() ? info.group : info.kind_group,
                                           info.kind_version.empty() ? info.version : info.kind_version, info.kind};
  const std::string object = info.definition;
  const bool allow_watch_list = e.watcher != nullptr && e.lister != nullptr;

  std::vector<Action> actions;
  auto add = [&](bool cond, Verb v, std::string path, std::vector<OpenApiParam> params, bool all = false) {
    if (cond) actions.push_back(Action{v, std::move(path), std::move(params), all});
  };
  std::string resource_path;
  std::vector<OpenApiParam> resource_params;
  std::string item_path;
  std::vector<OpenApiParam> name_params;
  if (info.namespaced) {
    resource_path = "namespaces/{namespace}/" + resource;
    resource_params = {PathParam("namespace")};
  } else {
    resource_path = resource;
  }
  item_path = resource_path + "/{name}";
  name_params = resource_params;
  name_params.push_back(PathParam("name"));
  if (is_sub) {
    item_path += "/" + subresource;
    resource_path = item_path;
    resource_params = name_params;
  }
  add(e.lister != nullptr, Verb::kList, resource_path, resource_params);
  add(e.creater != nullptr, Verb::kPost, resource_path, resource_params);
  add(e.collection_deleter != nullptr, Verb::kDeleteCollection, resource_path, resource_params);
  add(allow_watch_list, Verb::kWatchList, "watch/" + resource_path, resource_params);
  add(e.getter != nullptr, Verb::kGet, item_path, name_params);
  add(e.updater != nullptr, Verb::kPut, item_path, name_params);
  add(e.patcher != nullptr, Verb::kPatch, item_path, name_params);
  add(e.deleter != nullptr, Verb::kDelete, item_path, name_params);
  add(e.watcher != nullptr, Verb::kWatch, "watch/" + item_path, name_params);
  if (info.namespaced && !is_sub) {
    add(e.lister != nullptr, Verb::kList, resource, {}, true);
    add(allow_watch_list, Verb::kWatchList, "watch/" + resource, {}, true);
  }

  const std::vector<std::string> media = MediaTypes(e.protobuf);
  const std::vector<std::string> all_media = AllMediaTypes(e.protobuf);
  const std::string sub_title = Title(subresource);
  const std::string article = Article(kind);
  for (const Action& a : actions) {
    OpenApiRoute r;
    r.path = "/" + root + "/" + a.path;
    r.gvk = gvk;
    const std::string namespaced = info.namespaced && !a.all_namespaces ? "Namespaced" : "";
    const std::string suffix = a.all_namespaces ? "ForAllNamespaces" : "";
    std::string op;
    r.params.push_back(Query("pretty", "string"));
    r.consumes = {"*/*"};
    switch (a.verb) {
      case Verb::kGet:
        r.method = "get";
        r.action = "get";
        r.description = is_sub ? "read " + subresource + " of the specified " + kind : "read the specified " + kind;
        op = "read";
        r.produces = media;
        r.responses = {Resp(200, object)};
        break;
      case Verb::kList:
        r.method = "get";
        r.action = "list";
        if (e.lister != nullptr && e.watcher != nullptr) {
          r.description = is_sub ? "list or watch " + subresource + " of objects of kind " + kind
                                 : "list or watch objects of kind " + kind;
        } else {
          r.description = is_sub ? "list " + subresource + " of objects of kind " + kind : "list objects of kind " + kind;
        }
        op = "list";
        r.produces = all_media;
        r.responses = {Resp(200, ListDefinitionName(info))};
        Append(r.params, ListParams(false));
        break;
      case Verb::kPut:
        r.method = "put";
        r.action = "put";
        r.description = is_sub ? "replace " + subresource + " of the specified " + kind : "replace the specified " + kind;
        op = "replace";
        r.produces = media;
        r.responses = {Resp(200, object), Resp(201, object)};
        r.params.push_back(Body(object, true));
        Append(r.params, WriteParams(false));
        break;
      case Verb::kPatch:
        r.method = "patch";
        r.action = "patch";
        r.description = is_sub ? "partially update " + subresource + " of the specified " + kind
                               : "partially update the specified " + kind;
        op = "patch";
        r.consumes = {"application/json-patch+json", "application/merge-patch+json"};
        if (!e.custom) r.consumes.emplace_back("application/strategic-merge-patch+json");
        r.consumes.emplace_back("application/apply-patch+yaml");
        r.produces = media;
        r.responses = {Resp(200, object), Resp(201, object)};
        r.params.push_back(Body(Meta("Patch"), true));
        Append(r.params, WriteParams(true));
        break;
      case Verb::kPost:
        r.method = "post";
        r.action = "post";
        r.description = is_sub ? "create " + subresource + " of" + article + kind : "create" + article + kind;
        op = "create";
        r.produces = media;
        r.responses = {Resp(200, object), Resp(201, object), Resp(202, object)};
        r.params.push_back(Body(object, true));
        Append(r.params, WriteParams(false));
        break;
      case Verb::kDelete: {
        r.method = "delete";
        r.action = "delete";
        r.description = is_sub ? "delete " + subresource + " of" + article + kind : "delete" + article + kind;
        op = "delete";
        r.produces = media;
        // Custom resources answer a delete with the deleted object; built-in kinds with a Status.
        const std::string returned = e.custom ? object : Meta("Status");
        r.responses = {Resp(200, returned), Resp(202, returned)};
        r.params.push_back(Body(Meta("DeleteOptions"), false));
        Append(r.params, DeleteParams());
        break;
      }
      case Verb::kDeleteCollection:
        r.method = "delete";
        r.action = "deletecollection";
        r.description = is_sub ? "delete collection of " + subresource + " of a " + kind : "delete collection of " + kind;
        op = "deletecollection";
        r.produces = media;
        r.responses = {Resp(200, Meta("Status"))};
        r.params.push_back(Body(Meta("DeleteOptions"), false));
        Append(r.params, DeleteParams());
        Append(r.params, ListParams(true));
        break;
      case Verb::kWatch:
        r.method = "get";
        r.action = "watch";
        r.description = (is_sub ? "watch changes to " + subresource + " of an object of kind " + kind
                                : "watch changes to an object of kind " + kind) +
                        ". deprecated: use the 'watch' parameter with a list operation instead, filtered to a single "
                        "item with the 'fieldSelector' parameter.";
        op = "watch";
        r.produces = all_media;
        r.responses = {Resp(200, Meta("WatchEvent"))};
        Append(r.params, ListParams(false));
        break;
      case Verb::kWatchList:
        r.method = "get";
        r.action = "watchlist";
        r.description = (is_sub ? "watch individual changes to a list of " + subresource + " of " + kind
                                : "watch individual changes to a list of " + kind) +
                        ". deprecated: use the 'watch' parameter with a list operation instead.";
        op = "watch";
        r.produces = all_media;
        r.responses = {Resp(200, Meta("WatchEvent"))};
        Append(r.params, ListParams(false));
        break;
    }
    op += namespaced + kind + sub_title + (a.verb == Verb::kWatchList ? "List" : "") + suffix;
    Append(r.params, a.params);
    OperationIdAndTags(op, r.path, &r.operation_id, &r.tags);
    out.push_back(std::move(r));
  }
}

}  // namespace

std::string ListDefinitionName(const registry::ResourceInfo& info) {
  std::string list_kind = info.list_kind.empty() ? info.kind + "List" : info.list_kind;
  const std::string& def = info.definition;
  size_t dot = def.rfind('.');
  if (dot == std::string::npos) return list_kind;
  return def.substr(0, dot + 1) + list_kind;
}

void OperationIdAndTags(const std::string& op, const std::string& path, std::string* id, std::vector<std::string>* tags) {
  static const char* const kVerbs[] = {"get",   "log",     "read",  "replace", "patch", "delete", "deletecollection",
                                       "watch", "connect", "proxy", "list",    "create"};
  // kube's trie answers the shortest verb the name starts with ("deletecollection..." -> "delete").
  std::string prefix;
  for (const char* v : kVerbs) {
    std::string_view sv(v);
    if (StartsWith(op, sv) && (prefix.empty() || sv.size() < prefix.size())) prefix = std::string(sv);
  }
  tags->clear();
  if (prefix.empty()) {
    *id = op;
    return;
  }
  std::string rest = op.substr(prefix.size());
  std::string_view trimmed = path;
  while (!trimmed.empty() && trimmed.front() == '/') trimmed.remove_prefix(1);
  while (!trimmed.empty() && trimmed.back() == '/') trimmed.remove_suffix(1);
  std::vector<std::string> parts = Split(trimmed, '/');
  if (!parts.empty() && parts[0] == "api") {
    parts.erase(parts.begin());
    parts.insert(parts.begin(), {"apis", "core"});
  }
  if (parts.size() >= 2 && parts[0] == "apis") {
    std::string group = parts[1];
    if (EndsWith(group, ".k8s.io")) group.resize(group.size() - std::string_view(".k8s.io").size());
    prefix += ValidOperationId(group, true);
    std::string tag = ValidOperationId(group, false);
    if (parts.size() > 2) {
      prefix += ValidOperationId(parts[2], true);
      tag += "_" + ValidOperationId(parts[2], false);
    }
    tags->push_back(std::move(tag));
  } else if (!parts.empty()) {
    tags->push_back(ValidOperationId(parts[0], false));
  }
  *id = prefix + ValidOperationId(rest, true);
}

OpenApiService GroupVersionService(const GroupVersionEntry& gv) {
  OpenApiService svc;
  svc.root = gv.group.empty() ? "api/" + gv.version : "apis/" + gv.group + "/" + gv.version;
  svc.routes.push_back(Discovery("/" + svc.root + "/", "getAPIResources", "get available resources", MediaTypes(true),
                                 Meta("APIResourceList")));
  for (const auto& [key, entry] : gv.resources) ResourceRoutes(gv, svc.root, entry, svc.routes);
  return svc;
}

std::vector<OpenApiService> BuildOpenApiServices(const ApiSnapshot& snap) {
  std::vector<OpenApiService> out;
  out.push_back({"api", {Discovery("/api/", "getAPIVersions", "get available API versions", MediaTypes(true),
                                   Meta("APIVersions"))}});
  out.push_back({"apis", {Discovery("/apis/", "getAPIVersions", "get available API versions", MediaTypes(true),
                                    Meta("APIGroupList"))}});
  out.push_back({"version", {Discovery("/version/", "getCodeVersion", "get the code version", {"application/json"},
                                       "io.k8s.apimachinery.pkg.version.Info")}});
  for (const GroupEntry& g : snap.groups) {
    if (g.name.empty()) continue;
    out.push_back({"apis/" + g.name, {Discovery("/apis/" + g.name + "/", "getAPIGroup", "get information of a group",
                                                MediaTypes(true), Meta("APIGroup"))}});
  }
  for (const auto& [key, gv] : snap.versions) out.push_back(GroupVersionService(gv));
  std::sort(out.begin(), out.end(), [](const OpenApiService& a, const OpenApiService& b) { return a.root < b.root; });
  return out;
}

PathParams SplitPathParams(const std::vector<const OpenApiRoute*>& routes) {
  PathParams out;
  std::map<std::pair<std::string, std::string>, std::pair<size_t, const OpenApiParam*>> counts;
  for (const OpenApiRoute* r : routes) {
    for (const OpenApiParam& p : r->params) {
      auto& c = counts[{p.name, p.in}];
      ++c.first;
      c.second = &p;
    }
  }
  auto is_common = [&](const OpenApiParam& p) {
    if (p.in == "body") return false;
    auto it = counts.find({p.name, p.in});
    return it != counts.end() && it->second.first == routes.size();
  };
  for (const auto& [key, c] : counts) {  // map order is (name, in) order
    if (is_common(*c.second)) out.common.push_back(*c.second);
  }
  for (const OpenApiRoute* r : routes) {
    std::vector<OpenApiParam> own;
    for (const OpenApiParam& p : r->params) {
      if (!is_common(p)) own.push_back(p);
    }
    std::stable_sort(own.begin(), own.end(), [](const OpenApiParam& a, const OpenApiParam& b) {
      return a.name < b.name || (a.name == b.name && a.in < b.in);
    });
    out.per_route.push_back(std::move(own));
  }
  return out;
}

}  // namespace capstan::endpoints
