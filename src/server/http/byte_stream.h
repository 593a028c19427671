// server/http/byte_stream.h: a connection after a 101 Switching Protocols, as raw bytes both ways. The
// server hands one to a handler that upgrades its request (ResponseWriter::Upgrade: SPDY and WebSocket
// clients of exec, attach, port-forward and */proxy), and the HTTP client returns one for an upgraded
// request to a backend (server/http/http_stream.h: the kubelet's exec, attach and port-forward).
//
// Read and Write may each have one call outstanding at a time, concurrently with each other (a relay
// pumps both directions at once); the awaiting coroutine resumes on its own executor. Close may be
// called from any coroutine, at any time: it ends a pending Read (with empty) and later Writes fail.
#pragma once

#include <string>
#include <utility>

#include "util/task.h"

namespace capstan::http {

class ByteStream {
 public:
  virtual ~ByteStream() = default;
  // The next bytes that arrived; empty: the peer closed, the connection failed, or Close was called.
  virtual Task<std::string> Read() = 0;
  // Writes all of data; false once the connection failed or was closed.
  virtual Task<bool> Write(std::string data) = 0;
  // Closes both directions. Idempotent.
  virtual void Close() = 0;
};

// Writes to a ByteStream from several coroutines of one executor in the order they were handed over:
// a Send while an earlier one is still writing joins its batch (the bytes are queued at once, so
// frames encoded in call order reach the wire in that order). False once a write failed.
class OrderedWriter {
 public:
  explicit OrderedWriter(ByteStream& io) : io_(io) {}
  Task<bool> Send(std::string data) {
    pending_ += data;
    if (writing_) co_return !failed_;
    writing_ = true;
    while (!pending_.empty() && !failed_) {
      if (!co_await io_.Write(std::exchange(pending_, std::string()))) failed_ = true;
    }
    writing_ = false;
    co_return !failed_;
  }
  bool failed() const { return failed_; }

 private:
  ByteStream& io_;
  std::string pending_;
  bool writing_ = false;
  bool failed_ = false;
};

}  // namespace capstan::http
