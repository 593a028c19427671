// cmd/app.h: the Capstan process: builds every layer from Options, serves, and shuts down gracefully.
//
// Start() is a page of named steps (cmd/app.cpp): data dir and PKI, authentication and authorization,
// the built-in schemas, storage, audit, admission, the API groups, the aggregator, the routes, the
// filter chain and the HTTPS listener (admin.kubeconfig is written once the port is known and before
// the first request is accepted), then the control loops. Shutdown(): /readyz turns red, new non-long-running requests get 503, in-flight ones
// finish (bounded), watches end, then the listener and storage close. Start and Shutdown are called
// from the main thread.
#pragma once

#include <memory>

#include "apimachinery/status.h"
#include "cmd/options.h"

namespace capstan::cmd {

class App {
 public:
  explicit App(Options options);
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  Status Start();
  void Shutdown();
  int port() const;

  // Everything the process owns, and the steps of Start (opaque outside cmd/app.cpp).
  struct State;

 private:
  std::unique_ptr<State> s_;
};

}  // namespace capstan::cmd
