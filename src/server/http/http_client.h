// server/http/http_client.h: an asynchronous HTTP/1.1 client over TLS, as the layers above the server
// see it (no Asio here): the OIDC authenticator fetches discovery documents and keys with it, the token
// webhook posts TokenReviews, and the authorization and admission webhooks will post their reviews.
//
// An HttpClientFactory makes clients, each with its own TLS configuration (the CA bundle to trust, a
// client certificate to present); a client reuses idle keep-alive connections per host. Do() sends one
// request and resumes the awaiting coroutine on its own executor with the response, whatever its HTTP
// status; only transport failures are errors: a bad URL (400 BadRequest), DNS, connect, TLS or
// protocol failures (503 ServiceUnavailable), a response over max_response_bytes (413), and the
// per-request timeout (504 Timeout). Messages name the method and URL as Go's net/http does:
// `Post "https://h/x": context deadline exceeded`.
//
// The implementation (server/http_client.h) owns one I/O thread. Thread-safety: factories and clients
// are safe to use from any thread concurrently.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "apimachinery/status.h"
#include "server/http/headers.h"
#include "util/task.h"

namespace capstan::http {

struct ClientTlsConfig {
  std::string ca_pem;           // roots to trust; empty: the system's default roots
  std::string client_cert_pem;  // a client certificate (and chain) to present, with its key
  std::string client_key_pem;
  std::string server_name;      // the name to verify (and send as SNI) instead of the URL's host
  bool insecure_skip_verify = false;
};

struct ClientRequest {
  std::string method = "GET";
  std::string url;  // http:// or https://host[:port]/path?query
  Headers headers;  // Host, Content-Length and Connection are set by the client
  std::string body;
  std::chrono::milliseconds timeout{30000};  // the whole exchange, from connect to the last byte
  // Non-zero and shorter than timeout: the response's head must have arrived by then (resolve,
  // connect, TLS handshake, the server's answer); a stream may then go on until timeout.
  std::chrono::milliseconds head_timeout{0};
  size_t max_response_bytes = 10 * 1024 * 1024;
};

struct ClientResponse {
  int status = 0;
  Headers headers;
  std::string body;
};

class HttpClient {
 public:
  virtual ~HttpClient() = default;
  virtual Task<StatusOr<ClientResponse>> Do(ClientRequest req) = 0;
};

class HttpClientFactory {
 public:
  virtual ~HttpClientFactory() = default;
  // Fails on an unusable TLS configuration (unparsable PEM, a key that does not match its certificate).
  virtual StatusOr<std::unique_ptr<HttpClient>> NewClient(const ClientTlsConfig& tls) = 0;
};

// A webhook call as client-go's rest client makes it: POST of a JSON body, JSON accepted (`accept`),
// with the kubeconfig user's bearer token when it has one.
inline ClientRequest JsonPost(std::string url, std::string body, const std::string& bearer_token,
                              std::string accept = "application/json, */*") {
  ClientRequest req;
  req.method = "POST";
  req.url = std::move(url);
  req.headers.Set("Content-Type", "application/json");
  req.headers.Set("Accept", std::move(accept));
  if (!bearer_token.empty()) req.headers.Set("Authorization", "Bearer " + bearer_token);
  req.body = std::move(body);
  return req;
}

// A URL split the way the client needs it.
struct ParsedUrl {
  std::string scheme;  // "http" or "https"
  std::string host;    // without brackets for IPv6
  uint16_t port = 0;
  std::string target;  // path and query, at least "/"
  // host, or [host] for IPv6, plus ":port" when not the scheme's default: the Host header.
  std::string HostHeader() const;
};

// Accepts http and https URLs without user info or fragment; nullopt otherwise.
inline std::optional<ParsedUrl> ParseHttpUrl(std::string_view url) {
  ParsedUrl u;
  auto lower_prefix = [&](std::string_view p) {
    if (url.size() < p.size()) return false;
    for (size_t i = 0; i < p.size(); ++i) {
      char c = url[i];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      if (c != p[i]) return false;
    }
    return true;
  };
  std::string_view rest;
  if (lower_prefix("https://")) {
    u.scheme = "https";
    u.port = 443;
    rest = url.substr(8);
  } else if (lower_prefix("http://")) {
    u.scheme = "http";
    u.port = 80;
    rest = url.substr(7);
  } else {
    return std::nullopt;
  }
  size_t end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, end);
  std::string_view tail = end == std::string_view::npos ? std::string_view() : rest.substr(end);
  if (authority.empty() || authority.find('@') != std::string_view::npos) return std::nullopt;
  if (tail.find('#') != std::string_view::npos) return std::nullopt;
  for (char c : tail) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return std::nullopt;
  }
  std::string_view port;
  if (authority.front() == '[') {
    size_t close = authority.find(']');
    if (close == std::string_view::npos || close == 1) return std::nullopt;
    u.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return std::nullopt;
      port = after.substr(1);
    }
  } else {
    size_t colon = authority.rfind(':');
    if (colon != std::string_view::npos) {
      port = authority.substr(colon + 1);
      authority = authority.substr(0, colon);
    }
    u.host = std::string(authority);
    if (u.host.empty()) return std::nullopt;
  }
  for (char c : u.host) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
              c == '_' || c == ':' || c == '%';
    if (!ok) return std::nullopt;
  }
  if (!port.empty()) {
    if (port.size() > 5) return std::nullopt;
    unsigned p = 0;
    for (char c : port) {
      if (c < '0' || c > '9') return std::nullopt;
      p = p * 10 + static_cast<unsigned>(c - '0');
    }
    if (p == 0 || p > 65535) return std::nullopt;
    u.port = static_cast<uint16_t>(p);
  }
  u.target = tail.empty() || tail.front() != '/' ? "/" + std::string(tail) : std::string(tail);
  return u;
}

inline std::string ParsedUrl::HostHeader() const {
  std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  bool default_port = (scheme == "https" && port == 443) || (scheme == "http" && port == 80);
  if (!default_port) h += ":" + std::to_string(port);
  return h;
}

}  // namespace capstan::http
