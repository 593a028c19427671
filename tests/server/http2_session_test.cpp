// Http2Session driven by a real nghttp2 client session in memory: bytes go back and forth until both
// sides are quiet, and the functions the server posts run in between (the event loop's part).
#include "server/http2_session.h"

#include <gtest/gtest.h>
#include <nghttp2/nghttp2.h>

#include <deque>
#include <map>
#include <string>

#include "server/http/responses.h"

namespace capstan::server {
namespace {

struct ClientStream {
  int status = 0;
  std::map<std::string, std::string> headers;
  std::string body;
  bool closed = false;
  uint32_t close_code = 0;
};

// Suspends until the request is cancelled.
struct UntilCancelled {
  http::RequestContext& ctx;
  bool await_ready() const { return ctx.cancel.cancelled(); }
  void await_suspend(std::coroutine_handle<> h) { ctx.cancel.OnCancel([h] { h.resume(); }); }
  void await_resume() const {}
};

class Http2SessionTest : public ::testing::Test {
 protected:
  // client_window: the client's SETTINGS_INITIAL_WINDOW_SIZE; auto_window: whether the client
  // acknowledges what it reads (false: the test decides per stream with Consume).
  void Start(Http2Limits limits, http::Handler handler, uint32_t client_window = 65535, bool auto_window = true) {
    Http2Session::Hooks hooks;
    hooks.handler = std::move(handler);
    hooks.want_write = [] {};
    hooks.post = [this](std::function<void()> fn) { posted_.push_back(std::move(fn)); };
    hooks.remote_addr = "127.0.0.1:1";
    server_ = std::make_unique<Http2Session>(limits, std::move(hooks));

    nghttp2_session_callbacks* cbs;
    nghttp2_session_callbacks_new(&cbs);
    nghttp2_session_callbacks_set_on_header_callback(
        cbs, [](nghttp2_session*, const nghttp2_frame* f, const uint8_t* n, size_t nl, const uint8_t* v, size_t vl,
                uint8_t, void* u) -> int {
          auto& st = static_cast<Http2SessionTest*>(u)->streams_[f->hd.stream_id];
          std::string name(reinterpret_cast<const char*>(n), nl), value(reinterpret_cast<const char*>(v), vl);
          if (name == ":status") st.status = std::stoi(value);
          st.headers[name] = value;
          return 0;
        });
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(
        cbs, [](nghttp2_session*, uint8_t, int32_t id, const uint8_t* d, size_t len, void* u) -> int {
          static_cast<Http2SessionTest*>(u)->streams_[id].body.append(reinterpret_cast<const char*>(d), len);
          return 0;
        });
    nghttp2_session_callbacks_set_on_stream_close_callback(cbs, [](nghttp2_session*, int32_t id, uint32_t code, void* u) {
      auto& st = static_cast<Http2SessionTest*>(u)->streams_[id];
      st.closed = true;
      st.close_code = code;
      return 0;
    });
    nghttp2_session_callbacks_set_on_frame_recv_callback(cbs, [](nghttp2_session*, const nghttp2_frame* f, void* u) {
      auto* t = static_cast<Http2SessionTest*>(u);
      if (f->hd.type == NGHTTP2_GOAWAY) {
        t->goaway_last_stream_ = f->goaway.last_stream_id;
        t->goaway_code_ = f->goaway.error_code;
      }
      return 0;
    });
    nghttp2_option* opt;
    nghttp2_option_new(&opt);
    if (!auto_window) nghttp2_option_set_no_auto_window_update(opt, 1);
    nghttp2_session_client_new2(&client_, cbs, this, opt);
    nghttp2_option_del(opt);
    nghttp2_session_callbacks_del(cbs);
    nghttp2_settings_entry iv[] = {{NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, client_window}};
    nghttp2_submit_settings(client_, NGHTTP2_FLAG_NONE, iv, 1);
    Exchange();
  }

  void TearDown() override {
    if (server_) {
      server_->CancelAll();
      RunPosted();
      server_.reset();
    }
    if (client_) nghttp2_session_del(client_);
  }

