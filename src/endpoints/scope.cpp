#include "endpoints/scope.h"

#include <boost/json.hpp>
#include <chrono>

#include "apimachinery/errors.h"
#include "apimachinery/json_parse.h"
#include "apimachinery/json_stored.h"
#include "apimachinery/json_write.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/schema_prune.h"
#include "apimachinery/status_json.h"
#include "apimachinery/time_util.h"
#include "apimachinery/yaml.h"
#include "endpoints/type_check.h"
#include "registry/table.h"
#include "server/http/responses.h"
#include "util/strings.h"

namespace capstan::endpoints {

namespace am = capstan::apimachinery;
namespace json = boost::json;

Scope::Scope(const ResourceEntry& entry, http::RequestContext& http, const HandlerLimits& limits)
    : entry_(entry), http_(http), limits_(limits) {
  ctx_.namespace_ = http.info.namespace_;
  ctx_.user = http.user ? &*http.user : nullptr;
  ctx_.subresource = entry.info.subresource;
  ctx_.scope = &http.scope;
}

Task<bool> Scope::NegotiateOutputOrFail() {
  auto f = NegotiateOutput(http_.request.headers.Get("Accept"), ProtobufAllowed());
  if (!f.ok()) {
    co_await WriteStatus(f.status());
    co_return false;
  }
  out_ = *f;
  co_return true;
}

am::GroupVersionKind Scope::KindGvk() const { return am::FromApiVersionAndKind(entry_.info.ApiVersion(), entry_.info.kind); }
am::GroupVersionKind Scope::ListGvk() const {
  return am::FromApiVersionAndKind(entry_.info.ApiVersion(), entry_.info.list_kind);
}

bool Scope::ProtobufAllowed() const {
  return entry_.protobuf && limits_.protobuf && limits_.protobuf->HasProtobufForm(KindGvk());
}

StatusOr<std::string> Scope::EncodeAs(const json::value& v, const am::GroupVersionKind& gvk) const {
  if (out_.format == MediaFormat::kProtobuf && limits_.protobuf) return limits_.protobuf->EncodeObject(gvk, v);
  return Encode(v);
}

std::string Scope::Encode(const json::value& v) const {
  if (out_.format == MediaFormat::kYaml) return am::JsonToYaml(v);
  std::string s = am::ToJson(v);
  s.push_back('\n');
  return s;
}

Task<void> Scope::WriteStatus(const Status& st) {
  http::HttpResponse resp = http::StatusResponse(st);
  if (out_.format == MediaFormat::kProtobuf && limits_.protobuf) {
    auto pb = limits_.protobuf->EncodeObject({"", "v1", "Status"}, am::StatusToJson(st));
    if (pb.ok()) {
      resp.headers.Set("Content-Type", "application/vnd.kubernetes.protobuf");
      resp.body = std::move(*pb);
    }
  }
  co_await http_.writer->Respond(std::move(resp));
}

json::object Scope::ToPartial(const registry::Object& obj) const {
  json::object p;
  p["kind"] = "PartialObjectMetadata";
  p["apiVersion"] = "meta.k8s.io/" + out_.conversion_version;
  if (const auto* md = obj.if_contains("metadata")) p["metadata"] = *md;
  else p["metadata"] = json::object();
  return p;
}

StatusOr<json::object> Scope::ToTable(const std::vector<const registry::Object*>& objs, bool include_columns,
                                      const std::string& resource_version, const std::string& cont,
                                      std::optional<int64_t> remaining) {
  std::string include = http_.request.query.GetOr("includeObject", "");
  if (!include.empty() && include != "None" && include != "Metadata" && include != "Object") {
    return am::NewBadRequest("unrecognized includeObject value: " + GoQuote(include));
  }
  json::object t;
  t["kind"] = "Table";
  t["apiVersion"] = "meta.k8s.io/" + out_.conversion_version;
  json::object md;
  if (!resource_version.empty()) md["resourceVersion"] = resource_version;
  if (!cont.empty()) md["continue"] = cont;
  if (remaining) md["remainingItemCount"] = *remaining;
  t["metadata"] = std::move(md);
  std::vector<registry::TableColumn> columns =
      entry_.table ? entry_.table->TableColumns() : registry::DefaultTableColumns();
  if (include_columns) {
    json::array cols;
    for (const auto& c : columns) {
      json::object col;
      col["name"] = c.name;
      col["type"] = c.type;
      col["format"] = c.format;
      col["description"] = c.description;
      col["priority"] = c.priority;
      cols.push_back(std::move(col));
    }
    t["columnDefinitions"] = std::move(cols);
  } else {
    t["columnDefinitions"] = nullptr;
  }
  json::array rows;
  for (const auto* o : objs) {
    json::object row;
    row["cells"] = entry_.table ? entry_.table->TableCells(*o) : registry::DefaultTableCells(*o);
    if (include == "Object") {
      row["object"] = *o;
    } else if (include != "None") {
      row["object"] = ToPartial(*o);
    }
    rows.push_back(std::move(row));
  }
  t["rows"] = std::move(rows);
  return t;
}

Task<void> Scope::WriteObject(int code, const registry::Object& obj) {
  http::HttpResponse resp;
  resp.status = code;
  resp.headers.Set("Content-Type", out_.ContentType());
  const bool is_status = am::GetKind(obj) == "Status";
  if (out_.conversion == Conversion::kTable && !is_status) {
    auto t = ToTable({&obj}, true, std::string(am::GetResourceVersion(obj)));
    if (!t.ok()) {
      co_await WriteStatus(t.status());
      co_return;
    }
    resp.body = Encode(*t);
  } else if (out_.conversion == Conversion::kPartialObjectMetadata && !is_status) {
    resp.body = Encode(ToPartial(obj));
  } else if (out_.conversion == Conversion::kPartialObjectMetadataList && !is_status) {
    co_await WriteStatus(am::NewNotAcceptableConversion("PartialObjectMetadataList", {"application/json", "application/yaml"}));
    co_return;
  } else {
    if (out_.conversion != Conversion::kNone) resp.headers.Set("Content-Type", "application/json");
    auto gvk = is_status ? am::GroupVersionKind{"", "v1", "Status"} : KindGvk();
    auto body = EncodeAs(obj, gvk);
    if (!body.ok()) {
      co_await WriteStatus(body.status());
      co_return;
    }
    resp.body = std::move(*body);
  }
  co_await http_.writer->Respond(std::move(resp));
}

Task<void> Scope::WriteList(const registry::ObjectList& list) {
  http::HttpResponse resp;
  resp.status = 200;
  resp.headers.Set("Content-Type", out_.ContentType());
  json::object md;
  if (!list.resource_version.empty()) md["resourceVersion"] = list.resource_version;  // omitempty, as kube's ListMeta
  if (!list.continue_token.empty()) md["continue"] = list.continue_token;
  if (list.remaining_item_count) md["remainingItemCount"] = *list.remaining_item_count;
  if (!list.serialized_items.empty()) {
    if (out_.conversion == Conversion::kNone && out_.format == MediaFormat::kJson) {
      co_await WriteSerializedList(list, md);
      co_return;
    }
    // Only asked for plain JSON; anything else needs the objects.
    registry::ObjectList parsed = list;
    parsed.serialized_items.clear();
    for (const auto& s : list.serialized_items) {
      auto item = am::ParseStoredJson(*s);
      if (!item.ok() || !item->is_object()) {
        co_await WriteStatus(am::NewInternalError("unable to decode a listed object: " +
                                                  (item.ok() ? std::string("not a JSON object") : item.status().message())));
        co_return;
      }
      parsed.items.push_back(std::move(item->get_object()));
    }
    co_await WriteList(parsed);
    co_return;
  }
  if (out_.conversion == Conversion::kTable) {
    std::vector<const registry::Object*> ptrs;
    ptrs.reserve(list.items.size());
    for (const auto& i : list.items) ptrs.push_back(&i);
    auto t = ToTable(ptrs, true, list.resource_version, list.continue_token, list.remaining_item_count);
    if (!t.ok()) {
      co_await WriteStatus(t.status());
      co_return;
    }
    resp.body = Encode(*t);
  } else if (out_.conversion == Conversion::kPartialObjectMetadata) {
    co_await WriteStatus(am::NewNotAcceptableConversion("PartialObjectMetadata", {"application/json", "application/yaml"}));
    co_return;
  } else if (out_.conversion == Conversion::kPartialObjectMetadataList || out_.format != MediaFormat::kJson) {
    json::object l;
    if (out_.conversion == Conversion::kPartialObjectMetadataList) {
      l["kind"] = "PartialObjectMetadataList";
      l["apiVersion"] = "meta.k8s.io/" + out_.conversion_version;
    } else {
      l["kind"] = entry_.info.list_kind;
      l["apiVersion"] = entry_.info.ApiVersion();
    }
    l["metadata"] = md;
    json::array items;
    for (const auto& i : list.items) {
      if (out_.conversion == Conversion::kPartialObjectMetadataList) {
        items.push_back(ToPartial(i));
      } else {
        items.push_back(i);
      }
    }
    l["items"] = std::move(items);
    auto body = EncodeAs(l, ListGvk());
    if (!body.ok()) {
      co_await WriteStatus(body.status());
      co_return;
    }
    resp.body = std::move(*body);
  } else {
    // JSON: the items are written one after the other, without building the list as one value.
    std::string& out = resp.body;
    out.reserve(256 + list.items.size() * 512);
    out += "{\"kind\":";
    am::AppendJsonString(out, entry_.info.list_kind);
    out += ",\"apiVersion\":";
    am::AppendJsonString(out, entry_.info.ApiVersion());
    out += ",\"metadata\":";
    am::AppendJson(out, md);
    out += ",\"items\":[";
    for (size_t i = 0; i < list.items.size(); ++i) {
      if (i) out.push_back(',');
      am::AppendJson(out, list.items[i]);
    }
    out += "]}\n";
  }
  co_await http_.writer->Respond(std::move(resp));
}

Task<void> Scope::WriteSerializedList(const registry::ObjectList& list, const json::object& md) {
  // The items' bytes are the watch cache's, shared: they are copied once, into the write buffer. A
  // large list goes out in chunks, so a response never exists whole in memory.
  constexpr size_t kChunk = 256 * 1024;
  std::string head = "{\"kind\":";
  am::AppendJsonString(head, entry_.info.list_kind);
  head += ",\"apiVersion\":";
  am::AppendJsonString(head, entry_.info.ApiVersion());
  head += ",\"metadata\":";
  am::AppendJson(head, md);
  head += ",\"items\":[";
  size_t total = head.size() + 3;
  for (const auto& s : list.serialized_items) total += s->size() + 1;
  if (total <= 4 * kChunk) {
    http::HttpResponse resp;
    resp.status = 200;
    resp.headers.Set("Content-Type", out_.ContentType());
    resp.body.reserve(total);
    resp.body = std::move(head);
    for (size_t i = 0; i < list.serialized_items.size(); ++i) {
      if (i) resp.body.push_back(',');
      resp.body += *list.serialized_items[i];
    }
    resp.body += "]}\n";
    co_await http_.writer->Respond(std::move(resp));
    co_return;
  }
  http::Headers headers;
  headers.Set("Content-Type", out_.ContentType());
  if (!co_await http_.writer->StartStream(200, std::move(headers))) co_return;
  std::string chunk = std::move(head);
  chunk.reserve(kChunk + 64 * 1024);
  for (size_t i = 0; i < list.serialized_items.size(); ++i) {
    if (i) chunk.push_back(',');
    chunk += *list.serialized_items[i];
    if (chunk.size() >= kChunk) {
      if (!co_await http_.writer->WriteChunk(std::move(chunk))) co_return;
      chunk = std::string();
      chunk.reserve(kChunk + 64 * 1024);
    }
  }
  chunk += "]}\n";
  if (co_await http_.writer->WriteChunk(std::move(chunk))) co_await http_.writer->EndStream();
}

namespace {

// What kube's SimpleMetaFactory.Interpret says of a body that is JSON but not an object.
std::string NotAnObjectError(const json::value& v) {
  std::string got = v.is_array() ? "array" : v.is_string() ? "string" : v.is_null() ? "null" : v.is_bool() ? "bool" : "number";
  return std::string(am::kFindKindErrorPrefix) + "json: cannot unmarshal " + got +
         " into Go value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; "
         "Kind string \"json:\\\"kind,omitempty\\\"\" }";
}

}  // namespace

StatusOr<registry::Object> Scope::DecodeBody(const std::string& field_validation) {
  auto fmt = NegotiateBody(http_.request.headers.Get("Content-Type"), ProtobufAllowed(), false);
  if (!fmt.ok()) return fmt.TakeStatus();
  const std::string& body = http_.request.body;
  if (body.size() > limits_.max_body_bytes) {
    return am::NewRequestEntityTooLargeError("limit is " + std::to_string(limits_.max_body_bytes));
  }
  const bool strict = field_validation != "Ignore";
  if (*fmt == BodyFormat::kProtobuf) {
    auto decoded = limits_.protobuf->DecodeRequestBody(body, KindGvk());
    if (!decoded.ok()) return decoded.TakeStatus();
    if (decoded->gvk.GetGroupVersion().String() != entry_.info.ApiVersion()) {
      return am::NewBadRequest("the API version in the data (" + decoded->gvk.GetGroupVersion().String() +
                               ") does not match the expected API version (" + entry_.info.ApiVersion() + ")");
    }
    json::value v = std::move(decoded->object);
    if (v.is_object()) {
      v.get_object()["apiVersion"] = decoded->gvk.ApiVersion();
      v.get_object()["kind"] = decoded->gvk.kind;
    }
    return DecodeValue(std::move(v), "Ignore");
  }
  if (*fmt == BodyFormat::kYaml) {
    am::YamlParseOptions yo;
    yo.strict = strict;
    auto y = am::YamlToJson(body, yo);
    if (!y.ok()) return am::NewDecodeError(entry_.info.kind, nullptr, y.status().message(), body);
    std::vector<std::string> strict_errors;
    if (!y->strict_errors.empty()) strict_errors.push_back(am::YamlStrictErrorMessage(y->strict_errors));
    return DecodeValue(std::move(y->value), field_validation, std::move(strict_errors));
  }
  am::JsonParseOptions jo;
  jo.strict = strict;
  auto j = am::ParseJson(body, jo);
  // kube's serializer cannot read apiVersion/kind from such a body, so transformDecodeError quotes
  // the body's first bytes.
  if (!j.ok()) {
    return am::NewDecodeError(entry_.info.kind, nullptr, std::string(am::kFindKindErrorPrefix) + j.status().message(),
                              body);
  }
  if (!j->value.is_object()) return am::NewDecodeError(entry_.info.kind, nullptr, NotAnObjectError(j->value), body);
  return DecodeValue(std::move(j->value), field_validation, std::move(j->strict_errors));
}

StatusOr<registry::Object> Scope::DecodeValue(json::value v, const std::string& field_validation,
                                              std::vector<std::string> strict_errors) {
  const auto& info = entry_.info;
  if (!v.is_object()) return am::NewBadRequest(NotAnObjectError(v));
  json::object& obj = v.get_object();
  // apiVersion and kind default to the endpoint's, and must match it when given.
  std::string api_version = obj.contains("apiVersion") && obj["apiVersion"].is_string()
                                ? std::string(obj["apiVersion"].get_string())
                                : std::string();
  std::string kind = obj.contains("kind") && obj["kind"].is_string() ? std::string(obj["kind"].get_string()) : "";
  if (api_version.empty()) api_version = info.ApiVersion();
  if (kind.empty()) kind = info.kind;
  if (api_version != info.ApiVersion()) {
    return am::NewBadRequest("the API version in the data (" + api_version + ") does not match the expected API version (" +
                             info.ApiVersion() + ")");
  }
  if (kind != info.kind) {
    auto gvk = am::FromApiVersionAndKind(api_version, kind);
    return am::NewDecodeError(info.kind, &gvk, "the kind in the data does not match the resource", "");
  }
  obj["apiVersion"] = api_version;
  obj["kind"] = kind;
  if (entry_.schema && entry_.custom) {
    // Custom resources decode into unstructured objects: a wrong type is a validation error (422)
    // later, and fields the schema does not specify are pruned (reported for Warn/Strict).
    for (auto& p : am::PruneBySchema(v, entry_.schema, true)) strict_errors.push_back(am::UnknownFieldMessage(p));
  } else if (entry_.schema) {
    // Wrong types fail decoding, as they do for kube's typed decoder.
    if (auto type_err = CheckTypes(v, entry_.schema, info.kind); !type_err.empty()) {
      auto gvk = am::FromApiVersionAndKind(api_version, kind);
      return am::NewDecodeError(info.kind, &gvk, type_err, "");
    }
    if (!entry_.custom) {
      for (auto& p : am::PruneBySchema(v, entry_.schema, true)) strict_errors.push_back(am::UnknownFieldMessage(p));
    }
  }
  if (!strict_errors.empty()) {
    if (field_validation == "Strict") {
      auto gvk = am::FromApiVersionAndKind(api_version, kind);
      return am::NewDecodeError(info.kind, &gvk, "strict decoding error: " + Join(strict_errors, ", "), "");
    }
    if (field_validation == "Warn") {
      for (auto& e : strict_errors) http_.scope.AddWarning(e);
    }
  }
  return std::move(v.get_object());
}

StatusOr<std::optional<int64_t>> QueryInt(const http::Query& q, const std::string& name) {
  auto v = q.Get(name);
  if (!v) return std::optional<int64_t>();
  try {
    size_t pos = 0;
    long long n = std::stoll(*v, &pos, 10);
    if (pos != v->size()) throw std::invalid_argument("x");
    return std::optional<int64_t>(n);
  } catch (...) {
    return am::NewBadRequest("strconv.ParseInt: parsing " + GoQuote(*v) + ": invalid syntax");
  }
}

std::optional<bool> QueryBool(const http::Query& q, const std::string& name) {
  auto v = q.Get(name);
  if (!v) return std::nullopt;
  return !(*v == "0" || EqualsIgnoreCase(*v, "false"));
}

StatusOr<bool> ParseDryRun(const http::Query& q, const std::string& kind) {
  const auto* vals = q.GetAll("dryRun");
  if (!vals || vals->empty()) return false;
  ErrorList errs;
  for (size_t i = 0; i < vals->size(); ++i) {
    if ((*vals)[i] != "All") errs.push_back(NotSupportedError(FieldPath("dryRun").Index(i), (*vals)[i], {"All"}));
  }
  if (!errs.empty()) return am::NewInvalid({"meta.k8s.io", kind}, "", errs);
  return true;
}

StatusOr<std::string> ParseFieldValidation(const http::Query& q) {
  std::string v = q.GetOr("fieldValidation", "");
  if (v.empty()) return std::string("Warn");
  if (v == "Ignore" || v == "Warn" || v == "Strict") return v;
  return am::NewBadRequest("fieldValidation " + GoQuote(v) +
                           " is not supported: supported values are \"Ignore\", \"Warn\", \"Strict\"");
}

}  // namespace capstan::endpoints
