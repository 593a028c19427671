#include "server/http2_session.h"

#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <charconv>
#include <cstring>

#include "server/http/http_date.h"
#include "server/http/responses.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::server {

namespace {

// Response header fields HTTP/2 forbids (RFC 9113 8.2.2); a handler written for HTTP/1.1 may set them.
bool ConnectionSpecific(std::string_view lower_name) {
  return lower_name == "connection" || lower_name == "transfer-encoding" || lower_name == "keep-alive" ||
         lower_name == "proxy-connection" || lower_name == "upgrade";
}

nghttp2_nv Nv(const std::string& name, const std::string& value) {
  return nghttp2_nv{reinterpret_cast<uint8_t*>(const_cast<char*>(name.data())),
                    reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(),
                    NGHTTP2_NV_FLAG_NONE};
}

// Suspends unless `ready`, leaving the handle in *slot for whoever makes it ready. (One await, not a
// loop: the waker resumes only once the condition holds, and clang 14 miscompiles the loop form.)
struct WaitIn {
  bool ready;
  std::coroutine_handle<>* slot;
  bool await_ready() const noexcept { return ready; }
  void await_suspend(std::coroutine_handle<> h) noexcept { *slot = h; }
  void await_resume() const noexcept {}
};

}  // namespace

// nghttp2's callbacks. They only record what happened; everything that can resume a handler
// (starting one, cancelling one, waking a writer) runs after nghttp2 has returned, because a resumed
// handler calls back into the session and nghttp2 is not reentrant.
struct Http2Session::Callbacks {
  static Http2Session& S(void* user) { return *static_cast<Http2Session*>(user); }

  static int OnBeginHeaders(nghttp2_session*, const nghttp2_frame* frame, void* user) {
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
    Http2Session& s = S(user);
    auto st = std::make_unique<Http2Stream>(s, frame->hd.stream_id);
    // Handlers still running on streams the client already reset count against the limit too, so
    // resetting streams cannot start more concurrent work than max_concurrent_streams (Go does the same).
    if (s.streams_.size() >= s.limits_.max_concurrent_streams) st->request_error_ = -1;
    s.streams_[frame->hd.stream_id] = std::move(st);
    return 0;
  }

  static int OnHeader(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name, size_t namelen,
                      const uint8_t* value, size_t valuelen, uint8_t, void* user) {
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;  // trailers
    Http2Session& s = S(user);
    Http2Stream* st = s.Find(frame->hd.stream_id);
    if (!st || st->request_error_ != 0) return 0;
    st->header_bytes_ += namelen + valuelen + 32;
    auto& headers = st->ctx_.request.headers;
    if (st->header_bytes_ > s.limits_.max_header_list_bytes || headers.size() >= s.limits_.max_header_count) {
      st->request_error_ = 431;
      headers = http::Headers();
      return 0;
    }
    std::string_view n(reinterpret_cast<const char*>(name), namelen);
    std::string v(reinterpret_cast<const char*>(value), valuelen);
    if (!n.empty() && n[0] == ':') {
      if (n == ":method") st->method_ = std::move(v);
      else if (n == ":path") st->path_ = std::move(v);
      else if (n == ":authority") st->authority_ = std::move(v);
      return 0;
    }
    headers.Add(std::string(n), std::move(v));
    return 0;
  }

  static int OnDataChunk(nghttp2_session*, uint8_t, int32_t id, const uint8_t* data, size_t len, void* user) {
    Http2Session& s = S(user);
    Http2Stream* st = s.Find(id);
    if (!st) return 0;
    if (st->request_error_ != 0 || st->scheduled_) {
      // Answered already (413, 431): the rest of the body is dropped. Clients that are still uploading
      // then read the answer (curl 7.88 reports an error for a reset during its upload), up to a bound.
      st->discarded_ += len;
      if (st->discarded_ > s.limits_.max_discard_bytes && !st->reset_queued_) {
        st->reset_queued_ = true;
        s.reset_after_send_.push_back(id);
      }
      return 0;
    }
    std::string& body = st->ctx_.request.body;
    if (body.size() + len > s.limits_.max_body_bytes) {
      st->request_error_ = 413;
      body.clear();
      body.shrink_to_fit();
      st->scheduled_ = true;
      s.ready_.push_back(id);
      return 0;
    }
    body.append(reinterpret_cast<const char*>(data), len);
    return 0;
  }

