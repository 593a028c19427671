#include "endpoints/upgrade_proxy.h"

#include "endpoints/connect_proxy.h"
#include "server/http/upstream.h"
#include "util/fan_out.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::endpoints {

Task<void> Splice(http::ByteStream& a, http::ByteStream& b) {
  co_await ForEachConcurrently(2, 2, [&a, &b](size_t i) -> Task<void> {
    http::ByteStream& from = i == 0 ? a : b;
    http::ByteStream& to = i == 0 ? b : a;
    for (;;) {
      std::string data = co_await from.Read();
      if (data.empty() || !co_await to.Write(std::move(data))) break;
    }
    a.Close();
    b.Close();
  });
}

std::string LocationUrl(const registry::ConnectLocation& loc) {
  std::string url = loc.base + EscapeUrlPath(loc.path);
  if (std::string q = EncodeQuery(loc.query); !q.empty()) url += "?" + q;
  return url;
}

http::ClientRequest ForwardedUpgradeRequest(const http::HttpRequest& in, std::string url) {
  http::ClientRequest req;
  req.method = in.method;
  req.url = std::move(url);
  for (const auto& f : in.headers.fields()) {
    // The client's credentials stay here (the authentication filter removed its bearer token).
    if (EqualsIgnoreCase(f.name, "Authorization") || ToLower(f.name).starts_with("impersonate-")) continue;
    if (EqualsIgnoreCase(f.name, "Upgrade") || !http::IsHopByHop(f.name)) req.headers.Add(f.name, f.value);
  }
  if (std::string xff = http::ForwardedFor(in.headers.Get("X-Forwarded-For"), in.remote_addr); !xff.empty()) {
    req.headers.Set("X-Forwarded-For", xff);
  }
  req.body = in.body;
  return req;
}

Task<std::optional<http::UpgradeResponse>> DialUpgrade(Scope& s, http::UpgradingHttpClient& client, http::ClientRequest req) {
  req.max_response_bytes = 1 << 20;
  auto up = co_await client.DoUpgrade(std::move(req));
  if (!up.ok()) {
    co_await s.WriteStatus(Status(500, "", "error dialing backend: " + RoundTripError(up.status())));
    co_return std::nullopt;
  }
  int code = up->response.status;
  if (code != 101 && code < 400) {
    LogError("proxy upgrade error", {{"error", "invalid upgrade response: status code " + std::to_string(code)}});
    co_await s.WriteStatus(Status(500, "", "invalid upgrade response: status code " + std::to_string(code)));
    co_return std::nullopt;
  }
  if (code != 101) {
    // The backend's refusal goes to the client as it came (its body too).
    http::HttpResponse r;
    r.status = code;
    for (const auto& f : up->response.headers.fields()) {
      if (!http::IsHopByHop(f.name)) r.headers.Add(f.name, f.value);
    }
    r.body = std::move(up->response.body);
    co_await s.http().writer->Respond(std::move(r));
    co_return std::nullopt;
  }
  if (s.limits().connect) up->stream = s.limits().connect->Paced(std::move(up->stream));
  co_return std::move(*up);
}

Task<void> ProxyUpgrade(Scope& s, const registry::ConnectLocation& loc, http::UpgradingHttpClient& client,
                        std::chrono::milliseconds head) {
  http::ClientRequest req = ForwardedUpgradeRequest(s.http().request, LocationUrl(loc));
  req.timeout = head;
  auto up = co_await DialUpgrade(s, client, std::move(req));
  if (!up) co_return;
  http::ByteStream* down = co_await s.http().writer->Upgrade(up->response.headers);
  if (!down) co_return;
  http::ByteStream& backend = *up->stream;
  size_t id = s.http().cancel.OnCancel([down, &backend] {
    down->Close();
    backend.Close();
  });
  co_await Splice(*down, backend);
  s.http().cancel.Remove(id);
}

http::HttpResponse UnsupportedWebSocketVersion(std::string body) {
  http::HttpResponse r;
  r.status = 400;
  r.headers.Set("Sec-WebSocket-Version", "13");
  r.body = std::move(body);
  return r;
}

}  // namespace capstan::endpoints
