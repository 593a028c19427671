#include "fake_kubelet_streams.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "e2e_util.h"
#include "server/http/spdy_connection.h"
#include "server/http/websocket.h"
#include "server/http/websocket_connection.h"
#include "util/strings.h"

namespace capstan::e2e {

namespace {

using http::spdy::Frame;
using http::spdy::FrameType;

std::string ExitStatus(int code, const std::vector<std::string>& command) {
  if (code == 0) return R"({"metadata":{},"status":"Success"})";
  std::string n = std::to_string(code);
  return R"({"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: error executing command [)" +
         Join(command, " ") + "], exit code " + n + R"(","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":")" +
         n + R"("}]}})";
}

// Runs tar or test (kubectl cp's commands) on the machine with the container's paths under `root`:
// "-C /dir" becomes "-C root/dir"; tar's other absolute paths are taken relative to root, which
// names the archive members as a container's tar does ("/tmp/f" is "tmp/f").
CommandResult RunInContainer(const std::string& root, const std::vector<std::string>& command, const std::string& input) {
  std::vector<std::string> argv = {command[0]};
  const bool tar = command[0] == "tar";
  bool in_root = false;
  for (size_t i = 1; i < command.size(); ++i) {
    const std::string& a = command[i];
    if (a == "-C" && i + 1 < command.size()) {
      argv.insert(argv.end(), {"-C", root + command[++i]});
    } else if (a.starts_with("/") && tar) {
      if (!std::exchange(in_root, true)) argv.insert(argv.end(), {"-C", root});
      argv.push_back(a.substr(1));
    } else if (a.starts_with("/")) {
      argv.push_back(root + a);
    } else {
      argv.push_back(a);
    }
  }
  return RunCommand(argv, input);
}

// remotecommand v4, server side.
Task<void> Exec(http::SpdyConnection& conn, const http::HttpRequest& req, bool attach, StreamsSeen& seen) {
  auto flag = [&](const char* k) { return req.query.Get(k) == std::optional<std::string>("1"); };
  const bool tty = flag("tty");
  std::set<std::string> want = {"error"};
  if (flag("input")) want.insert("stdin");
  if (flag("output")) want.insert("stdout");
  if (flag("error") && !tty) want.insert("stderr");
  if (tty) want.insert("resize");
  std::vector<std::string> command;
  for (const auto& [k, vs] : req.query.values()) {
    if (k == "command") command = vs;
  }
  std::map<std::string, uint32_t> ids;  // stream type -> id
  std::map<uint32_t, std::string> types;
  std::string stdin_data;
  bool stdin_done = !want.count("stdin");
  bool started = false;
  int exit_code = 0;
  auto run = [&]() -> Task<void> {
    std::string out, err;
    const std::string verb = command.empty() ? "" : command[0];
    if (attach || verb == "cat") {
      out = stdin_data;
    } else if (verb == "echo") {
      out = Join(std::vector<std::string>(command.begin() + 1, command.end()), " ") + "\n";
    } else if (verb == "warn") {
      err = (command.size() > 1 ? command[1] : "") + "\n";
    } else if (verb == "exit") {
      exit_code = command.size() > 1 ? std::stoi(command[1]) : 1;
    } else if ((verb == "tar" || verb == "test") && !seen.container_root.empty()) {
      CommandResult r = RunInContainer(seen.container_root, command, stdin_data);
      out = std::move(r.out);
      err = std::move(r.err);
      exit_code = r.exit_code;
    } else {
      err = "exec: \"" + verb + "\": executable file not found\n";
      exit_code = 127;
    }
    // stderr first: a process's complaints come before its output ends.
    if (ids.count("stderr")) co_await conn.Data(ids["stderr"], err, true);
    if (ids.count("stdout")) co_await conn.Data(ids["stdout"], out, true);
    co_await conn.Data(ids["error"], ExitStatus(exit_code, command), true);
    co_await conn.GoAway(0);
  };
  while (auto f = co_await conn.Next()) {
    if (f->type == FrameType::kSynStream) {
      std::string type(f->Header("streamtype"));
      {
        std::lock_guard lock(seen.mu);
        seen.stream_types.push_back(type);
      }
      ids[type] = f->stream_id;
      types[f->stream_id] = type;
      co_await conn.SynReply(f->stream_id);
    } else if (f->type == FrameType::kData) {
      const std::string& type = types[f->stream_id];
      if (type == "stdin") {
        // cat and attach echo what arrives as it arrives (once stdout is open), as a process would.
        const bool echo = attach || (!command.empty() && command[0] == "cat");
        if (echo && ids.count("stdout") && stdin_data.empty()) {
          if (!f->data.empty()) co_await conn.Data(ids["stdout"], f->data);
        } else {
          stdin_data += f->data;
        }
        if (f->flags & http::spdy::kFlagFin) stdin_done = true;
      } else if (type == "resize" && !f->data.empty()) {
        std::lock_guard lock(seen.mu);
        seen.resizes.push_back(f->data);
      }
    } else if (f->type == FrameType::kRstStream && types[f->stream_id] == "stdin") {
      stdin_done = true;
    }
    bool all = true;
    for (const auto& w : want) all = all && ids.count(w);
    if (!started && all && stdin_done) {
      started = true;
      co_await run();
      break;
    }
  }
  conn.Close();
}

