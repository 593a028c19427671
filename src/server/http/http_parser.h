// server/http/http_parser.h: an incremental HTTP/1.1 request parser with hard limits.
//
// Feed() takes whatever bytes arrived; it returns kDone when one whole request (head and body,
// Content-Length or chunked) has been read, kNeedMore when it needs more bytes, or kError with the
// HTTP status to answer (400 malformed, 413 body over the limit, 431 head over the limit, 501 unknown
// transfer coding, 505 unsupported version). Bytes after a complete request are left unconsumed for
// the next one (pipelining). No I/O here: the server owns the socket, and the fuzz target drives this
// class directly. Thread-compatible: one parser per connection.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "server/http/http_request.h"

namespace capstan::http {

struct ParserLimits {
  size_t max_header_bytes = 1 << 20;       // request line and header fields together (Go's default)
  size_t max_body_bytes = 3 * 1024 * 1024;  // --max-request-body-bytes
  size_t max_header_count = 1000;
};

class RequestParser {
 public:
  enum class Result { kNeedMore, kDone, kError };

  explicit RequestParser(ParserLimits limits = {}) : limits_(limits) {}

  // Consumes a prefix of `in`; *consumed says how much.
  Result Feed(std::string_view in, size_t* consumed);

  // After kDone: the request (the parser is then reset for the next one).
  HttpRequest TakeRequest();

  // True once the head is parsed, the client sent "Expect: 100-continue" and the body is still unread.
  bool WantsContinue() const { return state_ == State::kBody && expect_continue_; }
  bool HeadDone() const { return state_ != State::kHead; }
  // True between requests: nothing of a next request has arrived yet.
  bool Idle() const { return state_ == State::kHead && buf_.empty(); }

  int error_status() const { return error_status_; }
  const std::string& error_message() const { return error_message_; }

 private:
  enum class State { kHead, kBody, kChunkSize, kChunkData, kChunkDataEnd, kTrailer, kDone, kError };

  Result Fail(int status, std::string msg);
  bool ParseHead(std::string_view head);
  Result FeedChunked(std::string_view in, size_t* consumed);

  ParserLimits limits_;
  State state_ = State::kHead;
  std::string buf_;           // head bytes, or the current chunk-size/trailer line
  size_t scan_from_ = 0;      // where to resume looking for the end of the head
  HttpRequest req_;
  uint64_t body_remaining_ = 0;
  bool chunked_ = false;
  bool expect_continue_ = false;
  int error_status_ = 0;
  std::string error_message_;
};

}  // namespace capstan::http
