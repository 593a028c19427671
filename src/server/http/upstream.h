// server/http/upstream.h: what every proxy in Capstan shares (the aggregator, the */proxy
// subresources, pods/log): the headers a proxy drops or adds, and a response from an upstream server
// read while it is still arriving and relayed to the client piece by piece.
//
// UpstreamStream::Open sends the request through a StreamingHttpClient and resumes once the response's
// head has arrived (errors before it are the client's transport errors). The body then comes from
// Next() in the order it arrived; the client's I/O thread hands the pieces over through a queue the
// request's coroutine drains. Destroying the stream (or Stop) ends the upstream exchange at its next
// piece. RelayBody writes a chosen head and then every piece as a chunk of a chunked response, and
// stops the upstream when the client goes away or a write fails.
// Thread-safety: one stream belongs to one request's coroutine.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "server/http/http_stream.h"
#include "server/http/request_context.h"

namespace capstan::http {

// Hop-by-hop headers a proxy does not forward (either direction).
bool IsHopByHop(std::string_view name);

// The X-Forwarded-For value a proxy sends (Go's ReverseProxy): the prior value, if any, then the
// client's address without its port ("127.0.0.1:5000" -> "127.0.0.1", "[::1]:5000" -> "::1").
std::string ForwardedFor(std::string_view prior, std::string_view remote_addr);

class UpstreamStream {
 public:
  static Task<StatusOr<std::unique_ptr<UpstreamStream>>> Open(StreamingHttpClient& client, ClientRequest req);
  ~UpstreamStream();
  UpstreamStream(const UpstreamStream&) = delete;
  UpstreamStream& operator=(const UpstreamStream&) = delete;

  // Status and headers (the body is empty).
  const ClientResponse& head() const { return head_; }
  // The next piece of the body; nullopt once it ended (see end()) or the stream was stopped.
  Task<std::optional<std::string>> Next();
  // The rest of the body, at most `max` bytes (the upstream is stopped after that many).
  Task<std::string> ReadUpTo(size_t max);
  // After Next() returned nullopt: OK when the body ended, else the transport error.
  Status end() const;
  void Stop();

  struct Queue;  // defined in upstream.cpp

 private:
  UpstreamStream(std::shared_ptr<Queue> q, ClientResponse head) : q_(std::move(q)), head_(std::move(head)) {}
  std::shared_ptr<Queue> q_;
  ClientResponse head_;
};

// Writes `status` and `headers` as the head of a chunked response, then the rest of the body; returns
// the upstream's end (OK when the client went away first).
Task<Status> RelayBody(RequestContext& ctx, UpstreamStream& up, int status, Headers headers);

}  // namespace capstan::http
