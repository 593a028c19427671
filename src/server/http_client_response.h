// server/http_client_response.h: an incremental HTTP/1.1 response parser for the HTTP client, with
// hard limits (head size, header count, body size).
//
// Feed() takes whatever bytes arrived and returns kDone once one whole response is read (interim 1xx
// responses are skipped), kNeedMore, or kError with a message. Bodies are delimited by
// Content-Length, by chunked transfer coding (trailers dropped), by the status (1xx, 204, 304 and
// answers to HEAD have none), or else by the end of the connection (FinishAtEof). No I/O and no Asio
// here, so the fuzz target drives it directly. Thread-compatible: one parser per exchange.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "server/http/http_client.h"

namespace capstan::server {

class ResponseParser {
 public:
  enum class Result { kNeedMore, kDone, kError };

  explicit ResponseParser(size_t max_body_bytes, bool head_request = false)
      : max_body_(max_body_bytes), head_request_(head_request) {}
  // For a request that asked for an upgrade: a 101 ends the response at its head (what follows belongs
  // to the switched protocol) instead of being an error.
  void AllowSwitch() { allow_switch_ = true; }

  // Consumes a prefix of `in`; *consumed says how much.
  Result Feed(std::string_view in, size_t* consumed);
  // The peer closed the connection: completes a close-delimited body, fails anything unfinished.
  Result FinishAtEof();

  // After kDone.
  http::ClientResponse Take() { return std::move(resp_); }
  // Whether the connection may carry another exchange after this one.
  bool keep_alive() const { return keep_alive_; }
  // True once some byte of the response arrived (a reused connection that fails before is retried).
  bool started() const { return started_; }
  bool body_too_large() const { return too_large_; }
  const std::string& error() const { return error_; }
  // Streaming (server/http/http_stream.h): whether the final response's head has been parsed (its
  // status and headers are then in head()), and the body bytes parsed since the last drain.
  bool head_done() const { return state_ != State::kHead && state_ != State::kError; }
  const http::ClientResponse& head() const { return resp_; }
  std::string DrainBody() { return std::exchange(resp_.body, std::string()); }

  static constexpr size_t kMaxHeadBytes = 1 << 20;
  static constexpr size_t kMaxHeaderCount = 1000;

 private:
  enum class State { kHead, kBody, kUntilClose, kChunkSize, kChunkData, kChunkDataEnd, kTrailer, kDone, kError };
  Result Fail(std::string msg);
  bool ParseHead(std::string_view head);
  bool AppendBody(std::string_view data);

  size_t max_body_;
  bool head_request_;
  State state_ = State::kHead;
  std::string buf_;
  size_t scan_from_ = 0;
  http::ClientResponse resp_;
  uint64_t remaining_ = 0;
  bool keep_alive_ = true;
  bool started_ = false;
  bool too_large_ = false;
  bool allow_switch_ = false;
  std::string error_;
};

}  // namespace capstan::server