  // open_body: HEADERS without END_STREAM and no DATA yet (an upload that has only begun).
  int32_t Request(const std::string& method, const std::string& path, const std::string& body = "",
                  std::vector<std::pair<std::string, std::string>> extra = {}, bool open_body = false) {
    std::vector<std::pair<std::string, std::string>> h = {
        {":method", method}, {":scheme", "https"}, {":path", path}, {":authority", "example"}};
    for (auto& e : extra) h.push_back(e);
    std::vector<nghttp2_nv> nva;
    for (auto& [n, v] : h) {
      nva.push_back({reinterpret_cast<uint8_t*>(n.data()), reinterpret_cast<uint8_t*>(v.data()), n.size(), v.size(),
                     NGHTTP2_NV_FLAG_NONE});
    }
    bodies_.push_back({body, 0});
    nghttp2_data_provider dp;
    dp.source.ptr = &bodies_.back();
    dp.read_callback = ReadBody;
    int32_t id = open_body ? nghttp2_submit_headers(client_, NGHTTP2_FLAG_NONE, -1, nullptr, nva.data(), nva.size(), nullptr)
                           : nghttp2_submit_request(client_, nullptr, nva.data(), nva.size(), body.empty() ? nullptr : &dp, nullptr);
    Exchange();
    return id;
  }

  // The body of a request opened with open_body, then END_STREAM.
  void SendBody(int32_t id, const std::string& body) {
    bodies_.push_back({body, 0});
    nghttp2_data_provider dp;
    dp.source.ptr = &bodies_.back();
    dp.read_callback = ReadBody;
    nghttp2_submit_data(client_, NGHTTP2_FLAG_END_STREAM, id, &dp);
    Exchange();
  }

