#include "endpoints/openapi_documents.h"

#include <malloc.h>
#include <openssl/evp.h>

#include <boost/json/parse.hpp>
#include <cstdio>

#include "apimachinery/json_write.h"
#include "endpoints/openapi_proto.h"
#include "endpoints/openapi_routes.h"
#include "endpoints/openapi_v3.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::endpoints {

namespace {

// A build parses the documentation and writes whole documents: megabytes that are free again once
// the bytes are kept. Give them back to the system rather than leave them in the malloc arenas.
void ReleaseBuildMemory() { malloc_trim(0); }

using Clock = std::chrono::steady_clock;

// A custom resource's list kind ({apiVersion, items: [<kind>], kind, metadata: ListMeta}), as kube
// publishes it beside the kind.
std::shared_ptr<const apimachinery::Schema> CustomListSchema(const ResourceEntry& e, const apimachinery::SchemaRegistry* schemas) {
  namespace am = apimachinery;
  auto list = std::make_shared<am::Schema>();
  auto nodes = std::make_shared<std::vector<std::shared_ptr<am::Schema>>>();
  auto node = [&](std::vector<std::string> type, std::string description) {
    auto n = std::make_shared<am::Schema>();
    n->type = std::move(type);
    n->validation_type = n->type;
    n->description = std::move(description);
    nodes->push_back(n);
    return n.get();
  };
  const std::string list_kind = e.info.list_kind.empty() ? e.info.kind + "List" : e.info.list_kind;
  list->type = {"object"};
  list->validation_type = list->type;
  list->description = list_kind + " is a list of " + e.info.kind;
  list->required = {"items"};
  auto add = [&](const std::string& name, const am::Schema* s) {
    list->properties.emplace_back(name, s);
    list->property_index[name] = s;
  };
  add("apiVersion", node({"string"},
                         "APIVersion defines the versioned schema of this representation of an object. Servers should "
                         "convert recognized schemas to the latest internal value, and may reject unrecognized values. "
                         "More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"));
  am::Schema* items = node({"array"}, "List of " + e.info.resource +
                                          ". More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md");
  am::Schema* item = node({}, "");
  item->ref = "#/definitions/" + e.info.definition;
  item->ref_target = e.schema;
  items->items = item;
  add("items", items);
  add("kind", node({"string"},
                   "Kind is a string value representing the REST resource this object represents. Servers may infer "
                   "this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: "
                   "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"));
  am::Schema* meta = node({}, "Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata");
  meta->ref = "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta";
  meta->ref_target = schemas ? schemas->Find("io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta") : nullptr;
  add("metadata", meta);
  list->extensions["x-kubernetes-group-version-kind"] = boost::json::array{
      boost::json::object{{"group", e.info.group}, {"kind", list_kind}, {"version", e.info.version}}};
  // The nodes live as long as the list schema.
  return std::shared_ptr<const am::Schema>(list.get(), [list, nodes](const am::Schema*) {});
}

// Built-in definitions come from the registry; a resource whose definition the registry lacks (a
// custom resource) brings its own schema, and its list kind is made beside it (kept in `holder`).
OpenApiDefinitions DefinitionsFor(const ApiSnapshot& snap, const apimachinery::SchemaRegistry* schemas,
                                  std::vector<std::shared_ptr<const apimachinery::Schema>>& holder) {
  OpenApiDefinitions defs(schemas);
  for (const auto& [gvk, gv] : snap.versions) {
    for (const auto& [key, e] : gv.resources) {
      const std::string& name = e.info.definition;
      if (e.schema == nullptr || name.empty()) continue;
      if (schemas != nullptr && schemas->Find(name) != nullptr) continue;
      defs.Add(name, e.schema);
      if (e.custom && e.info.subresource.empty()) {
        std::string list_name = ListDefinitionName(e.info);
        if (schemas == nullptr || schemas->Find(list_name) == nullptr) {
          holder.push_back(CustomListSchema(e, schemas));
          defs.Add(list_name, holder.back().get());
        }
      }
    }
  }
  return defs;
}

void AppendRouteFingerprint(std::string& fp, const OpenApiRoute& r) {
  fp += r.path;
  fp += '|';
  fp += r.method;
  fp += '|';
  fp += r.operation_id;
  fp += '|';
  fp += r.action;
  fp += '|';
  fp += r.description;
  for (const auto& t : r.tags) fp += "|t:" + t;
  for (const auto& c : r.consumes) fp += "|c:" + c;
  for (const auto& p : r.produces) fp += "|p:" + p;
  for (const auto& p : r.params) {
    fp += "|q:" + p.name + "," + p.in + "," + p.type + "," + p.schema + (p.required ? ",r" : "");
  }
  for (const auto& resp : r.responses) fp += "|s:" + std::to_string(resp.code) + "," + resp.schema;
  if (r.gvk) fp += "|g:" + r.gvk->group + "," + r.gvk->version + "," + r.gvk->kind;
  fp += '\n';
}

// What a service's document is a function of: its routes, and the schemas of the definitions that
// do not come from the (immutable) built-in registry.
std::string Fingerprint(const OpenApiService& svc, const OpenApiDefinitions& defs) {
  std::string fp;
  for (const auto& r : svc.routes) {
    AppendRouteFingerprint(fp, r);
    auto schema = [&](const std::string& name) {
      if (name.empty() || defs.IsBuiltin(name)) return;
      char buf[32];
      std::snprintf(buf, sizeof(buf), "%p", static_cast<const void*>(defs.Find(name)));
      fp += "|x:" + name + "@" + buf;
    };
    for (const auto& p : r.params) schema(p.schema);
    for (const auto& resp : r.responses) schema(resp.schema);
  }
  return fp;
}

std::shared_ptr<const OpenApiDocument> Serialize(const boost::json::object& doc) {
  auto d = std::make_shared<OpenApiDocument>();
  d->json = apimachinery::ToJson(doc);
  d->etag = OpenApiEtag(d->json);
  d->modified = std::chrono::system_clock::now();
  return d;
}

void WarnMissing(const std::vector<std::string>& missing, std::string_view doc) {
  if (missing.empty()) return;
  LogWarn("openapi: referenced definitions are not known", {{"document", doc}, {"definitions", Join(missing, ",")}});
}

int64_t MicrosSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count();
}

}  // namespace

