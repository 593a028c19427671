// server/http/paced_stream.h: --max-connection-bytes-per-sec for upgraded connections, as kube's
// UpgradeAwareHandler wraps the backend connection in flowrate's reader and writer: each direction
// of a PacedStream passes at most `bytes_per_sec` on average.
//
// BytePacer is the arithmetic: a token bucket holding at most one second's worth, so a burst of up
// to that passes at once and a longer transfer keeps to the rate; a transfer larger than the tokens
// left runs into debt and the next one waits it off. Not thread-safe (one direction of one stream).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "server/http/byte_stream.h"

namespace capstan::http {

class BytePacer {
 public:
  using Clock = std::chrono::steady_clock;
  explicit BytePacer(int64_t bytes_per_sec);
  // Counts n bytes as sent at `now`; returns how long to wait before sending them (zero when the
  // bucket had them).
  Clock::duration Reserve(size_t n, Clock::time_point now);

 private:
  double rate_;    // bytes per second
  double tokens_;  // may be negative: bytes sent ahead of the rate
  Clock::time_point last_{};
  bool started_ = false;
};

class PacedStream : public ByteStream {
 public:
  PacedStream(std::unique_ptr<ByteStream> inner, int64_t bytes_per_sec)
      : inner_(std::move(inner)), reads_(bytes_per_sec), writes_(bytes_per_sec) {}
  Task<std::string> Read() override;
  Task<bool> Write(std::string data) override;
  void Close() override {
    closed_ = true;
    inner_->Close();
  }

 private:
  // Sleeps `d` in slices, ending early once the stream is closed.
  Task<void> Wait(BytePacer::Clock::duration d);

  std::unique_ptr<ByteStream> inner_;
  BytePacer reads_, writes_;
  bool closed_ = false;
};

}  // namespace capstan::http
