// endpoints/scope.h: what every REST handler shares for one request: the resource it addresses, the
// registry Context, the negotiated response format, request-body decoding (JSON, YAML; field
// validation Strict/Warn/Ignore against the kind's schema) and response encoding (objects, lists,
// Status, Table and PartialObjectMetadata conversions, Warning headers).
// A Scope lives on the request's coroutine; not shared between threads.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <vector>

#include "apimachinery/gvk.h"
#include "apimachinery/protobuf_codec.h"
#include "endpoints/api_registry.h"
#include "endpoints/negotiation.h"
#include "registry/rest.h"
#include "server/http/request_context.h"

namespace capstan::endpoints {

struct WatchEventMetrics;  // endpoints/watch_writer.h
class ConnectClients;      // endpoints/connect_proxy.h

struct HandlerLimits {
  size_t max_body_bytes = 3 * 1024 * 1024;
  int min_request_timeout_seconds = 1800;  // watches without timeoutSeconds last 1-2x this
  // The protobuf wire format for built-in kinds; null: JSON and YAML only.
  const apimachinery::ProtobufCodec* protobuf = nullptr;
  WatchEventMetrics* watch_events = nullptr;  // null: not recorded
  // The clients pods/log and the proxy subresources reach kubelets, pods and services with; null:
  // those answer 503.
  ConnectClients* connect = nullptr;
};

class Scope {
 public:
  Scope(const ResourceEntry& entry, http::RequestContext& http, const HandlerLimits& limits);

  const ResourceEntry& entry() const { return entry_; }
  http::RequestContext& http() { return http_; }
  registry::Context& ctx() { return ctx_; }
  const HandlerLimits& limits() const { return limits_; }

  // Negotiates the response format from Accept (once); false after answering 406.
  Task<bool> NegotiateOutputOrFail();
  const OutputFormat& output() const { return out_; }

  // Decodes a create/update body for this resource: media type, size, JSON/YAML syntax, apiVersion and
  // kind (defaulted from the URL, checked against it), types against the schema, unknown fields per
  // fieldValidation (Strict: 400; Warn: warnings). Errors are complete API Statuses.
  StatusOr<registry::Object> DecodeBody(const std::string& field_validation);
  // Decodes an already-parsed JSON value the same way (after a patch).
  StatusOr<registry::Object> DecodeValue(boost::json::value v, const std::string& field_validation,
                                         std::vector<std::string> strict_errors = {});

  // Writes one object (or a Status object) with `code`, in the negotiated format and conversion.
  Task<void> WriteObject(int code, const registry::Object& obj);
  Task<void> WriteList(const registry::ObjectList& list);
  Task<void> WriteStatus(const Status& st);

  // The Table for these objects (one row each); include_columns false for watch events after the first.
  StatusOr<boost::json::object> ToTable(const std::vector<const registry::Object*>& objs, bool include_columns,
                                        const std::string& resource_version = "", const std::string& cont = "",
                                        std::optional<int64_t> remaining = std::nullopt);
  // The PartialObjectMetadata of an object.
  boost::json::object ToPartial(const registry::Object& obj) const;

  // Encodes a JSON value in the negotiated media format (JSON, YAML, or protobuf for `gvk`).
  std::string Encode(const boost::json::value& v) const;
  StatusOr<std::string> EncodeAs(const boost::json::value& v, const apimachinery::GroupVersionKind& gvk) const;
  // The kind this resource's objects (and lists) are.
  apimachinery::GroupVersionKind KindGvk() const;
  apimachinery::GroupVersionKind ListGvk() const;
  // Whether this request may use protobuf (the codec is installed and knows the kind).
  bool ProtobufAllowed() const;

 private:
  // A JSON list of pre-serialized items: one response when small, else streamed in chunks.
  Task<void> WriteSerializedList(const registry::ObjectList& list, const boost::json::object& md);

  const ResourceEntry& entry_;
  http::RequestContext& http_;
  const HandlerLimits& limits_;
  registry::Context ctx_;
  OutputFormat out_;
};

// Query parameter helpers with kube's parameter-codec errors.
StatusOr<std::optional<int64_t>> QueryInt(const http::Query& q, const std::string& name);
std::optional<bool> QueryBool(const http::Query& q, const std::string& name);
// dryRun: only "All" is accepted; returns whether it was given. `kind` names the options kind in the 422.
StatusOr<bool> ParseDryRun(const http::Query& q, const std::string& kind);
// fieldValidation: "", Ignore, Warn, Strict (400 for anything else); "" becomes Warn.
StatusOr<std::string> ParseFieldValidation(const http::Query& q);

}  // namespace capstan::endpoints