  static int OnFrameRecv(nghttp2_session*, const nghttp2_frame* frame, void* user) {
    Http2Session& s = S(user);
    if (frame->hd.type == NGHTTP2_RST_STREAM) {
      if (s.metrics_.resets_received) s.metrics_.resets_received->Inc();
      return 0;
    }
    if (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) return 0;
    Http2Stream* st = s.Find(frame->hd.stream_id);
    if (!st) return 0;
    bool end = (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0;
    if (end) st->request_complete_ = true;
    if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST && st->request_error_ == 0) {
      std::string_view cl = st->ctx_.request.headers.Get("content-length");
      uint64_t n = 0;
      auto [end_ptr, ec] = std::from_chars(cl.data(), cl.data() + cl.size(), n);
      if (ec == std::errc() && end_ptr == cl.data() + cl.size() && n > s.limits_.max_body_bytes) st->request_error_ = 413;
    }
    if ((end || st->request_error_ != 0) && !st->scheduled_) {
      st->scheduled_ = true;
      s.ready_.push_back(frame->hd.stream_id);
    }
    return 0;
  }

  static int OnFrameSend(nghttp2_session*, const nghttp2_frame* frame, void* user) {
    if (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) return 0;
    if (!(frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) return 0;
    Http2Session& s = S(user);
    Http2Stream* st = s.Find(frame->hd.stream_id);
    if (!st) return 0;
    st->sent_all_ = true;
    return 0;
  }

  static int OnStreamClose(nghttp2_session*, int32_t id, uint32_t error_code, void* user) {
    Http2Session& s = S(user);
    Http2Stream* st = s.Find(id);
    if (!st) return 0;
    st->closed_ = true;
    if (st->waiter_) s.wake_.push_back(id);
    if (st->handler_started_ && !st->handler_done_ && (error_code != NGHTTP2_NO_ERROR || !st->sent_all_)) {
      s.cancel_.push_back(id);
    }
    return 0;
  }

  static ssize_t Read(nghttp2_session*, int32_t id, uint8_t* buf, size_t length, uint32_t* flags,
                      nghttp2_data_source* source, void* user) {
    Http2Session& s = S(user);
    auto* st = static_cast<Http2Stream*>(source->ptr);
    size_t n = std::min(length, st->Pending());
    if (n > 0) {
      std::memcpy(buf, st->out_.data() + st->out_off_, n);
      st->out_off_ += n;
      if (st->out_off_ == st->out_.size()) {
        // Drained: a watch that once buffered a burst should not keep that memory while it idles.
        if (st->out_.capacity() > 64 * 1024) {
          std::string().swap(st->out_);
        } else {
          st->out_.clear();
        }
        st->out_off_ = 0;
      }
      if (st->waiter_ && st->Pending() <= s.limits_.stream_send_buffer) s.wake_.push_back(id);
    }
    if (st->Pending() == 0) {
      if (st->eof_) {
        *flags |= NGHTTP2_DATA_FLAG_EOF;
        return static_cast<ssize_t>(n);
      }
      if (n == 0) return NGHTTP2_ERR_DEFERRED;
    }
    return static_cast<ssize_t>(n);
  }
};

Http2Session::Http2Session(Http2Limits limits, Hooks hooks, Http2Metrics metrics)
    : limits_(limits), hooks_(std::move(hooks)), metrics_(metrics), alive_(std::make_shared<bool>(true)) {
  if (limits_.max_concurrent_streams == 0) limits_.max_concurrent_streams = 100;
  nghttp2_session_callbacks* cbs = nullptr;
  nghttp2_session_callbacks_new(&cbs);
  nghttp2_session_callbacks_set_on_begin_headers_callback(cbs, &Callbacks::OnBeginHeaders);
  nghttp2_session_callbacks_set_on_header_callback(cbs, &Callbacks::OnHeader);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs, &Callbacks::OnDataChunk);
  nghttp2_session_callbacks_set_on_frame_recv_callback(cbs, &Callbacks::OnFrameRecv);
  nghttp2_session_callbacks_set_on_frame_send_callback(cbs, &Callbacks::OnFrameSend);
  nghttp2_session_callbacks_set_on_stream_close_callback(cbs, &Callbacks::OnStreamClose);

