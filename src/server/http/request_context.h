// server/http/request_context.h: one request on its way through the handler chain, and the writer for
// its response.
//
// The server creates a RequestContext per request and owns it until the handler chain's Task has
// finished; filters add what they learn (request info, user, audit id), handlers answer through the
// ResponseWriter. A response is either one complete HttpResponse (Respond) or a chunked stream
// (StartStream / WriteChunk / EndStream, for watches and large lists), or a 101 that hands the
// connection over to the handler (Upgrade). Once the request has timed out
// the writer drops later writes, so a handler that finishes late cannot corrupt the connection.
// Thread-safety: a context is used by one coroutine at a time, on its connection's I/O thread;
// Cancel() may be called from that thread only.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apimachinery/request_scope.h"
#include "apimachinery/status.h"
#include "server/http/byte_stream.h"
#include "server/http/headers.h"
#include "server/http/http_request.h"
#include "server/http/request_info.h"
#include "server/http/user_info.h"
#include "util/task.h"

namespace capstan::http {

struct HttpResponse {
  int status = 200;
  Headers headers;
  std::string body;
};

class ResponseWriter {
 public:
  virtual ~ResponseWriter() = default;
  // Writes a whole response. Returns false when the connection is gone or a response was already sent.
  virtual Task<bool> Respond(HttpResponse resp) = 0;
  // Starts a chunked response; then WriteChunk for each piece and EndStream once.
  virtual Task<bool> StartStream(int status, Headers headers) = 0;
  virtual Task<bool> WriteChunk(std::string data) = 0;
  virtual Task<bool> EndStream() = 0;
  // Answers 101 Switching Protocols with `headers` (nothing else is added: what a backend answered
  // goes on as it was) and hands over the connection; the bytes the client sent after the request's
  // head are the first Read. It stays the handler's until the handler returns, then it is closed.
  // nullptr where a connection cannot be taken over (HTTP/2, a response already started).
  virtual Task<ByteStream*> Upgrade(Headers /*headers*/) { co_return nullptr; }
  // True once any response bytes were sent (or dropped after a timeout).
  virtual bool started() const = 0;
  // The status code of the response sent, 0 before.
  virtual int status() const = 0;
  // Headers every response of this request carries (Audit-Id, CORS, warnings); filters add to it
  // before the handler answers.
  Headers& extra_headers() { return extra_headers_; }

 protected:
  Headers extra_headers_;
};

// A one-shot signal that a request should stop: timed out, or the client went away.
class Cancellation {
 public:
  bool cancelled() const { return cancelled_; }
  void Cancel() {
    if (cancelled_) return;
    cancelled_ = true;
    auto cbs = std::move(callbacks_);
    callbacks_.clear();
    for (auto& cb : cbs) cb();
  }
  // Calls cb when cancelled (immediately if already). Returns an id for Remove.
  size_t OnCancel(std::function<void()> cb) {
    if (cancelled_) {
      cb();
      return 0;
    }
    callbacks_.push_back(std::move(cb));
    return callbacks_.size();
  }
  void Remove(size_t id) {
    if (id > 0 && id <= callbacks_.size()) callbacks_[id - 1] = [] {};
  }

 private:
  bool cancelled_ = false;
  std::vector<std::function<void()>> callbacks_;
};

struct RequestContext {
  HttpRequest request;
  RequestInfo info;
  std::optional<UserInfo> user;          // set by authentication
  std::optional<UserInfo> impersonator;  // the original user when impersonating
  std::string audit_id;
  std::chrono::steady_clock::time_point received;
  ResponseWriter* writer = nullptr;
  Cancellation cancel;
  // Warnings and audit annotations gathered on the way (written as Warning headers and into the
  // audit event); registry::Context and admission carry a pointer to it.
  RequestScope scope;
  // Set by the authorization filter: the decision and why (for audit annotations).
  std::string authorization_decision;
  std::string authorization_reason;
};

using Handler = std::function<Task<void>(RequestContext&)>;

}  // namespace capstan::http
