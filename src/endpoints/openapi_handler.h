// endpoints/openapi_handler.h: the HTTP side of /openapi/v2 and /openapi/v3, as kube-apiserver
// answers them (kube-openapi's handlers behind the aggregator):
// - Accept negotiation over the clauses of Accept (sorted by q, then specificity; no header means
//   */*), "Vary: Accept" on every answer. JSON is served; for the protobuf forms
//   (application/com.github.proto-openapi.spec.v2@v1.0+protobuf and .v2.v1.0+protobuf, v3 alike)
//   see openapi_proto.h. Nothing acceptable: 406 with an empty body.
// - ETag "<upper-case hex SHA-512>" and Last-Modified on each document; If-None-Match (or, without
//   it, If-Modified-Since) answers 304 Not Modified.
// - /openapi/v3/<root>?hash=<etag>: the current hash is served with "Cache-Control: public,
//   immutable" and an Expires one year ahead; a stale hash is redirected (301) to the current URL.
//   An unknown <root> is a 404 with an empty body.
// Documents come from OpenApiDocuments (cached per ApiRegistry snapshot).
//
// Thread-safety: Handle* may run concurrently on any I/O thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "endpoints/openapi_documents.h"
#include "server/http/request_context.h"

namespace capstan::endpoints {

class OpenApiHandler {
 public:
  OpenApiHandler(const ApiRegistry& apis, const apimachinery::SchemaRegistry* schemas, std::string server_version)
      : docs_(apis, schemas, OpenApiInfo{"Kubernetes", std::move(server_version)}) {}

  // /openapi/v2
  Task<void> HandleV2(http::RequestContext& ctx);
  // /openapi/v3 and /openapi/v3/<root>
  Task<void> HandleV3(http::RequestContext& ctx);

  OpenApiDocuments& documents() { return docs_; }

 private:
  OpenApiDocuments docs_;
};

// One clause of an Accept header, as goautoneg parses it.
struct AcceptClause {
  std::string type;
  std::string subtype;
  double q = 1.0;
};
// The clauses of an Accept header in preference order (q descending; then specific over "*").
std::vector<AcceptClause> ParseAcceptClauses(std::string_view accept);

// True when an If-None-Match header value matches the (unquoted) etag: "*", or a listed
// entity tag equal to it (weak comparison).
bool IfNoneMatchMatches(std::string_view if_none_match, std::string_view etag);

// Go's http.TimeFormat ("Mon, 02 Jan 2006 15:04:05 GMT").
std::string HttpTime(std::chrono::system_clock::time_point t);

}  // namespace capstan::endpoints
