// endpoints/websocket_stream.h: a streamed body (pods/log) to a client that asked for a WebSocket,
// as kube's StreamObject does through wsstream.Reader (golang.org/x/net/websocket): the subprotocol
// is "" or "binary.k8s.io" (binary messages) or "base64.binary.k8s.io" (the bytes base64-encoded in
// text messages), anything else a bare 403; an empty message comes first, then the body in messages
// of at most 2 KiB as it arrives, then a normal close. The client sends nothing; once it closes, the
// upstream is stopped.
#pragma once

#include "endpoints/scope.h"
#include "server/http/upstream.h"

namespace capstan::endpoints {

Task<void> StreamAsWebSocket(Scope& s, http::UpstreamStream& up);

}  // namespace capstan::endpoints