  nghttp2_option* opt = nullptr;
  nghttp2_option_new(&opt);
  // nghttp2's defaults, stated: they are the bounds the header comment promises.
  nghttp2_option_set_max_settings(opt, 32);
  nghttp2_option_set_max_outbound_ack(opt, 1000);
  nghttp2_option_set_stream_reset_rate_limit(opt, 1000, 33);
  nghttp2_option_set_max_continuations(opt, 8);
  nghttp2_option_set_max_deflate_dynamic_table_size(opt, 4096);
  nghttp2_option_set_no_closed_streams(opt, 1);
  nghttp2_session_server_new2(&session_, cbs, this, opt);
  nghttp2_option_del(opt);
  nghttp2_session_callbacks_del(cbs);

  const nghttp2_settings_entry settings[] = {
      {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, limits_.max_concurrent_streams},
      {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, limits_.stream_receive_window},
      {NGHTTP2_SETTINGS_MAX_FRAME_SIZE, limits_.max_frame_size},
      {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, static_cast<uint32_t>(limits_.max_header_list_bytes)},
      {NGHTTP2_SETTINGS_NO_RFC7540_PRIORITIES, 1},
  };
  nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, std::size(settings));
  uint64_t conn_window = uint64_t{limits_.stream_receive_window} * limits_.max_concurrent_streams;
  nghttp2_session_set_local_window_size(session_, NGHTTP2_FLAG_NONE, 0,
                                        static_cast<int32_t>(std::min<uint64_t>(conn_window, (1u << 31) - 1)));
}

Http2Session::~Http2Session() {
  *alive_ = false;
  nghttp2_session_del(session_);
}

Http2Stream* Http2Session::Find(int32_t id) {
  auto it = streams_.find(id);
  return it == streams_.end() ? nullptr : it->second.get();
}

bool Http2Session::Feed(std::string_view bytes) {
  if (cancelled_all_) return false;
  ssize_t rv = nghttp2_session_mem_recv(session_, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  RunPendingCancels();
  if (rv >= 0) StartReady();
  Reap();
  WakeWriters();
  if (nghttp2_session_want_write(session_) && hooks_.want_write) hooks_.want_write();
  if (rv < 0) {
    LogDebug("HTTP/2 connection error", {{"remote", hooks_.remote_addr}, {"error", nghttp2_strerror(static_cast<int>(rv))}});
  }
  return rv >= 0;
}

std::string Http2Session::TakeOutput(size_t max_bytes) {
  std::string out;
  if (cancelled_all_) return out;
  for (;;) {
    // Uploads past max_discard_bytes after their answer: ended with RST_STREAM(NO_ERROR), which RFC 9113
    // 8.1 allows once the response is complete (Go's server sends it at once).
    for (int32_t id : std::exchange(reset_after_send_, {})) {
      Http2Stream* st = Find(id);
      if (st && !st->closed_ && !st->sent_all_) {
        st->reset_queued_ = false;  // not yet: after the response
        continue;
      }
      nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, id, NGHTTP2_NO_ERROR);
    }
    while (out.size() < max_bytes) {
      const uint8_t* data = nullptr;
      ssize_t n = nghttp2_session_mem_send(session_, &data);
      if (n <= 0) break;
      out.append(reinterpret_cast<const char*>(data), static_cast<size_t>(n));
    }
    if (reset_after_send_.empty() || out.size() >= max_bytes) break;
  }
  RunPendingCancels();
  Reap();
  WakeWriters();
  return out;
}

bool Http2Session::Alive() const {
  if (cancelled_all_) return false;
  return nghttp2_session_want_read(session_) || nghttp2_session_want_write(session_);
}

void Http2Session::Drain() {
  if (draining_) return;
  draining_ = true;
  nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE, nghttp2_session_get_last_proc_stream_id(session_),
                        NGHTTP2_NO_ERROR, nullptr, 0);
  if (hooks_.want_write) hooks_.want_write();
}

void Http2Session::CancelAll() {
  cancelled_all_ = true;
  std::vector<int32_t> ids;
  for (auto& [id, st] : streams_) ids.push_back(id);
  for (int32_t id : ids) {
    Http2Stream* st = Find(id);
    if (!st) continue;
    st->closed_ = true;
    if (st->handler_started_ && !st->handler_done_) st->ctx_.cancel.Cancel();
    if (st && st->waiter_) std::exchange(st->waiter_, {}).resume();
  }
}

