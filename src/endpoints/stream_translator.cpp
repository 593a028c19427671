#include "endpoints/stream_translator.h"

#include <boost/json/parse.hpp>

#include "apimachinery/errors.h"
#include "apimachinery/json_write.h"
#include "apimachinery/status_json.h"
#include "endpoints/connect_proxy.h"
#include "endpoints/upgrade_proxy.h"
#include "server/http/spdy_connection.h"
#include "server/http/websocket_connection.h"
#include "util/fan_out.h"
#include "util/strings.h"

namespace capstan::endpoints {

namespace am = capstan::apimachinery;
namespace json = boost::json;
namespace ws = http::websocket;

namespace {

constexpr std::string_view kProtocolV5 = "v5.channel.k8s.io";
constexpr char kStdin = 0, kStdout = 1, kStderr = 2, kError = 3, kResize = 4;
constexpr unsigned char kStreamClose = 255;
constexpr std::string_view kNonZeroExitCode = "NonZeroExitCode";

Status ExitCodeStatus(const std::string& code) {
  Status st(1, "NonZeroExitCode", "command terminated with non-zero exit code: command terminated with exit code " + code);
  st.mutable_details().causes.push_back({"ExitCode", code, ""});
  return st;
}

// kube's code for the translator's metric: a command that ran (whatever its exit code) is a 200.
int TranslatorMetricCode(const Status& st) { return st.ok() || st.reason() == kNonZeroExitCode ? 200 : st.code(); }

}  // namespace

bool WantsStreamTranslation(const http::HttpRequest& req) {
  if (!ws::IsUpgradeRequest(req)) return false;
  // kube reads the first Sec-WebSocket-Protocol header's comma list.
  for (const auto& p : Split(req.headers.Get("Sec-WebSocket-Protocol"), ',')) {
    if (TrimSpace(p) == kProtocolV5) return true;
  }
  return false;
}

std::string ErrorChannelJson(const Status& st) {
  // json.Marshal of the metav1.Status the translator builds: kube's Status object without TypeMeta,
  // and without a code for a success or an exit status (code 0 is omitted).
  const bool drop_code = st.ok() || st.reason() == kNonZeroExitCode;
  json::object o;
  for (auto& field : am::StatusToJson(st)) {
    if (field.key() == "kind" || field.key() == "apiVersion" || (drop_code && field.key() == "code")) continue;
    o.emplace(field.key(), std::move(field.value()));
  }
  return am::ToJson(o);
}

Status TranslatedExitStatus(std::string_view error_stream) {
  // client-go's errorDecoderV4, then the translator's mapping of its result.
  if (error_stream.empty()) return Status();
  boost::system::error_code ec;
  json::value v = json::parse(error_stream, ec);
  if (ec || !v.is_object()) {
    return am::NewInternalError("error stream protocol error: " + std::string(ec ? ec.message() : "not an object") +
                                             " in " + GoQuote(error_stream));
  }
  const json::object& o = v.get_object();
  auto str = [&](const json::object& obj, const char* k) {
    const json::value* f = obj.if_contains(k);
    return f && f->is_string() ? std::string(f->get_string()) : std::string();
  };
  std::string status = str(o, "status");
  if (status == "Success") return Status();
  if (status != "Failure") return am::NewInternalError("error stream protocol error: unknown error");
  if (str(o, "reason") != kNonZeroExitCode) return am::NewInternalError(str(o, "message"));
  const json::value* details = o.if_contains("details");
  if (!details || !details->is_object()) {
    return am::NewInternalError("error stream protocol error: details must be set");
  }
  if (const json::value* causes = details->get_object().if_contains("causes"); causes && causes->is_array()) {
    for (const auto& c : causes->get_array()) {
      if (!c.is_object() || str(c.get_object(), "reason") != "ExitCode") continue;
      std::string code = str(c.get_object(), "message");
      unsigned n = 0;
      bool ok = !code.empty() && code.size() <= 3;
      for (char ch : code) ok = ok && ch >= '0' && ch <= '9';
      if (ok) n = static_cast<unsigned>(std::stoul(code));
      if (!ok || n > 255) {
        return am::NewInternalError("error stream protocol error: invalid exit code value " + GoQuote(code));
      }
      return ExitCodeStatus(std::to_string(n));
    }
  }
  return am::NewInternalError("error stream protocol error: no ExitCode cause given");
}

Task<void> TranslateRemoteCommand(Scope& s, const registry::ConnectLocation& loc, http::UpgradingHttpClient& client,
                                  std::chrono::milliseconds head) {
  const http::HttpRequest& in = s.http().request;
  const StreamProxyMetrics& metrics = s.limits().connect->stream_metrics();
  if (!ws::HasSupportedVersion(in.headers)) {
    metrics.Translated(400);
    co_await s.http().writer->Respond(UnsupportedWebSocketVersion("Bad Request"));
    co_return;
  }
  auto wants = [&](const char* param) {
    for (const auto& [k, v] : loc.query) {
      if (k == param) return true;
    }
    return false;
  };
  const bool stdin = wants("input"), stdout = wants("output"), tty = wants("tty"), stderr = wants("error") && !tty;
  http::ByteStream* down = co_await s.http().writer->Upgrade(ws::HandshakeHeaders(in, kProtocolV5));
  if (!down) {
    metrics.Translated(400);
    co_return;
  }
  http::WebSocketConnection client_ws(*down);
  // kube's translator first writes an empty message on the first stream it serves.
  const char ready = stdout ? kStdout : (wants("error") ? kStderr : kError);
  if (!co_await client_ws.Send(ws::Opcode::kBinary, std::string(1, ready))) co_return;
  auto finish = [&](const Status& st) -> Task<void> {
    metrics.Translated(TranslatorMetricCode(st));
    co_await client_ws.Send(ws::Opcode::kBinary, std::string(1, kError) + ErrorChannelJson(st));
    co_await client_ws.Close();
  };

  http::ClientRequest req;
  req.method = "POST";
  req.url = LocationUrl(loc);
  req.headers.Set("Upgrade", "SPDY/3.1");
  for (const char* p : {"v4.channel.k8s.io", "v3.channel.k8s.io", "v2.channel.k8s.io", "channel.k8s.io"}) {
    req.headers.Add("X-Stream-Protocol-Version", p);
  }
  req.timeout = head;
  auto up = co_await client.DoUpgrade(std::move(req));
  if (!up.ok()) {
    co_await finish(am::NewInternalError("error dialing backend: " + RoundTripError(up.status())));
    co_return;
  }
  if (!up->stream) {
    // client-go's SPDY round tripper: a Status body is that error, anything else its text.
    boost::system::error_code ec;
    json::value v = json::parse(up->response.body, ec);
    std::optional<Status> st = ec ? std::nullopt : am::StatusFromJson(v);
    if (st && !st->ok()) {
      co_await finish(*st);
    } else {
      co_await finish(am::NewInternalError("unable to upgrade connection: " + std::string(TrimSpace(up->response.body))));
    }
    co_return;
  }
  if (up->response.headers.Get("X-Stream-Protocol-Version") != "v4.channel.k8s.io") {
    co_await finish(am::NewInternalError("unsupported streaming protocol " +
                                                      GoQuote(up->response.headers.Get("X-Stream-Protocol-Version"))));
    co_return;
  }
  up->stream = s.limits().connect->Paced(std::move(up->stream));
  http::ByteStream& kubelet_io = *up->stream;
  http::SpdyConnection kubelet(kubelet_io);
  // remotecommand v4's streams, in its order; the client's ids are odd.
  uint32_t next_id = 1;
  auto open = [&](const char* type) -> Task<uint32_t> {
    uint32_t id = next_id;
    next_id += 2;
    co_await kubelet.SynStream(id, {{"streamtype", type}});
    co_return id;
  };
  const uint32_t error_id = co_await open("error");
  const uint32_t stdin_id = stdin ? co_await open("stdin") : 0;
  const uint32_t stdout_id = stdout ? co_await open("stdout") : 0;
  const uint32_t stderr_id = stderr ? co_await open("stderr") : 0;
  const uint32_t resize_id = tty ? co_await open("resize") : 0;

  size_t cancel_id = s.http().cancel.OnCancel([down, &kubelet_io] {
    down->Close();
    kubelet_io.Close();
  });
  std::string error_stream;
  co_await ForEachConcurrently(2, 2, [&](size_t pump) -> Task<void> {
    if (pump == 0) {
      // The client's stdin and resizes to the kubelet.
      bool stdin_open = stdin_id != 0;
      while (auto m = co_await client_ws.Next()) {
        // kube's wsstream reads text frames as bytes too (the Python client writes stdin as text).
        if ((m->opcode != ws::Opcode::kBinary && m->opcode != ws::Opcode::kText) || m->payload.empty()) continue;
        const unsigned char channel = static_cast<unsigned char>(m->payload[0]);
        if (channel == kStreamClose) {
          if (m->payload.size() == 2 && m->payload[1] == kStdin && stdin_open) {
            stdin_open = false;
            co_await kubelet.Data(stdin_id, "", true);
          }
          continue;
        }
        std::string_view data = std::string_view(m->payload).substr(1);
        if (channel == kStdin && stdin_open && !data.empty()) co_await kubelet.Data(stdin_id, data);
        if (channel == kResize && resize_id != 0 && !data.empty()) co_await kubelet.Data(resize_id, data);
      }
      // The client went away (or the exchange is over): end the kubelet's side.
      kubelet.Close();
      co_return;
    }
    // The kubelet's output to the client, until stdout, stderr and the error stream have ended.
    bool out_open = stdout_id != 0, err_open = stderr_id != 0, error_open = true;
    while (out_open || err_open || error_open) {
      auto f = co_await kubelet.Next();
      if (!f) break;
      const bool fin = (f->flags & http::spdy::kFlagFin) != 0 || f->type == http::spdy::FrameType::kRstStream;
      if (f->type != http::spdy::FrameType::kData && f->type != http::spdy::FrameType::kRstStream) continue;
      if (f->stream_id == stdout_id && out_open) {
        if (!f->data.empty()) co_await client_ws.Send(ws::Opcode::kBinary, std::string(1, kStdout) + f->data);
        out_open = !fin;
      } else if (f->stream_id == stderr_id && err_open) {
        if (!f->data.empty()) co_await client_ws.Send(ws::Opcode::kBinary, std::string(1, kStderr) + f->data);
        err_open = !fin;
      } else if (f->stream_id == error_id && error_open) {
        error_stream += f->data;
        error_open = !fin;
      }
    }
    co_await finish(TranslatedExitStatus(error_stream));
    kubelet.Close();
  });
  s.http().cancel.Remove(cancel_id);
}

}  // namespace capstan::endpoints
