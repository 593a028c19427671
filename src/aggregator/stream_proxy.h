// aggregator/stream_proxy.h: passes a streamed response (a watch) from an aggregated server on to the
// client as it arrives: the head first (status and headers, hop-by-hop ones dropped), then each body
// piece as a chunk of a chunked response. The client's I/O thread hands the pieces over through a
// queue the request's coroutine drains; when the client goes away (or a write fails) the upstream
// exchange is stopped at its next piece (a quiet upstream lingers until the request's timeout).
// Errors before the head answer kube's proxy error (503, text). Thread-safety: one call per request.
#pragma once

#include <string>

#include "server/http/http_stream.h"
#include "server/http/request_context.h"

namespace capstan::aggregator {

Task<void> ProxyStream(http::RequestContext& ctx, http::StreamingHttpClient& client, http::ClientRequest req,
                       const std::string& apiservice);

}  // namespace capstan::aggregator