void Http2Session::CancelLongRunning() {
  std::vector<int32_t> ids;
  for (auto& [id, st] : streams_) {
    if (st->handler_started_ && !st->handler_done_ && http::LooksLongRunning(st->ctx_.request)) ids.push_back(id);
  }
  for (int32_t id : ids) {
    if (Http2Stream* st = Find(id)) st->ctx_.cancel.Cancel();
  }
}

Task<void> Http2Session::WaitHandlers() {
  co_await WaitIn{running_ == 0, &handlers_waiter_};
}

void Http2Session::RunPendingCancels() {
  for (int32_t id : std::exchange(cancel_, {})) {
    Http2Stream* st = Find(id);
    if (st && st->handler_started_ && !st->handler_done_) st->ctx_.cancel.Cancel();
  }
}

void Http2Session::WakeWriters() {
  for (int32_t id : std::exchange(wake_, {})) {
    Http2Stream* st = Find(id);
    if (!st || !st->waiter_) continue;
    // Resumed later, from the event loop: the writer calls back into this session.
    hooks_.post([weak = std::weak_ptr<bool>(alive_), this, id] {
      if (weak.expired()) return;
      Http2Stream* s = Find(id);
      if (s && s->waiter_) std::exchange(s->waiter_, {}).resume();
    });
  }
}

void Http2Session::Reap() {
  for (auto it = streams_.begin(); it != streams_.end();) {
    Http2Stream& st = *it->second;
    bool finished = st.closed_ && (!st.handler_started_ || st.handler_done_) && !st.waiter_;
    it = finished ? streams_.erase(it) : std::next(it);
  }
}

void Http2Session::StartReady() {
  for (int32_t id : std::exchange(ready_, {})) {
    Http2Stream* st = Find(id);
    if (!st || st->closed_) continue;
    if (st->request_error_ == -1) {
      nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, id, NGHTTP2_REFUSED_STREAM);
      continue;
    }
    if (metrics_.streams) metrics_.streams->Inc();
    http::HttpRequest& r = st->ctx_.request;
    r.version_major = 2;
    r.version_minor = 0;
    r.method = std::move(st->method_);
    r.target = std::move(st->path_);
    size_t q = r.target.find('?');
    r.raw_path = r.target.substr(0, q);
    if (q != std::string::npos) r.raw_query = r.target.substr(q + 1);
    if (st->request_error_ == 0 && (r.raw_path.empty() || r.raw_path[0] != '/')) st->request_error_ = 400;
    if (st->request_error_ == 0 && !PercentDecode(r.raw_path, r.path, false)) st->request_error_ = 400;
    r.query = http::Query::Parse(r.raw_query);
    if (!st->authority_.empty() && !r.headers.Has("host")) r.headers.Add("host", std::move(st->authority_));
    r.remote_addr = hooks_.remote_addr;
    r.peer_certs_der = hooks_.peer_certs_der;
    st->head_ = r.method == "HEAD";
    st->ctx_.received = std::chrono::steady_clock::now();
    st->ctx_.writer = st;
    if (st->request_error_ != 0) {
      http::HttpResponse resp;
      if (st->request_error_ == 413) {
        resp = http::StatusResponse(Status(413, "RequestEntityTooLarge",
                                           "Request entity too large: limit is " + std::to_string(limits_.max_body_bytes)));
      } else if (st->request_error_ == 431) {
        resp = http::TextResponse("431 Request Header Fields Too Large", 431);
      } else {
        resp = http::TextResponse("400 Bad Request: malformed request", 400);
      }
      st->SubmitWhole(std::move(resp));
      continue;
    }
    st->handler_started_ = true;
    Spawn(RunStream(*st));
  }
}

Task<void> Http2Session::RunStream(Http2Stream& st) {
  ++running_;
  try {
    co_await hooks_.handler(st.ctx_);
  } catch (const std::exception& e) {
    LogError("unhandled exception in handler", {{"error", e.what()}, {"path", st.ctx_.request.path}});
  } catch (...) {
    LogError("unhandled exception in handler", {{"path", st.ctx_.request.path}});
  }
  if (!st.started_) {
    co_await st.Respond(http::StatusResponse(Status(500, "InternalError", "the server did not answer the request")));
  } else if (!st.eof_) {
    co_await st.EndStream();
  }
  st.handler_done_ = true;
  --running_;
  // Reaping and waking the owner happen later, from the event loop: this coroutine is still running.
  hooks_.post([weak = std::weak_ptr<bool>(alive_), this] {
    if (weak.expired()) return;
    Reap();
    if (running_ == 0 && handlers_waiter_) std::exchange(handlers_waiter_, {}).resume();
  });
}

