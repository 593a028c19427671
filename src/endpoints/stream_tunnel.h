// endpoints/stream_tunnel.h: port-forward for WebSocket clients, as kube 1.32's TunnelingHandler
// (PortForwardWebsockets): a WebSocket request asking for "SPDY/3.1+portforward.k8s.io" carries SPDY
// inside binary messages. The kubelet gets a SPDY upgrade request (POST, Upgrade: SPDY/3.1,
// X-Stream-Protocol-Version: the protocols after the "SPDY/3.1+" prefix, the client's other headers);
// its 101 becomes the WebSocket handshake with "SPDY/3.1+" and the protocol it chose, and then every
// binary message's payload goes to the kubelet as bytes and every piece the kubelet sends back goes
// out as one binary message. A refusal is relayed as the kubelet gave it; no tunnelling protocol is
// kube's 400 "unable to upgrade: no tunneling spdy protocols provided".
#pragma once

#include <chrono>

#include "endpoints/scope.h"
#include "registry/rest.h"
#include "server/http/http_stream.h"

namespace capstan::endpoints {

// kube's wsstream.IsWebSocketRequestWithTunnelingProtocol.
bool WantsTunnel(const http::HttpRequest& req);

Task<void> TunnelPortForward(Scope& s, const registry::ConnectLocation& loc, http::UpgradingHttpClient& client,
                             std::chrono::milliseconds head);

}  // namespace capstan::endpoints
