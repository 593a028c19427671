// server/http/forwarding_writer.h: a ResponseWriter that passes everything to the writer it wraps, for
// filters that watch or amend a response (the timeout, the warning recorder, the audit filter).
//
// Subclasses override the hooks: BeforeStart sees the status and headers of the response (whole or
// streamed) just before they go out, once; OnData sees each body piece. The headers filters put in
// extra_headers() on this writer are handed to the inner writer when the response starts.
// Thread-safety: as any ResponseWriter, used by the request's coroutine only.
#pragma once

#include <string>
#include <utility>

#include "server/http/request_context.h"

namespace capstan::http {

class ForwardingWriter : public ResponseWriter {
 public:
  explicit ForwardingWriter(ResponseWriter& inner) : inner_(inner) {}

  Task<bool> Respond(HttpResponse resp) override {
    Start(resp.status, resp.headers);
    OnData(resp.body);
    co_return co_await inner_.Respond(std::move(resp));
  }
  Task<bool> StartStream(int status, Headers headers) override {
    Start(status, headers);
    co_return co_await inner_.StartStream(status, std::move(headers));
  }
  Task<bool> WriteChunk(std::string data) override {
    OnData(data);
    co_return co_await inner_.WriteChunk(std::move(data));
  }
  Task<bool> EndStream() override { co_return co_await inner_.EndStream(); }
  Task<ByteStream*> Upgrade(Headers headers) override {
    Start(101, headers);
    co_return co_await inner_.Upgrade(std::move(headers));
  }
  bool started() const override { return inner_.started(); }
  int status() const override { return inner_.status(); }

 protected:
  virtual void BeforeStart(int /*status*/, Headers& /*headers*/) {}
  virtual void OnData(const std::string& /*data*/) {}
  ResponseWriter& inner() { return inner_; }

 private:
  void Start(int status, Headers& headers) {
    for (const auto& f : extra_headers_.fields()) inner_.extra_headers().Add(f.name, f.value);
    extra_headers_ = Headers();
    if (!before_start_done_) {
      before_start_done_ = true;
      BeforeStart(status, headers);
    }
  }

  ResponseWriter& inner_;
  bool before_start_done_ = false;
};

// Puts `writer` in the context for as long as it lives, then the previous writer back (also when the
// handler throws, so the filters outside never see a writer that is gone).
class ScopedWriter {
 public:
  ScopedWriter(RequestContext& ctx, ResponseWriter& writer) : ctx_(ctx), previous_(ctx.writer) { ctx.writer = &writer; }
  ~ScopedWriter() { ctx_.writer = previous_; }
  ScopedWriter(const ScopedWriter&) = delete;
  ScopedWriter& operator=(const ScopedWriter&) = delete;
  ResponseWriter& previous() const { return *previous_; }

 private:
  RequestContext& ctx_;
  ResponseWriter* previous_;
};

}  // namespace capstan::http
