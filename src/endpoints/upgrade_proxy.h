// endpoints/upgrade_proxy.h: an upgrade request (SPDY or WebSocket: exec, attach, port-forward, and
// upgrades through */proxy) answered from the server a Connecter's location names, as kube's
// UpgradeAwareHandler does it: the request goes on to the location on a new connection (the client's
// headers, X-Forwarded-For added; the location's own query for exec, attach and port-forward); a 101
// from there is relayed to the client as it came and the two connections are spliced, byte for byte,
// until either side ends; any other answer of 400 or more is relayed whole, one below 400 is kube's 500
// "invalid upgrade response: status code N", a transport failure its 500 "error dialing backend: ..."
// (no reason: kube's errors that are not API statuses).
//
// Splice is the relay itself, for the stream translators beside it.
#pragma once

#include <chrono>

#include "endpoints/scope.h"
#include "registry/rest.h"
#include "server/http/http_stream.h"

namespace capstan::endpoints {

// Relays bytes both ways until one side ends, then closes both.
Task<void> Splice(http::ByteStream& a, http::ByteStream& b);

// The location's URL: base, escaped path, and its query as url.Values.Encode writes it.
std::string LocationUrl(const registry::ConnectLocation& loc);

// What a proxy sends on for the client's upgrade request: its method, headers (credentials and the
// hop-by-hop ones but Upgrade dropped), body, and X-Forwarded-For.
http::ClientRequest ForwardedUpgradeRequest(const http::HttpRequest& in, std::string url);

// Dials with `req`; a transport error, a refusal or a non-101 is answered to the client here (nullopt).
Task<std::optional<http::UpgradeResponse>> DialUpgrade(Scope& s, http::UpgradingHttpClient& client, http::ClientRequest req);

Task<void> ProxyUpgrade(Scope& s, const registry::ConnectLocation& loc, http::UpgradingHttpClient& client,
                        std::chrono::milliseconds head);

// The 400 a WebSocket upgrade with a Sec-WebSocket-Version other than 13 gets: "Sec-WebSocket-Version:
// 13" and `body` (gorilla's and x/net's texts differ; each caller names its own).
http::HttpResponse UnsupportedWebSocketVersion(std::string body);

}  // namespace capstan::endpoints
