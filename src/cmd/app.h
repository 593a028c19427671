// cmd/app.h: the Capstan process: builds every layer from Options, serves, and shuts down gracefully.
//
// Start(): data dir, PKI, storage, authentication, authorization, routes, the filter chain and the
// HTTPS listener; admin.kubeconfig is written once the port is known and before the first request is
// accepted. Shutdown(): /readyz turns red, new non-long-running requests get 503, in-flight ones
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

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace capstan::cmd