std::string OpenApiEtag(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), md, &len, EVP_sha512(), nullptr) != 1) return std::string();
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  out.reserve(len * 2);
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(kHex[md[i] >> 4]);
    out.push_back(kHex[md[i] & 15]);
  }
  return out;
}

std::shared_ptr<const OpenApiDocument> OpenApiDocuments::V2() {
  std::shared_ptr<const ApiSnapshot> snap = apis_.Snapshot();
  std::shared_ptr<const V2State> cur = std::atomic_load(&v2_);
  if (cur && cur->snapshot == snap) return cur->doc;
  std::lock_guard lock(build_mu_);
  snap = apis_.Snapshot();
  cur = std::atomic_load(&v2_);
  if (cur && cur->snapshot == snap) return cur->doc;

  const auto start = Clock::now();
  std::vector<OpenApiService> services = BuildOpenApiServices(*snap);
  std::vector<std::shared_ptr<const apimachinery::Schema>> custom_lists;
  OpenApiDefinitions defs = DefinitionsFor(*snap, schemas_, custom_lists);
  std::vector<std::string> missing;
  boost::json::object doc = BuildSwaggerDocument(services, defs, info_, &missing);
  WarnMissing(missing, "/openapi/v2");
  auto next = std::make_shared<V2State>();
  next->snapshot = snap;
  next->doc = Serialize(doc);
  ++v2_builds_;
  LogDebug("openapi: built v2 document",
           {{"bytes", static_cast<uint64_t>(next->doc->json.size())}, {"micros", MicrosSince(start)}});
  std::atomic_store(&v2_, std::shared_ptr<const V2State>(next));
  ReleaseBuildMemory();
  return next->doc;
}

