// server/http/http_request.h: one parsed request, HTTP/1.1 or HTTP/2. Thread-compatible.
#pragma once

#include <string>
#include <vector>

#include "server/http/headers.h"
#include "server/http/query.h"

namespace capstan::http {

struct HttpRequest {
  std::string method;   // "GET"
  std::string target;   // the raw request-target: "/api/v1/namespaces?limit=5"
  std::string path;     // the percent-decoded path: "/api/v1/namespaces"
  std::string raw_path; // the path as sent (still escaped)
  std::string raw_query;
  Query query;
  int version_major = 1;  // 2 for HTTP/2 (then version_minor is 0)
  int version_minor = 1;  // HTTP/1.<minor>
  Headers headers;
  std::string body;
  bool keep_alive = true;

  // Connection facts the server fills in.
  std::string remote_addr;                   // "127.0.0.1:53412"
  std::vector<std::string> peer_certs_der;   // the client's certificate chain, leaf first (unverified)
};

// What the connection treats as long-running before the filters have resolved the request (for
// graceful shutdown, which cancels those): a watch query or a /watch/ path.
inline bool LooksLongRunning(const HttpRequest& r) {
  return r.query.Has("watch") || r.path.find("/watch/") != std::string::npos;
}

}  // namespace capstan::http
