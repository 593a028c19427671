#include "endpoints/stream_tunnel.h"

#include "endpoints/connect_proxy.h"
#include "endpoints/upgrade_proxy.h"
#include "server/http/websocket_connection.h"
#include "util/fan_out.h"
#include "util/strings.h"

namespace capstan::endpoints {

namespace ws = http::websocket;

namespace {

constexpr std::string_view kTunnelPrefix = "SPDY/3.1+";
constexpr std::string_view kKubernetesSuffix = "k8s.io";

bool IsTunnelProtocol(std::string_view p) { return p.starts_with(kTunnelPrefix) && p.ends_with(kKubernetesSuffix); }

// The tunnelling handler's refusals are Go's http.Error: plain text, not a Status.
http::HttpResponse PlainError(int status, std::string_view message) {
  http::HttpResponse r;
  r.status = status;
  r.headers.Set("Content-Type", "text/plain; charset=utf-8");
  r.headers.Set("X-Content-Type-Options", "nosniff");
  r.body = std::string(message) + "\n";
  return r;
}

}  // namespace

bool WantsTunnel(const http::HttpRequest& req) {
  if (!ws::IsUpgradeRequest(req)) return false;
  for (const auto& p : Split(req.headers.Get("Sec-WebSocket-Protocol"), ',')) {
    if (IsTunnelProtocol(TrimSpace(p))) return true;
  }
  return false;
}

Task<void> TunnelPortForward(Scope& s, const registry::ConnectLocation& loc, http::UpgradingHttpClient& client,
                             std::chrono::milliseconds head) {
  const http::HttpRequest& in = s.http().request;
  std::vector<std::string> spdy_protocols;
  for (const auto& p : ws::RequestedProtocols(in.headers)) {
    if (IsTunnelProtocol(p)) spdy_protocols.push_back(p.substr(kTunnelPrefix.size()));
  }
  const StreamProxyMetrics& metrics = s.limits().connect->stream_metrics();
  if (spdy_protocols.empty()) {
    metrics.Tunnelled(400);
    co_await s.http().writer->Respond(PlainError(400, "unable to upgrade: no tunneling spdy protocols provided"));
    co_return;
  }
  http::ClientRequest req = ForwardedUpgradeRequest(in, LocationUrl(loc));
  req.method = "POST";
  req.body.clear();
  for (const char* h : {"Sec-WebSocket-Protocol", "Sec-WebSocket-Key", "Sec-WebSocket-Version", "Sec-WebSocket-Extensions",
                        "Upgrade", "X-Stream-Protocol-Version"}) {
    req.headers.Remove(h);
  }
  req.headers.Set("Upgrade", "SPDY/3.1");
  for (const auto& p : spdy_protocols) req.headers.Add("X-Stream-Protocol-Version", p);
  req.timeout = head;
  auto up = co_await DialUpgrade(s, client, std::move(req));
  if (!up) co_return;
  const auto& h = up->response.headers;
  if (!h.HasToken("Connection", "upgrade") || !h.HasToken("Upgrade", "spdy/3.1")) {
    metrics.Tunnelled(500);
    co_await s.http().writer->Respond(PlainError(500, "unable to upgrade: missing upgrade headers in response"));
    co_return;
  }
  std::string chosen(TrimSpace(h.Get("X-Stream-Protocol-Version")));
  http::ByteStream* down =
      co_await s.http().writer->Upgrade(ws::HandshakeHeaders(in, chosen.empty() ? "" : std::string(kTunnelPrefix) + chosen));
  if (!down) {
    metrics.Tunnelled(500);
    co_return;
  }
  metrics.Tunnelled(101);
  http::WebSocketConnection client_ws(*down);
  http::ByteStream& kubelet = *up->stream;
  size_t cancel_id = s.http().cancel.OnCancel([down, &kubelet] {
    down->Close();
    kubelet.Close();
  });
  co_await ForEachConcurrently(2, 2, [&](size_t pump) -> Task<void> {
    if (pump == 0) {
      while (auto m = co_await client_ws.Next()) {
        // The tunnel carries binary messages only (client-go's TunnelingConnection).
        if (m->opcode != ws::Opcode::kBinary) break;
        if (!m->payload.empty() && !co_await kubelet.Write(std::move(m->payload))) break;
      }
      kubelet.Close();
      co_return;
    }
    for (;;) {
      std::string data = co_await kubelet.Read();
      if (data.empty() || !co_await client_ws.Send(ws::Opcode::kBinary, data)) break;
    }
    co_await client_ws.Close();
  });
  s.http().cancel.Remove(cancel_id);
}

}  // namespace capstan::endpoints