// ---- Http2Stream

bool Http2Stream::Submit(int status, const http::Headers& headers, bool with_body, const std::string* content_length) {
  Http2Session& s = session_;
  std::vector<std::pair<std::string, std::string>> fields;
  fields.reserve(headers.size() + extra_headers_.size() + 3);
  fields.emplace_back(":status", std::to_string(status));
  bool goaway = false;
  auto add = [&](const std::string& name, const std::string& value) {
    std::string lower = ToLower(name);
    if (lower == "connection" && EqualsIgnoreCase(value, "close")) goaway = true;
    if (ConnectionSpecific(lower)) return;
    if (content_length && lower == "content-length") return;
    fields.emplace_back(std::move(lower), value);
  };
  // Headers the filters added, unless the handler set the same header itself.
  for (const auto& f : extra_headers_.fields()) {
    if (!headers.Has(f.name)) add(f.name, f.value);
  }
  for (const auto& f : headers.fields()) add(f.name, f.value);
  if (content_length) fields.emplace_back("content-length", *content_length);
  fields.emplace_back("date", http::HttpDate());
  std::vector<nghttp2_nv> nva;
  nva.reserve(fields.size());
  for (const auto& [n, v] : fields) nva.push_back(Nv(n, v));
  nghttp2_data_provider provider;
  provider.source.ptr = this;
  provider.read_callback = &Http2Session::Callbacks::Read;
  has_body_ = with_body;
  int rv = nghttp2_submit_response(s.session_, id_, nva.data(), nva.size(), with_body ? &provider : nullptr);
  if (rv != 0) return false;
  if (!with_body) eof_ = true;
  // "Connection: close" on an HTTP/2 response asks for a graceful GOAWAY, as with Go's server
  // (kube's --goaway-chance filter sets it): this stream and the others in flight still finish.
  if (goaway) s.Drain();
  if (s.hooks_.want_write) s.hooks_.want_write();
  return true;
}

bool Http2Stream::SubmitWhole(http::HttpResponse resp) {
  started_ = true;
  status_ = resp.status;
  if (closed_) return false;
  std::string length = std::to_string(resp.body.size());
  bool with_body = !head_ && !resp.body.empty();
  if (with_body) {
    out_ = std::move(resp.body);
    out_off_ = 0;
    eof_ = true;
  }
  return Submit(resp.status, resp.headers, with_body, &length);
}

Task<bool> Http2Stream::WaitDrained() {
  // Woken once the buffer is at or under the limit, or the stream closed.
  co_await WaitIn{closed_ || Pending() <= session_.limits_.stream_send_buffer, &waiter_};
  co_return !closed_ || sent_all_;
}

Task<bool> Http2Stream::Respond(http::HttpResponse resp) {
  if (started_) co_return false;
  if (!SubmitWhole(std::move(resp))) co_return false;
  co_return co_await WaitDrained();
}

Task<bool> Http2Stream::StartStream(int status, http::Headers headers) {
  if (started_) co_return false;
  started_ = true;
  status_ = status;
  streaming_ = true;
  if (closed_) co_return false;
  co_return Submit(status, headers, !head_, nullptr);
}

Task<bool> Http2Stream::WriteChunk(std::string data) {
  if (head_ && streaming_ && !closed_) co_return true;  // HEAD: the headers were the whole answer
  if (!streaming_ || eof_ || closed_) co_return false;
  if (data.empty()) co_return true;
  if (out_off_ > 0 && out_off_ >= out_.size() / 2) {
    out_.erase(0, out_off_);
    out_off_ = 0;
  }
  out_ += data;
  Queued();
  co_return co_await WaitDrained();
}

Task<bool> Http2Stream::EndStream() {
  if (head_ && streaming_) co_return !closed_;
  if (!streaming_ || eof_) co_return false;
  eof_ = true;
  if (closed_) co_return false;
  Queued();
  co_return true;
}

void Http2Stream::Queued() {
  if (!has_body_) return;
  nghttp2_session_resume_data(session_.session_, id_);
  if (session_.hooks_.want_write) session_.hooks_.want_write();
}

}  // namespace capstan::server
