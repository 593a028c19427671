// server/http2_session.h: the server side of one HTTP/2 connection (RFC 9113), without a socket.
//
// libnghttp2 does the framing, HPACK, stream states and flow control; this class turns each request
// stream into an http::RequestContext whose writer is the stream itself (Http2Stream below), runs the
// handler chain on it, and turns the answers into HEADERS and DATA frames. The owner moves bytes:
// Feed() what the client sent, TakeOutput() what to send, and calls TakeOutput again after the
// want_write hook says there is more. Nothing here knows Asio, so unit tests and the fuzz target drive
// a session with bytes alone (server/http2_connection.h drives it over TLS).
//
// Streams are independent: a handler that waits (a watch) holds only its stream. A streamed
// response's bytes wait in its stream's buffer until the peer's flow-control windows let nghttp2 take
// them, and WriteChunk suspends while that buffer is over Http2Limits::stream_send_buffer, so a watcher
// that stops reading stalls its own handler (and the watch cache's slow-watcher policy applies to it)
// and nobody else. A stream the client resets cancels its request (RequestContext::cancel), as a
// closed HTTP/1.1 connection does.
//
// A response carrying "Connection: close" (the --goaway-chance filter's signal) makes the session send
// a graceful GOAWAY after it, as Go's server does, so the client moves to a new connection.
//
// Limits: body over max_body_bytes → 413 Status (the rest of the body is dropped, up to
// max_discard_bytes, then the upload is reset); header list over
// max_header_list_bytes or max_header_count → 431; max_concurrent_streams is advertised and enforced
// (REFUSED_STREAM above it). nghttp2 bounds the rest: SETTINGS entries per frame (32) and unanswered
// SETTINGS/PING ACKs (1000: a SETTINGS or PING flood ends the connection), CONTINUATION frames per
// header block (8), incoming RST_STREAM by a token bucket (burst 1000, 33/s; rapid reset, CVE-2023-44487,
// ends the connection with GOAWAY), the HPACK dynamic table (4 KiB, and header lists are counted as
// they are decoded, so an HPACK bomb meets the 431 limit), and the connection preface (anything else
// ends the connection).
//
// Thread-safety: one thread. Feed, TakeOutput and the hooks run on the connection's thread, where every
// handler of the session runs too. The session must outlive its handlers: call CancelAll() and await
// WaitHandlers() before destroying it.
#pragma once

#include <coroutine>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "server/http/request_context.h"
#include "util/metrics.h"
#include "util/task.h"

struct nghttp2_session;

namespace capstan::server {

struct Http2Limits {
  // SETTINGS_MAX_CONCURRENT_STREAMS. kube: --http2-max-streams-per-connection, 0 meaning 100.
  uint32_t max_concurrent_streams = 100;
  // SETTINGS_MAX_FRAME_SIZE and the per-stream receive window: kube's 256 KiB ("99% of serialized
  // resources are smaller"); the connection's receive window is that times max_concurrent_streams.
  uint32_t max_frame_size = 256 * 1024;
  uint32_t stream_receive_window = 256 * 1024;
  size_t max_header_list_bytes = 1 << 20;  // 431 above (Go counts name + value + 32 per field)
  size_t max_header_count = 1000;
  size_t max_body_bytes = 3 * 1024 * 1024;  // 413 above (--max-request-body-bytes)
  size_t stream_send_buffer = 256 * 1024;   // WriteChunk/Respond wait while a stream buffers more
  // Body bytes dropped after an early answer (413) before the upload is reset (HTTP/1.1 drains as much).
  size_t max_discard_bytes = 64 * 1024 * 1024;
};

struct Http2Metrics {
  Counter* streams = nullptr;        // request streams started
  Counter* resets_received = nullptr;  // RST_STREAM frames from clients
};

class Http2Stream;

class Http2Session {
 public:
  struct Hooks {
    http::Handler handler;                             // the filter chain
    std::function<void()> want_write;                  // frames are pending: call TakeOutput soon
    std::function<void(std::function<void()>)> post;   // runs a function later on this thread
    std::string remote_addr;                           // copied into every request
    std::vector<std::string> peer_certs_der;
  };

