// tests/storage_conformance/backend_conformance.h: the one conformance suite every storage::Backend
// passes (embedded LMDB store, etcd3 over gRPC).
//
// The suite is written against storage::Backend only. A backend instantiates it with a factory:
//
//   INSTANTIATE_TEST_SUITE_P(Embedded, BackendConformance, ::testing::Values(MyFactory()),
//                            BackendFactoryName);
//
// and links the capstan_backend_conformance object library. Every key a test writes starts with a
// per-test prefix (K("a")), so a shared store that cannot be wiped, like a running etcd, works: set
// `shared` and the tests assert revisions relative to the store's revision when they start.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

#include "storage/backend.h"
#include "util/task.h"

namespace capstan::storage::conformance {

struct BackendFactory {
  std::string name;
  // Opens the store for one test. `dir` is an empty temp dir owned by the test (the embedded store's
  // data dir; a remote backend may ignore it). With can_restart, calling open again with the same dir
  // after the previous Backend was destroyed must give back the same data.
  std::function<StatusOr<std::unique_ptr<Backend>>(const std::string& dir)> open;
  bool can_restart = false;
  // The store is shared with others and cannot be wiped: assert nothing about keys outside the test's
  // prefix, and nothing about absolute revisions.
  bool shared = false;
  // TTL for lease tests; at least the backend's minimum (etcd rounds smaller TTLs up).
  int64_t lease_ttl = 2;
};

std::string BackendFactoryName(const ::testing::TestParamInfo<BackendFactory>& info);

// Collects a watch's responses; wait for them with a generous deadlock guard.
class WatchCollector {
 public:
  WatchCallback Callback();
  // Waits until at least n events arrived (false on timeout or if the watch ended first).
  bool WaitForEvents(size_t n, std::chrono::milliseconds timeout = std::chrono::seconds(20));
  // Waits for a response with an error (the watch's end).
  bool WaitForError(std::chrono::milliseconds timeout = std::chrono::seconds(20));
  bool WaitFor(const std::function<bool(const std::vector<WatchResponse>&)>& pred,
               std::chrono::milliseconds timeout = std::chrono::seconds(20));
  std::vector<WatchEvent> Events() const;
  std::vector<WatchResponse> Responses() const;
  Status Error() const;

 private:
  struct State {
    std::mutex mu;
    std::condition_variable cv;
    std::vector<WatchResponse> responses;
  };
  std::shared_ptr<State> state_ = std::make_shared<State>();
};

class BackendConformance : public ::testing::TestWithParam<BackendFactory> {
 protected:
  void SetUp() override;
  void TearDown() override;

  Backend& db() { return *backend_; }
  const BackendFactory& factory() const { return GetParam(); }
  // A key under this test's prefix.
  std::string K(const std::string& name) const { return prefix_ + name; }
  const std::string& prefix() const { return prefix_; }
  // Destroys the backend and opens the same store again (skips the test if the backend cannot).
  void Restart();

  // Synchronous helpers; they fail the test on an error Status.
  int64_t CurrentRevision();
  int64_t Put(const std::string& key, const std::string& value, int64_t lease = 0);
  int64_t Delete(const std::string& key);
  std::optional<KeyValue> Get(const std::string& key, int64_t revision = 0);
  StatusOr<RangeResponse> Range(RangeRequest req) { return SyncWait(db().Range(std::move(req))); }
  StatusOr<TxnResponse> Txn(TxnRequest req) { return SyncWait(db().Txn(std::move(req))); }
  RangeResponse Prefix(const std::string& p, int64_t revision = 0, int64_t limit = 0);

  std::string dir_;
  std::string prefix_;
  std::unique_ptr<Backend> backend_;
};

}  // namespace capstan::storage::conformance
