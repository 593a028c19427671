// tests/fakes/fake_response_writer.h: a ResponseWriter that records what a handler answered.
#pragma once

#include <string>
#include <vector>

#include "server/http/request_context.h"

namespace capstan::testing {

class FakeResponseWriter : public http::ResponseWriter {
 public:
  Task<bool> Respond(http::HttpResponse resp) override {
    if (started_) co_return false;
    started_ = true;
    status_ = resp.status;
    headers = resp.headers;
    for (const auto& f : extra_headers_.fields()) headers.Add(f.name, f.value);
    body = resp.body;
    co_return true;
  }
  Task<bool> StartStream(int status, http::Headers h) override {
    if (started_) co_return false;
    started_ = true;
    streaming = true;
    status_ = status;
    headers = h;
    for (const auto& f : extra_headers_.fields()) headers.Add(f.name, f.value);
    co_return true;
  }
  Task<bool> WriteChunk(std::string data) override {
    chunks.push_back(data);
    body += data;
    co_return true;
  }
  Task<bool> EndStream() override {
    ended = true;
    co_return true;
  }
  bool started() const override { return started_; }
  int status() const override { return status_; }

  http::Headers headers;
  std::string body;
  std::vector<std::string> chunks;
  bool streaming = false;
  bool ended = false;

 private:
  bool started_ = false;
  int status_ = 0;
};

// A request context for `method path?query` with a writer attached.
inline std::unique_ptr<http::RequestContext> MakeContext(const std::string& method, const std::string& target,
                                                         http::ResponseWriter& w) {
  auto ctx = std::make_unique<http::RequestContext>();
  ctx->request.method = method;
  ctx->request.target = target;
  auto q = target.find('?');
  ctx->request.path = target.substr(0, q);
  if (q != std::string::npos) {
    ctx->request.raw_query = target.substr(q + 1);
    ctx->request.query = http::Query::Parse(ctx->request.raw_query);
  }
  (void)http::ResolveRequestInfo(method, ctx->request.path, ctx->request.query, ctx->info);
  ctx->received = std::chrono::steady_clock::now();
  ctx->writer = &w;
  return ctx;
}

}  // namespace capstan::testing