  Http2Session(Http2Limits limits, Hooks hooks, Http2Metrics metrics = {});
  ~Http2Session();
  Http2Session(const Http2Session&) = delete;
  Http2Session& operator=(const Http2Session&) = delete;

  // Bytes from the client. False when the connection must end (bad preface, a protocol error, a
  // flood); frames already queued (GOAWAY) should still be sent.
  bool Feed(std::string_view bytes);
  // Up to about max_bytes of frames to send, empty when nothing can be sent now.
  std::string TakeOutput(size_t max_bytes = 64 * 1024);
  // False once the session is finished both ways (GOAWAY exchanged and no stream open): the owner
  // sends what TakeOutput still returns and closes.
  bool Alive() const;

  // Graceful end: GOAWAY naming the last stream received; those streams finish, newer ones are refused.
  void Drain();
  // Cancels every running request (the connection is gone) and makes writers return false.
  void CancelAll();
  // Cancels the requests that look long-running (watches), for shutdown.
  void CancelLongRunning();
  // Streams whose handler runs or whose response is still being sent.
  size_t ActiveStreams() const { return streams_.size(); }
  // Completes when no handler of this session runs.
  Task<void> WaitHandlers();

 private:
  friend class Http2Stream;
  struct Callbacks;

  Http2Stream* Find(int32_t id);
  void StartReady();
  void RunPendingCancels();
  void Reap();
  void WakeWriters();
  Task<void> RunStream(Http2Stream& st);

  Http2Limits limits_;
  Hooks hooks_;
  Http2Metrics metrics_;
  nghttp2_session* session_ = nullptr;
  std::map<int32_t, std::unique_ptr<Http2Stream>> streams_;
  std::vector<int32_t> ready_;           // requests complete, handler not started yet
  std::vector<int32_t> cancel_;          // streams closed under a running handler
  std::vector<int32_t> wake_;            // writers whose buffer drained
  std::vector<int32_t> reset_after_send_;  // answered early, and the upload went on past the bound
  int running_ = 0;
  std::coroutine_handle<> handlers_waiter_;
  bool draining_ = false;
  bool cancelled_all_ = false;  // after CancelAll the session is not driven any more
  std::shared_ptr<bool> alive_;  // false once destroyed; guards functions posted to the event loop
};

// One request stream and the writer of its response. Owned by its session.
class Http2Stream : public http::ResponseWriter {
 public:
  Http2Stream(Http2Session& session, int32_t id) : session_(session), id_(id) {}

  Task<bool> Respond(http::HttpResponse resp) override;
  Task<bool> StartStream(int status, http::Headers headers) override;
  Task<bool> WriteChunk(std::string data) override;
  Task<bool> EndStream() override;
  bool started() const override { return started_; }
  int status() const override { return status_; }

 private:
  friend class Http2Session;
  friend struct Http2Session::Callbacks;

  // Queues HEADERS (and a data provider when with_body); content_length, when given, replaces the
  // handler's Content-Length.
  bool Submit(int status, const http::Headers& headers, bool with_body, const std::string* content_length);
  // A whole response, without waiting for it to drain.
  bool SubmitWhole(http::HttpResponse resp);
  void Queued();
  Task<bool> WaitDrained();
  size_t Pending() const { return out_.size() - out_off_; }

  Http2Session& session_;
  int32_t id_;
  http::RequestContext ctx_;

  // Request assembly.
  std::string method_, path_, authority_;
  size_t header_bytes_ = 0;
  int request_error_ = 0;  // 413/431/400 to answer instead of running the handler
  bool request_complete_ = false;
  bool scheduled_ = false;  // queued to start (handler or error answer)
  size_t discarded_ = 0;    // body bytes dropped after an early answer
  bool reset_queued_ = false;
  bool handler_started_ = false;
  bool handler_done_ = false;

  // Response.
  bool started_ = false;
  int status_ = 0;
  bool streaming_ = false;
  bool has_body_ = false;  // a data provider is attached
  bool eof_ = false;       // no bytes will follow out_
  bool sent_all_ = false;  // END_STREAM went out
  bool closed_ = false;    // nghttp2 closed the stream
  bool head_ = false;
  std::string out_;
  size_t out_off_ = 0;
  std::coroutine_handle<> waiter_;
};

}  // namespace capstan::server
