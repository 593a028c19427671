#include "server/http/paced_stream.h"

#include <algorithm>

#include "util/timer.h"

namespace capstan::http {

BytePacer::BytePacer(int64_t bytes_per_sec) : rate_(static_cast<double>(std::max<int64_t>(bytes_per_sec, 1))), tokens_(rate_) {}

BytePacer::Clock::duration BytePacer::Reserve(size_t n, Clock::time_point now) {
  if (started_ && now > last_) {
    tokens_ = std::min(rate_, tokens_ + std::chrono::duration<double>(now - last_).count() * rate_);
  }
  started_ = true;
  last_ = std::max(last_, now);
  tokens_ -= static_cast<double>(n);
  if (tokens_ >= 0) return Clock::duration::zero();
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(-tokens_ / rate_));
}

Task<void> PacedStream::Wait(BytePacer::Clock::duration d) {
  constexpr auto kSlice = std::chrono::milliseconds(100);
  const auto until = BytePacer::Clock::now() + d;
  for (auto now = BytePacer::Clock::now(); !closed_ && now < until; now = BytePacer::Clock::now()) {
    co_await SleepFor(std::min<BytePacer::Clock::duration>(until - now, kSlice));
  }
}

Task<std::string> PacedStream::Read() {
  std::string data = co_await inner_->Read();
  if (!data.empty()) co_await Wait(reads_.Reserve(data.size(), BytePacer::Clock::now()));
  co_return data;
}

Task<bool> PacedStream::Write(std::string data) {
  co_await Wait(writes_.Reserve(data.size(), BytePacer::Clock::now()));
  if (closed_) co_return false;
  co_return co_await inner_->Write(std::move(data));
}

}  // namespace capstan::http
