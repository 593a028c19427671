// server/asio_await.h: the two bridges between Asio and Capstan's coroutines, shared by the HTTPS
// server and the HTTPS client. IoContextExecutor posts continuations to an io_context (so storage
// completions come back to the thread that started them); AsioAwait(init) awaits an Asio operation
// started by init(handler) whose handler is (error_code) or (error_code, size_t). Asio never calls a
// handler inline from its initiating function and handlers run on the io_context's thread, where the
// awaiting coroutine runs, so resuming inline is safe. Only for src/server/ translation units.
#pragma once

#include <boost/asio.hpp>
#include <coroutine>
#include <functional>
#include <utility>

#include "util/executor.h"

namespace capstan::server {

class IoContextExecutor : public Executor {
 public:
  explicit IoContextExecutor(boost::asio::io_context& ioc) : ioc_(ioc) {}
  void Post(std::function<void()> fn) override { boost::asio::post(ioc_, std::move(fn)); }

 private:
  boost::asio::io_context& ioc_;
};

template <class Init>
struct AsioOp {
  Init init;
  boost::system::error_code ec;
  size_t n = 0;
  bool await_ready() noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    init([this, h](boost::system::error_code e, size_t k = 0) {
      ec = e;
      n = k;
      h.resume();
    });
  }
  std::pair<boost::system::error_code, size_t> await_resume() { return {ec, n}; }
};

template <class Init>
AsioOp<Init> AsioAwait(Init init) {
  return AsioOp<Init>{std::move(init)};
}

}  // namespace capstan::server