// portforward.k8s.io, server side: every data stream echoes what it receives.
Task<void> PortForward(http::SpdyConnection& conn, StreamsSeen& seen) {
  std::map<uint32_t, std::string> types;
  std::map<uint32_t, std::string> request_of;       // stream id -> requestid
  std::map<std::string, uint32_t> error_stream_of;  // requestid -> its error stream
  while (auto f = co_await conn.Next()) {
    if (f->type == FrameType::kSynStream) {
      std::string type(f->Header("streamtype"));
      {
        std::lock_guard lock(seen.mu);
        seen.stream_types.push_back(type + ":" + std::string(f->Header("port")));
      }
      types[f->stream_id] = type;
      request_of[f->stream_id] = std::string(f->Header("requestid"));
      if (type == "error") error_stream_of[request_of[f->stream_id]] = f->stream_id;
      co_await conn.SynReply(f->stream_id);
    } else if (f->type == FrameType::kData && types[f->stream_id] == "data") {
      bool fin = (f->flags & http::spdy::kFlagFin) != 0;
      if (!f->data.empty() || fin) co_await conn.Data(f->stream_id, f->data, fin);
      // The connection to the port ended: so does its error stream, with nothing to report.
      auto err = error_stream_of.find(request_of[f->stream_id]);
      if (fin && err != error_stream_of.end()) co_await conn.Data(err->second, "", true);
    }
  }
  conn.Close();
}

// remotecommand v4 over WebSocket, as a kubelet serves it to clients that ask for it (the Python
// client's exec): each message is a channel byte and data; only echo and exit are scripted.
Task<void> WebSocketExec(http::WebSocketConnection& conn, const http::HttpRequest& req) {
  std::vector<std::string> command;
  for (const auto& [k, vs] : req.query.values()) {
    if (k == "command") command = vs;
  }
  int exit_code = 0;
  if (!command.empty() && command[0] == "echo") {
    std::string out = "\x01" + Join(std::vector<std::string>(command.begin() + 1, command.end()), " ") + "\n";
    co_await conn.Send(http::websocket::Opcode::kBinary, out);
  } else if (!command.empty() && command[0] == "exit") {
    exit_code = command.size() > 1 ? std::stoi(command[1]) : 1;
  }
  co_await conn.Send(http::websocket::Opcode::kBinary, "\x03" + ExitStatus(exit_code, command));
  co_await conn.Close();
}

}  // namespace

bool IsStreamingPath(const std::string& path) {
  return path.starts_with("/exec/") || path.starts_with("/attach/") || path.starts_with("/portForward/");
}

Task<void> ServeStreaming(http::RequestContext& ctx, StreamsSeen& seen) {
  const auto& req = ctx.request;
  const bool spdy = req.headers.HasToken("Upgrade", "SPDY/3.1") && req.headers.HasToken("Connection", "Upgrade");
  {
    std::lock_guard lock(seen.mu);
    seen.requests.push_back(req.method + " " + req.target + " " + std::string(req.headers.Get("Upgrade")));
  }
  const bool port_forward = req.path.starts_with("/portForward/");
  const char* protocol = port_forward ? "portforward.k8s.io" : "v4.channel.k8s.io";
  if (!port_forward && http::websocket::IsUpgradeRequest(req)) {
    const auto asked = http::websocket::RequestedProtocols(req.headers);
    if (std::find(asked.begin(), asked.end(), protocol) != asked.end()) {
      http::ByteStream* io = co_await ctx.writer->Upgrade(http::websocket::HandshakeHeaders(req, protocol));
      if (!io) co_return;
      http::WebSocketConnection conn(*io);
      co_await WebSocketExec(conn, req);
      co_return;
    }
  }
  if (!spdy || !req.headers.HasToken("X-Stream-Protocol-Version", protocol)) {
    http::HttpResponse r;
    r.status = 400;
    r.headers.Set("Content-Type", "text/plain; charset=utf-8");
    r.body = spdy ? "unable to upgrade: unable to negotiate protocol\n" : "this kubelet speaks SPDY/3.1 only\n";
    co_await ctx.writer->Respond(std::move(r));
    co_return;
  }
  http::Headers h;
  h.Set("Connection", "Upgrade");
  h.Set("Upgrade", "SPDY/3.1");
  h.Set("X-Stream-Protocol-Version", protocol);
  http::ByteStream* io = co_await ctx.writer->Upgrade(std::move(h));
  if (!io) co_return;
  http::SpdyConnection conn(*io);
  if (port_forward) {
    co_await PortForward(conn, seen);
  } else {
    co_await Exec(conn, req, req.path.starts_with("/attach/"), seen);
  }
}

}  // namespace capstan::e2e
