// server/http/http_stream.h: streamed responses from the HTTP client (server/http/http_client.h), for
// proxies that must pass a response on while it is still arriving (watches).
//
// DoStream() resumes as soon as the final response's head has arrived, with its status and headers
// (body empty); the body then goes piece by piece (chunked coding removed) to the sink's on_data, and
// on_end is called exactly once, last: OK when the body ended, else the transport error. Both run on
// the client's I/O thread, so a consumer hands the pieces to its own executor. on_data returning false
// stops the exchange (the connection is closed; on_end still follows). Errors before the head are
// returned by DoStream as Do() returns them. The request's timeout covers the whole exchange. The
// Asio client (server/http_client.h) implements it next to HttpClient; callers find it with a
// dynamic_cast. Thread-safety: as HttpClient.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "server/http/byte_stream.h"
#include "server/http/http_client.h"

namespace capstan::http {

struct StreamSink {
  std::function<bool(std::string data)> on_data;
  std::function<void(Status end)> on_end;
};

class StreamingHttpClient {
 public:
  virtual ~StreamingHttpClient() = default;
  virtual Task<StatusOr<ClientResponse>> DoStream(ClientRequest req, StreamSink sink) = 0;
};

// An upgraded request (exec, attach and port-forward at a kubelet): DoUpgrade sends the request (its
// Upgrade header names the protocol; the client adds "Connection: Upgrade") on a new connection and
// resumes once the response's head has arrived. A 101 hands the connection over as `stream` (no
// timeout applies to it from then on; head_timeout, or else timeout, covers the way to the head); any
// other answer is read whole into `response`, as Do() reads it. Implemented next to DoStream.
struct UpgradeResponse {
  ClientResponse response;
  std::unique_ptr<ByteStream> stream;  // set for a 101
};

class UpgradingHttpClient {
 public:
  virtual ~UpgradingHttpClient() = default;
  virtual Task<StatusOr<UpgradeResponse>> DoUpgrade(ClientRequest req) = 0;
};

}  // namespace capstan::http