  static ssize_t ReadBody(nghttp2_session*, int32_t, uint8_t* buf, size_t len, uint32_t* flags, nghttp2_data_source* src,
                          void*) {
    auto* b = static_cast<std::pair<std::string, size_t>*>(src->ptr);
    size_t n = std::min(len, b->first.size() - b->second);
    memcpy(buf, b->first.data() + b->second, n);
    b->second += n;
    if (b->second == b->first.size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return static_cast<ssize_t>(n);
  }

  void RunPosted() {
    while (!posted_.empty()) {
      auto fn = std::move(posted_.front());
      posted_.pop_front();
      fn();
    }
  }

  // Moves bytes both ways until neither side has anything to send.
  void Exchange() {
    for (int round = 0; round < 1000; ++round) {
      bool moved = false;
      const uint8_t* data;
      ssize_t n;
      std::string to_server;
      while ((n = nghttp2_session_mem_send(client_, &data)) > 0) to_server.append(reinterpret_cast<const char*>(data), n);
      if (!to_server.empty()) {
        moved = true;
        server_ok_ = server_->Feed(to_server) && server_ok_;
      }
      RunPosted();
      std::string to_client = server_->TakeOutput();
      if (!to_client.empty()) {
        moved = true;
        nghttp2_session_mem_recv(client_, reinterpret_cast<const uint8_t*>(to_client.data()), to_client.size());
      }
      if (!posted_.empty()) moved = true;
      RunPosted();
      if (!moved) return;
    }
  }

  std::unique_ptr<Http2Session> server_;
  nghttp2_session* client_ = nullptr;
  std::deque<std::function<void()>> posted_;
  std::map<int32_t, ClientStream> streams_;
  std::deque<std::pair<std::string, size_t>> bodies_;
  bool server_ok_ = true;
  int32_t goaway_last_stream_ = -1;
  uint32_t goaway_code_ = 0;
};

Task<void> Hello(http::RequestContext& ctx) {
  http::HttpResponse resp;
  resp.headers.Add("Content-Type", "application/json");
  resp.headers.Add("Connection", "keep-alive");
  ctx.writer->extra_headers().Add("Audit-Id", "abc");
  resp.body = R"({"path":")" + ctx.request.path + R"(","query":")" + ctx.request.query.GetOr("q", "") +
              R"(","host":")" + std::string(ctx.request.headers.Get("Host")) + R"(","body":")" + ctx.request.body + "\"}";
  co_await ctx.writer->Respond(std::move(resp));
}

TEST_F(Http2SessionTest, AnswersARequestWithLowercaseHeadersAndBody) {
  Start({}, Hello);
  int32_t id = Request("GET", "/api/v1/name%20spaces?q=1");
  const ClientStream& st = streams_[id];
  ASSERT_TRUE(st.closed);
  EXPECT_EQ(st.close_code, NGHTTP2_NO_ERROR);
  EXPECT_EQ(st.status, 200);
  EXPECT_EQ(st.body, R"({"path":"/api/v1/name spaces","query":"1","host":"example","body":""})");
  EXPECT_EQ(st.headers.at("content-type"), "application/json");
  EXPECT_EQ(st.headers.at("content-length"), std::to_string(st.body.size()));
  EXPECT_EQ(st.headers.at("audit-id"), "abc");
  EXPECT_TRUE(st.headers.count("date"));
  EXPECT_FALSE(st.headers.count("connection"));  // connection-specific fields are not HTTP/2
  EXPECT_EQ(server_->ActiveStreams(), 0u);
}

TEST_F(Http2SessionTest, ReadsTheRequestBody) {
  Start({}, Hello);
  int32_t id = Request("POST", "/p", "payload");
  EXPECT_EQ(streams_[id].status, 200);
  EXPECT_NE(streams_[id].body.find(R"("body":"payload")"), std::string::npos);
}

TEST_F(Http2SessionTest, HeadAnswersWithoutBody) {
  Start({}, Hello);
  int32_t id = Request("HEAD", "/x");
  EXPECT_EQ(streams_[id].status, 200);
  EXPECT_TRUE(streams_[id].body.empty());
  EXPECT_NE(streams_[id].headers.at("content-length"), "0");
}

TEST_F(Http2SessionTest, HeadOfAStreamedResponseSendsHeadersOnly) {
  bool writes_ok = false;
  Start({}, [&](http::RequestContext& ctx) -> Task<void> {
    co_await ctx.writer->StartStream(200, {});
    bool a = co_await ctx.writer->WriteChunk("one");
    bool b = co_await ctx.writer->WriteChunk("two");
    bool c = co_await ctx.writer->EndStream();
    writes_ok = a && b && c;
  });
  int32_t id = Request("HEAD", "/api/v1/pods?watch=1");
  EXPECT_EQ(streams_[id].status, 200);
  EXPECT_TRUE(streams_[id].body.empty());
  EXPECT_TRUE(streams_[id].closed);
  EXPECT_TRUE(writes_ok);  // the handler is not told the client went away
}

TEST_F(Http2SessionTest, ManyConcurrentStreamsAreAllAnswered) {
  Start({}, Hello);
  std::vector<int32_t> ids;
  for (int i = 0; i < 60; ++i) ids.push_back(Request("GET", "/n/" + std::to_string(i)));
  for (int i = 0; i < 60; ++i) {
    EXPECT_EQ(streams_[ids[i]].status, 200) << i;
    EXPECT_NE(streams_[ids[i]].body.find("/n/" + std::to_string(i) + "\""), std::string::npos);
  }
}

TEST_F(Http2SessionTest, HandlerThatDoesNotAnswerGets500) {
  Start({}, [](http::RequestContext&) -> Task<void> { co_return; });
  int32_t id = Request("GET", "/");
  EXPECT_EQ(streams_[id].status, 500);
  EXPECT_NE(streams_[id].body.find("the server did not answer the request"), std::string::npos);
}

TEST_F(Http2SessionTest, BodyOverTheLimitIs413) {
  Http2Limits limits;
  limits.max_body_bytes = 1000;
  bool ran = false;
  Start(limits, [&ran](http::RequestContext& ctx) -> Task<void> {
    ran = true;
    co_await Hello(ctx);
  });
  int32_t id = Request("POST", "/p", std::string(5000, 'b'));
  EXPECT_EQ(streams_[id].status, 413);
  EXPECT_NE(streams_[id].body.find("Request entity too large: limit is 1000"), std::string::npos);
  EXPECT_NE(streams_[id].body.find("\"reason\":\"RequestEntityTooLarge\""), std::string::npos);
  EXPECT_FALSE(ran);
  // A declared Content-Length over the limit is refused before any DATA.
  int32_t id2 = Request("POST", "/p", "", {{"content-length", "5000"}}, /*open_body=*/true);
  EXPECT_EQ(streams_[id2].status, 413);
  // The client may finish its upload (the bytes are dropped): the stream then ends normally.
  EXPECT_FALSE(streams_[id2].closed);
  SendBody(id2, std::string(5000, 'b'));
  EXPECT_TRUE(streams_[id2].closed);
  EXPECT_EQ(streams_[id2].close_code, NGHTTP2_NO_ERROR);
  EXPECT_EQ(server_->ActiveStreams(), 0u);
  EXPECT_FALSE(ran);
  EXPECT_TRUE(server_ok_);
}

TEST_F(Http2SessionTest, UploadGoingOnLongAfterA413IsReset) {
  Http2Limits limits;
  limits.max_body_bytes = 1000;
  limits.max_discard_bytes = 20000;
  Start(limits, Hello);
  int32_t id = Request("POST", "/p", "", {{"content-length", "100000"}}, /*open_body=*/true);
  EXPECT_EQ(streams_[id].status, 413);
  SendBody(id, std::string(100000, 'b'));
  EXPECT_TRUE(streams_[id].closed);
  EXPECT_EQ(streams_[id].close_code, NGHTTP2_NO_ERROR);  // RST_STREAM(NO_ERROR) after the answer
  EXPECT_LT(streams_[id].body.size(), 1000u);
  EXPECT_NE(streams_[id].body.find("RequestEntityTooLarge"), std::string::npos);
  EXPECT_EQ(server_->ActiveStreams(), 0u);
  EXPECT_TRUE(server_ok_);
}

TEST_F(Http2SessionTest, HeaderListOverTheLimitIs431) {
  Http2Limits limits;
  limits.max_header_list_bytes = 4096;
  Start(limits, Hello);
  int32_t id = Request("GET", "/", "", {{"x-big", std::string(5000, 'h')}});
  EXPECT_EQ(streams_[id].status, 431);
  std::vector<std::pair<std::string, std::string>> many;
  for (int i = 0; i < 1100; ++i) many.push_back({"x-h" + std::to_string(i), "v"});
  Http2Limits count_limits;
  EXPECT_EQ(count_limits.max_header_count, 1000u);
  int32_t id2 = Request("GET", "/", "", many);
  EXPECT_EQ(streams_[id2].status, 431);  // over 4 KiB too; the count limit is the same path
}

TEST_F(Http2SessionTest, TooManyHeaderFieldsIs431) {
  Http2Limits limits;
  limits.max_header_count = 10;
  Start(limits, Hello);
  std::vector<std::pair<std::string, std::string>> many;
  for (int i = 0; i < 11; ++i) many.push_back({"x-h" + std::to_string(i), "v"});
  int32_t id = Request("GET", "/", "", many);
  EXPECT_EQ(streams_[id].status, 431);
  many.pop_back();
  int32_t id2 = Request("GET", "/", "", many);
  EXPECT_EQ(streams_[id2].status, 200);
}

// A watch-like handler: writes 4 KiB chunks until the stream is gone, counting them.
struct Streamer {
  int chunks = 0;
  bool finished = false;
  bool cancelled = false;
};

http::Handler StreamingHandler(Streamer& s) {
  return [&s](http::RequestContext& ctx) -> Task<void> {
    if (ctx.request.path != "/watch") {
      co_await Hello(ctx);
      co_return;
    }
    co_await ctx.writer->StartStream(200, {});
    while (co_await ctx.writer->WriteChunk(std::string(4096, 'w'))) {
      if (++s.chunks > 10000) break;
    }
    s.cancelled = ctx.cancel.cancelled();
    s.finished = true;
  };
}

TEST_F(Http2SessionTest, StalledStreamHoldsOnlyItsOwnHandler) {
  Http2Limits limits;
  limits.stream_send_buffer = 16 * 1024;
  Streamer watch;
  // The client's window is 16 KiB and it never acknowledges what it reads.
  Start(limits, StreamingHandler(watch), 16 * 1024, /*auto_window=*/false);
  int32_t w = Request("GET", "/watch");
  EXPECT_EQ(streams_[w].status, 200);
  // The handler is suspended: 16 KiB went out, 16 KiB wait in the stream's buffer, one chunk more.
  EXPECT_FALSE(watch.finished);
  EXPECT_LE(watch.chunks, 9);
  EXPECT_EQ(streams_[w].body.size(), 16u * 1024);
  // Other streams on the connection are answered meanwhile.
  int32_t a = Request("GET", "/a");
  int32_t b = Request("GET", "/b");
  EXPECT_EQ(streams_[a].status, 200);
  EXPECT_EQ(streams_[b].status, 200);
  EXPECT_FALSE(watch.finished);
  // Reading more (a WINDOW_UPDATE) lets the watch continue.
  int before = watch.chunks;
  nghttp2_session_consume(client_, w, 16 * 1024);
  Exchange();
  EXPECT_GT(watch.chunks, before);
  EXPECT_EQ(streams_[w].body.size(), 32u * 1024);
  // Resetting the stream cancels the handler.
  nghttp2_submit_rst_stream(client_, NGHTTP2_FLAG_NONE, w, NGHTTP2_CANCEL);
  Exchange();
  EXPECT_TRUE(watch.finished);
  EXPECT_TRUE(watch.cancelled);
  EXPECT_EQ(server_->ActiveStreams(), 0u);
}

TEST_F(Http2SessionTest, ClientResetCancelsAWaitingRequest) {
  bool cancelled = false;
  Start({}, [&cancelled](http::RequestContext& ctx) -> Task<void> {
    co_await UntilCancelled{ctx};
    cancelled = true;
  });
  int32_t id = Request("GET", "/api/v1/pods?watch=1&timeoutSeconds=600");
  EXPECT_FALSE(cancelled);
  EXPECT_EQ(server_->ActiveStreams(), 1u);
  nghttp2_submit_rst_stream(client_, NGHTTP2_FLAG_NONE, id, NGHTTP2_CANCEL);
  Exchange();
  EXPECT_TRUE(cancelled);
  EXPECT_EQ(server_->ActiveStreams(), 0u);
}

// A handler that ignores cancellation until the test opens the gate.
struct Gate {
  std::coroutine_handle<> waiter;
  bool await_ready() const { return false; }
  void await_suspend(std::coroutine_handle<> h) { waiter = h; }
  void await_resume() const {}
};

TEST_F(Http2SessionTest, StreamsOverTheLimitAreRefusedWhileResetHandlersStillRun) {
  Http2Limits limits;
  limits.max_concurrent_streams = 2;
  int running = 0;
  Gate gate;
  Start(limits, [&](http::RequestContext& ctx) -> Task<void> {
    ++running;
    if (ctx.request.path == "/stubborn") {
      co_await gate;
    } else {
      co_await UntilCancelled{ctx};
    }
    --running;
  });
  EXPECT_EQ(nghttp2_session_get_remote_settings(client_, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS), 2u);
  Request("GET", "/1");
  int32_t stubborn = Request("GET", "/stubborn");
  EXPECT_EQ(running, 2);
  // The client resets a stream whose handler keeps running: that does not make room (rapid reset).
  nghttp2_submit_rst_stream(client_, NGHTTP2_FLAG_NONE, stubborn, NGHTTP2_CANCEL);
  Exchange();
  EXPECT_EQ(running, 2);
  int32_t third = Request("GET", "/3");
  EXPECT_TRUE(streams_[third].closed);
  EXPECT_EQ(streams_[third].close_code, NGHTTP2_REFUSED_STREAM);
  EXPECT_EQ(running, 2);
  // Once that handler has finished, a new stream is served.
  ASSERT_TRUE(gate.waiter);
  std::exchange(gate.waiter, {}).resume();
  RunPosted();
  EXPECT_EQ(running, 1);
  int32_t fourth = Request("GET", "/4");
  EXPECT_EQ(running, 2);
  EXPECT_FALSE(streams_[fourth].closed);
}

TEST_F(Http2SessionTest, CancelLongRunningEndsWatchesOnly) {
  int ended = 0;
  Start({}, [&ended](http::RequestContext& ctx) -> Task<void> {
    co_await UntilCancelled{ctx};
    ++ended;
  });
  Request("GET", "/api/v1/pods?watch=true");
  Request("GET", "/api/v1/watch/pods");
  Request("GET", "/api/v1/pods");
  server_->CancelLongRunning();
  Exchange();
  EXPECT_EQ(ended, 2);
  EXPECT_EQ(server_->ActiveStreams(), 1u);
}

TEST_F(Http2SessionTest, DrainSendsGoawayAndFinishesOpenStreams) {
  http::RequestContext* held_ctx = nullptr;
  Start({}, [&](http::RequestContext& ctx) -> Task<void> {
    held_ctx = &ctx;
    co_await UntilCancelled{ctx};
    co_await Hello(ctx);
  });
  int32_t id = Request("GET", "/slow");
  ASSERT_NE(held_ctx, nullptr);
  server_->Drain();
  Exchange();
  EXPECT_EQ(goaway_last_stream_, id);
  EXPECT_EQ(goaway_code_, NGHTTP2_NO_ERROR);
  EXPECT_TRUE(server_->Alive());  // the stream is still open
  // A stream opened after the GOAWAY is not served.
  int32_t late = Request("GET", "/late");
  if (late > 0) EXPECT_EQ(streams_[late].status, 0);
  held_ctx->cancel.Cancel();  // let the handler answer
  Exchange();
  EXPECT_EQ(streams_[id].status, 200);
  EXPECT_FALSE(server_->Alive());
}

TEST_F(Http2SessionTest, ConnectionCloseOnAResponseSendsGracefulGoaway) {
  int http2_requests = 0;
  Start({}, [&](http::RequestContext& ctx) -> Task<void> {
    if (ctx.request.version_major == 2) ++http2_requests;
    if (ctx.request.path == "/last") ctx.writer->extra_headers().Set("Connection", "close");
    co_await http::RespondText(ctx, "answer for " + ctx.request.path);
  });
  int32_t first = Request("GET", "/first");
  EXPECT_EQ(goaway_last_stream_, -1);
  int32_t last = Request("GET", "/last");
  EXPECT_EQ(streams_[first].status, 200);
  EXPECT_EQ(streams_[last].status, 200);
  EXPECT_FALSE(streams_[last].headers.count("connection"));
  EXPECT_NE(streams_[last].body.find("/last"), std::string::npos);  // the response itself is whole
  EXPECT_EQ(goaway_last_stream_, last);
  EXPECT_EQ(goaway_code_, NGHTTP2_NO_ERROR);
  EXPECT_EQ(http2_requests, 2);
  EXPECT_FALSE(server_->Alive());
}

TEST_F(Http2SessionTest, BadPrefaceEndsTheSession) {
  Http2Session::Hooks hooks;
  hooks.handler = Hello;
  hooks.want_write = [] {};
  hooks.post = [](std::function<void()> fn) { fn(); };
  Http2Session s({}, std::move(hooks));
  EXPECT_FALSE(s.Feed("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
}

TEST_F(Http2SessionTest, SettingsAdvertiseKubesLimits) {
  Start({}, Hello);
  EXPECT_EQ(nghttp2_session_get_remote_settings(client_, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS), 100u);
  EXPECT_EQ(nghttp2_session_get_remote_settings(client_, NGHTTP2_SETTINGS_MAX_FRAME_SIZE), 256u * 1024);
  EXPECT_EQ(nghttp2_session_get_remote_settings(client_, NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE), 256u * 1024);
  EXPECT_EQ(nghttp2_session_get_remote_settings(client_, NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE), 1u << 20);
}

}  // namespace
}  // namespace capstan::server