std::shared_ptr<const OpenApiDocuments::V3State> OpenApiDocuments::CurrentV3() {
  std::shared_ptr<const ApiSnapshot> snap = apis_.Snapshot();
  std::shared_ptr<const V3State> cur = std::atomic_load(&v3_);
  if (cur && cur->snapshot == snap) return cur;
  std::lock_guard lock(build_mu_);
  snap = apis_.Snapshot();
  cur = std::atomic_load(&v3_);
  if (cur && cur->snapshot == snap) return cur;

  const auto start = Clock::now();
  auto next = std::make_shared<V3State>();
  next->snapshot = snap;
  std::vector<OpenApiService> services = BuildOpenApiServices(*snap);
  std::vector<std::shared_ptr<const apimachinery::Schema>> custom_lists;
  OpenApiDefinitions defs = DefinitionsFor(*snap, schemas_, custom_lists);
  bool changed = !cur || cur->docs.size() != services.size();
  std::map<std::string, std::string> etags;
  size_t rebuilt = 0;
  for (const OpenApiService& svc : services) {
    std::string fp = Fingerprint(svc, defs);
    if (cur) {
      auto it = cur->docs.find(svc.root);
      if (it != cur->docs.end() && it->second.fingerprint == fp) {
        etags[svc.root] = it->second.doc->etag;
        next->docs.emplace(svc.root, it->second);
        continue;
      }
    }
    changed = true;
    std::vector<std::string> missing;
    boost::json::object doc = BuildOpenApiV3Document(svc, defs, info_, &missing);
    WarnMissing(missing, "/openapi/v3/" + svc.root);
    V3Entry entry{std::move(fp), Serialize(doc)};
    etags[svc.root] = entry.doc->etag;
    next->docs.emplace(svc.root, std::move(entry));
    ++v3_builds_;
    ++rebuilt;
  }
  if (!changed && cur) {
    next->index = cur->index;
  } else {
    next->index = Serialize(BuildOpenApiV3Index(etags));
    ++v3_index_builds_;
  }
  LogDebug("openapi: built v3 documents", {{"rebuilt", static_cast<uint64_t>(rebuilt)},
                                           {"documents", static_cast<uint64_t>(next->docs.size())},
                                           {"micros", MicrosSince(start)}});
  std::atomic_store(&v3_, std::shared_ptr<const V3State>(next));
  if (rebuilt > 0) ReleaseBuildMemory();
  return next;
}

const std::string& OpenApiDocuments::V2Protobuf(const OpenApiDocument& v2) {
  std::call_once(v2.proto_once, [&v2] {
    boost::json::parse_options opts;
    opts.max_depth = 10000;
    boost::system::error_code ec;
    boost::json::value parsed = boost::json::parse(v2.json, ec, boost::json::storage_ptr(), opts);
    if (ec || !parsed.is_object()) {
      LogError("openapi: cannot re-read the v2 document for its protobuf form", {{"error", ec.message()}});
      return;
    }
    v2.proto = SwaggerToProtobuf(parsed.get_object());
  });
  return v2.proto;
}

std::shared_ptr<const OpenApiDocument> OpenApiDocuments::V3Index() { return CurrentV3()->index; }

std::shared_ptr<const OpenApiDocument> OpenApiDocuments::V3(std::string_view root) {
  std::shared_ptr<const V3State> state = CurrentV3();
  auto it = state->docs.find(root);
  return it == state->docs.end() ? nullptr : it->second.doc;
}

OpenApiDocuments::Stats OpenApiDocuments::stats() const {
  Stats s;
  s.v2_builds = v2_builds_.load();
  s.v3_builds = v3_builds_.load();
  s.v3_index_builds = v3_index_builds_.load();
  return s;
}

}  // namespace capstan::endpoints
